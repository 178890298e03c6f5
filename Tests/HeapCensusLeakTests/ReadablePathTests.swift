import Foundation
import LeakTracking
import Testing

/// Paths as a person reads them: the capture the user wrote, not the compiler's plumbing.
actor PathActor {
    var ticks = 0
    func tick() { ticks += 1 }
}

final class PollingOwner: @unchecked Sendable {
    let actor = PathActor()
    var task: Task<Void, Never>?
    func start() {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
                await self.actor.tick()
            }
        }
    }
}

final class AnyHolder: @unchecked Sendable {
    var slot: Any?
}

struct Wrapped {
    var state: Inner?
    struct Inner { var retained: AnyObject }
}

final class ThreadOwner: @unchecked Sendable {
    var thread: Thread?
    let stored = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    func start() {
        let thread = Thread { [self] in
            // corelibs Foundation names the pthread only once `start()` has stored it (a name
            // set earlier is lost): wait for `start()` to return.
            self.stored.wait()
            Thread.current.name = "owner.worker"  // names the pthread
            self.started.signal()
            self.done.wait()
        }
        self.thread = thread
        thread.start()
        stored.signal()
        started.wait()
    }
}

nonisolated(unsafe) private var privateRegistry: [ObjectIdentifier: AnyObject] = [:]

/// Each test watches an owner the way the README shows (a `LeakWatcher`, nothing started by
/// hand: a test process's census records from launch) and reads the report's path.
@Suite(.serialized) struct ReadablePathTests {
    func report(_ make: () -> AnyObject) -> LeakReport? {
        let watcher = LeakWatcher(defaultGrace: .zero)
        watch(make, watcher)
        return watcher.check().first?.report
    }
    @inline(never) func watch(_ make: () -> AnyObject, _ watcher: LeakWatcher) {
        watcher.expectDeallocation(of: make(), reason: "closed")
    }

    @Test func aTasksPathShowsTheCaptureTheUserWroteNotTheCompilersContexts() throws {
        var task: Task<Void, Never>?
        defer { task?.cancel() }
        let report = try #require(
            report {
                let owner = PollingOwner()
                owner.start()
                task = owner.task
                return owner
            })
        let descriptions = report.path.map(\.description)
        #expect(descriptions.last == "captures PollingOwner", "\(report.text)")
        #expect(!descriptions.contains("captures a closure"), "\(report.text)")
        let contexts = report.path.compactMap { report.object($0.to) }
            .filter { $0.typeName.hasPrefix("closure context") }
        #expect(contexts.map(\.typeName) == ["closure context (captures Actor, PollingOwner)"])
    }

    @Test func aValueInAnAnyIsNamedByItsSlotItsBoxAndItsFields() throws {
        let holder = AnyHolder()
        let report = try #require(
            report {
                let owner = PollingOwner()
                holder.slot = Wrapped(state: .init(retained: owner))
                return owner
            })
        #expect(report.path.last?.description == ".slot (Any).state.retained", "\(report.text)")
        #expect(
            report.path.compactMap { report.object($0.to)?.typeName }
                .allSatisfy { !$0.hasPrefix("closure context") })
        holder.slot = nil
    }

    @Test func aThreadsClosureIsHeldByTheThreadNamedAsItIs() throws {
        var done: DispatchSemaphore?
        defer { done?.signal() }
        let report = try #require(
            report {
                let owner = ThreadOwner()
                owner.start()
                done = owner.done
                return owner
            })
        let root = report.path.first.flatMap { report.object($0.from)?.root }
        #expect(
            root == "a running Thread named \"owner.worker\"", "\(report.text)")
        #expect(report.hint.code == .threadClosure)
    }

    @Test func aPrivateGlobalIsNamedWithoutItsDiscriminator() throws {
        var key: ObjectIdentifier?
        defer { key.map { privateRegistry[$0] = nil } }
        let report = try #require(
            report {
                let owner = PollingOwner()
                key = ObjectIdentifier(owner)
                privateRegistry[ObjectIdentifier(owner)] = owner
                return owner
            })
        let root = try #require(report.path.first.flatMap { report.object($0.from)?.root })
        #expect(root.hasPrefix("global variable HeapCensusLeakTests.privateRegistry : "), "\(root)")
        #expect(!root.contains(" in _"))
    }
}
