import Dispatch
import Foundation
import HeapCensus
import LeakTracking
import Testing

/// The census explains leaks in code that uses no RetainGraph type: each test watches an owner
/// the way the README shows (`HeapCensus.start()`, a `LeakWatcher`, `expectDeallocation`),
/// and asserts the report's path: its first reference leaves the outside holder, its last one
/// is the property or capture that keeps the owner.
@Suite(.serialized) struct CensusLeakReportTests {
    init() { HeapCensus.start() }

    /// Watches what `make` returns (no local variable of the caller keeps it) and checks.
    private func verdict(
        reason: String = "owner closed", _ make: () -> AnyObject
    ) -> WatchVerdict? {
        let watcher = LeakWatcher(defaultGrace: .zero)
        watch(make, with: watcher, reason: reason)
        return watcher.check().first
    }

    @inline(never)
    private func watch(_ make: () -> AnyObject, with watcher: LeakWatcher, reason: String) {
        watcher.expectDeallocation(of: make(), reason: reason)
    }

    /// What the report's path starts from: its root's description.
    private func root(_ verdict: WatchVerdict?) -> String? {
        guard let report = verdict?.report, let first = report.path.first else { return nil }
        return report.object(first.from)?.root
    }

    private func leakPath(_ verdict: WatchVerdict?) throws -> [ReportReference] {
        let verdict = try #require(verdict)
        #expect(verdict.verdict == .leak)
        let report = try #require(verdict.report)
        return report.path
    }

    @Test func aPlainFoundationTimerIsExplainedFromTheRunLoop() throws {
        var timer: Timer?
        defer { timer?.invalidate() }
        let result = verdict {
            let owner = TimerOwner()
            owner.start(weakly: false)
            timer = owner.timer
            return owner
        }
        let path = try leakPath(result)
        #expect(path.first?.description == "valid until invalidated, never freed on Linux")
        #expect(path.last?.description == "._fire (a closure capturing TimerOwner)")
        #expect(path.allSatisfy { $0.foundIn == "heap" })
        #expect(result?.report?.hint.code == .foundationTimer)
    }

    @Test func aFoundationTimerCapturingWeaklyLetsItsOwnerDie() throws {
        var timer: Timer?
        defer { timer?.invalidate() }
        let result = try #require(
            verdict {
                let owner = TimerOwner()
                owner.start(weakly: true)
                timer = owner.timer
                return owner
            })
        #expect(result.verdict == .ok)
    }

    @Test func aNotificationObserverBlockIsExplainedFromTheDefaultCenter() throws {
        var token: NSObjectProtocol?
        defer { token.map(NotificationCenter.default.removeObserver) }
        let result = verdict {
            let owner = ObserverOwner()
            owner.start(weakly: false)
            token = owner.observer
            return owner
        }
        let path = try leakPath(result)
        #expect(root(result)?.contains("_defaultCenter") == true)
        // The center's Mutex is read with its type (named from its accessor's symbol).
        #expect(path.contains { $0.description == ".registrar" })
        #expect(path.last?.description == "captures ObserverOwner")
        #expect(path.allSatisfy { $0.foundIn == "heap" })
        let hint = try #require(result?.report?.hint)
        #expect(hint.code == .notificationObserverCapture)
        #expect(hint.text.contains("remove the observer in stop()"))
    }

    @Test func aRemovedNotificationObserverLetsItsOwnerDie() throws {
        let result = try #require(
            verdict {
                let owner = ObserverOwner()
                owner.start(weakly: false)
                owner.stop()
                return owner
            })
        #expect(result.verdict == .ok)
    }

    @Test func aDispatchSourceHandlerIsExplainedFromLibdispatch() throws {
        var source: DispatchSourceTimer?
        defer { source?.cancel() }
        let result = verdict {
            let owner = DispatchOwner()
            owner.start(weakly: false)
            source = owner.source
            return owner
        }
        let path = try leakPath(result)
        #expect(path.first?.description == "keeps the block")
        #expect(path.last?.description == "captures DispatchOwner")
        #expect(result?.report?.hint.code == .dispatchBlockCapture)
    }

    @Test func aDispatchSourceCapturingWeaklyLetsItsOwnerDie() throws {
        var source: DispatchSourceTimer?
        defer { source?.cancel() }
        let result = try #require(
            verdict {
                let owner = DispatchOwner()
                owner.start(weakly: true)
                source = owner.source
                return owner
            })
        #expect(result.verdict == .ok)
    }

    @Test func aTaskSleepLoopIsExplainedFromTheTask() throws {
        var task: Task<Void, Never>?
        defer { task?.cancel() }
        let result = verdict {
            let owner = TaskOwner()
            owner.start()
            task = owner.task
            return owner
        }
        let path = try leakPath(result)
        #expect(path.first?.description == "runs or sleeps")
        #expect(path.last?.description == "captures TaskOwner")
        #expect(result?.report?.hint.code == .taskCapture)
        #expect(result?.report?.hint.text.contains("cancel the task") == true)
    }

    @Test func aGlobalCacheIsExplainedByItsVariable() throws {
        defer { entryCache.removeAll() }
        let result = verdict {
            let entry = Entry()
            entryCache.append(entry)
            return entry
        }
        let path = try leakPath(result)
        #expect(root(result)?.contains("entryCache") == true)
        #expect(path.first?.description == "stores")
        #expect(path.last?.description == "element of an array")
        #expect(result?.report?.hint.code == .globalVariable)
    }

    @Test func aClosureInASingletonsDictionaryIsExplained() throws {
        defer { Callbacks.shared.byName.removeAll() }
        let result = verdict {
            let entry = Entry()
            Callbacks.shared.byName["refresh"] = { _ = entry }
            return entry
        }
        let path = try leakPath(result)
        #expect(root(result)?.contains("Callbacks.shared") == true)
        #expect(path.map(\.description).contains(".byName"))
        // The closure captures only the entry: the dictionary's value captures it. That entry
        // of the singleton's dictionary is the reference to remove: the suspect.
        #expect(path.last?.description == "value of [String: () -> ()]")
        #expect(path.last?.isSuspect == true)
        #expect(path.filter(\.isSuspect).count == 1)
    }

    @Test func aWorkItemOnAQueueIsExplainedFromLibdispatch() throws {
        var owner: WorkItemOwner?
        defer { owner?.stop() }
        let queue = DispatchQueue(label: "census.work")
        let result = verdict {
            let made = WorkItemOwner()
            made.start(on: queue)
            owner = made
            return made
        }
        let path = try leakPath(result)
        #expect(path.first?.description == "keeps the block")
        #expect(path.last?.description == "captures WorkItemOwner")
    }
}

/// The fixed variants of the owners above: cancelled, removed or captured weakly, each dies and
/// the census explains nothing.
@Suite(.serialized) struct CensusFixedVariantTests {
    init() { HeapCensus.start() }

    private func verdict(_ make: () -> AnyObject) -> WatchVerdict? {
        let watcher = LeakWatcher(defaultGrace: .zero)
        watch(make, with: watcher)
        // Whatever was cancelled lets go on its own thread: wait for the verdict to settle.
        return watcher.settle(timeout: .seconds(30)).first
    }

    @inline(never)
    private func watch(_ make: () -> AnyObject, with watcher: LeakWatcher) {
        watcher.expectDeallocation(of: make(), reason: "owner closed")
    }

    @Test func aCancelledTaskLoopLetsItsOwnerDie() async throws {
        let watcher = LeakWatcher(defaultGrace: .zero)
        let task = startAndCancelTaskOwner(watchedBy: watcher)
        // The loop ends on the cooperative pool: await it rather than block a thread of it.
        await task?.value
        let result = try #require(watcher.check().first)
        #expect(result.verdict == .ok, "\(result.report?.text ?? "")")
    }

    @inline(never)
    private func startAndCancelTaskOwner(watchedBy watcher: LeakWatcher) -> Task<Void, Never>? {
        let owner = TaskOwner()
        owner.start()
        owner.stop()
        watcher.expectDeallocation(of: owner, reason: "owner closed")
        return owner.task
    }

    @Test func aWorkItemCapturingWeaklyLetsItsOwnerDie() throws {
        // Cancelling is not enough: libdispatch keeps a cancelled item's block, and what it
        // captures, until the item's time comes. Capturing weakly is.
        let queue = DispatchQueue(label: "census.work.weak")
        let result = try #require(
            verdict {
                let owner = WorkItemOwner()
                owner.start(on: queue, weakly: true)
                owner.stop()
                owner.item = nil
                return owner
            })
        #expect(result.verdict == .ok, "\(result.report?.text ?? "")")
    }

    @Test func aCallbackRemovedFromTheSingletonLetsItsCaptureDie() throws {
        let result = try #require(
            verdict {
                let entry = Entry()
                Callbacks.shared.byName["refresh"] = { _ = entry }
                Callbacks.shared.byName["refresh"] = nil
                return entry
            })
        #expect(result.verdict == .ok)
    }

    @Test func anEntryRemovedFromTheGlobalCacheDies() throws {
        let result = try #require(
            verdict {
                let entry = Entry()
                entryCache.append(entry)
                entryCache.removeAll { $0 === entry }
                return entry
            })
        #expect(result.verdict == .ok)
    }
}
