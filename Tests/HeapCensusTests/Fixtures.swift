import Dispatch
import Foundation
import HeapCensus
import Synchronization

/// An owner that does nothing but be held: each test names what holds it.
final class Owner: @unchecked Sendable {
    private(set) var ticks = 0
    func tick() { ticks += 1 }
}

/// A global cache, as apps keep them.
nonisolated(unsafe) var ownerCache: [Owner] = []
/// A plain integer global: set to an object's address, it is a word the census reads without
/// a layout, like a C library's static.
nonisolated(unsafe) var strayGlobalWord: UInt = 0

/// A singleton with a dictionary of callbacks.
final class CallbackRegistry: @unchecked Sendable {
    static let shared = CallbackRegistry()
    var callbacks: [String: () -> Void] = [:]
}

/// Keeps owners in a `Mutex`, as Swift 6 code guards its state (a noncopyable stored property,
/// whose type the compiler hides from reflection).
final class MutexHolder: Sendable {
    let owners = Mutex<[Owner]>([])
}

/// The same in a generic class: the `Mutex`'s value type mentions the class's parameter.
final class GenericMutexHolder<Element: AnyObject & Sendable>: Sendable {
    let items = Mutex<[Element]>([])
}

/// A `Mutex` of a private type, which the runtime cannot find by name: the census reads the
/// `Mutex` conservatively.
final class PrivateStateHolder: Sendable {
    private struct State {
        var owners: [Owner] = []
    }
    private let state = Mutex(State())

    func keep(_ owner: Owner) { state.withLock { $0.owners.append(owner) } }
}

/// Owners that start a primitive of the platform in `start()`.
final class TimerOwner: @unchecked Sendable {
    var timer: Timer?
    func start() {
        timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.tick() }
    }
    func tick() {}
}

final class DispatchOwner: @unchecked Sendable {
    var source: DispatchSourceTimer?
    func start() {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "census.dispatch"))
        source.schedule(deadline: .now() + 3600, repeating: 3600)
        source.setEventHandler { self.tick() }
        source.activate()
        self.source = source
    }
    func tick() {}
}

final class TaskOwner: @unchecked Sendable {
    var task: Task<Void, Never>?
    func start() {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
                self.tick()
            }
        }
    }
    func tick() {}
}

final class WorkItemOwner: @unchecked Sendable {
    func start(on queue: DispatchQueue) {
        let item = DispatchWorkItem { self.tick() }
        queue.asyncAfter(deadline: .now() + 3600, execute: item)
    }
    func tick() {}
}

/// Makes an owner in a function of its own, so no local variable of the test holds it.
@inline(never)
func makeOwner<T: AnyObject>(_ make: () -> T, _ start: (T) -> Void) -> (ObjectIdentifier, UInt) {
    let owner = make()
    start(owner)
    return (ObjectIdentifier(owner), UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque()))
}

/// A task made in memory just freed that held `address` in every word: the bytes the
/// runtime does not initialise stay stale, as they are when malloc hands a task a block a
/// freed object of the program used.
@inline(never) func strayTask(address: UInt, planted: AsleepCount) -> Task<Void, Never> {
    // Seven of each size: as many as glibc's per-thread cache keeps, so that allocations
    // made on the way to the task's cannot use them all up. The cache is emptied first
    // (blocks it already held are taken and kept until the task is made): a full cache
    // would send the planted blocks to bins another thread may take, and hand the task a
    // block this test never filled.
    let sizes = stride(from: 256, through: 512, by: 16).flatMap { repeatElement($0, count: 7) }
    let cached = sizes.map { UnsafeMutableRawPointer.allocate(byteCount: $0, alignment: 16) }
    defer { for block in cached { block.deallocate() } }
    let blocks = sizes.map { UnsafeMutableRawPointer.allocate(byteCount: $0, alignment: 16) }
    for (block, size) in zip(blocks, sizes) {
        block.initializeMemory(as: UInt.self, repeating: address, count: size / 8)
    }
    for block in blocks { block.deallocate() }
    let task = Task.detached {
        planted.value.store(1, ordering: .sequentiallyConsistent)
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
    // The planted blocks the task did not take are scrubbed before anything else running on
    // this thread is handed one: another test's object in one would hold the stale word too,
    // and could hold the cycle from a root (a parallel run's failure).
    let leftovers = sizes.map { UnsafeMutableRawPointer.allocate(byteCount: $0, alignment: 16) }
    for (block, size) in zip(leftovers, sizes) {
        block.initializeMemory(as: UInt8.self, repeating: 0, count: size)
    }
    for block in leftovers { block.deallocate() }
    return task
}

/// Stray tasks made in memory full of one address (``strayTask(address:planted:)``) until one
/// holds it as a stale word; cancelled by ``cancelAll()``.
final class StrayTasks {
    private var tasks: [Task<Void, Never>] = []
    /// The stray whose block holds the stale word, after ``snapshotWithStaleWord(to:)``
    /// found one, and the object its closure captures.
    private(set) var holding: (task: Task<Void, Never>, captured: AsleepCount)?

    /// A snapshot in which a stray task's memory holds `address`. Whether a planted block is
    /// the one a task gets is the allocator's to say (most times it is): a stray whose block
    /// holds no stale word is cancelled and another made, up to 20.
    ///
    /// - Returns: The snapshot, or nil when no stray got a planted block.
    func snapshotWithStaleWord(to address: UInt) async throws -> HeapSnapshot? {
        while tasks.count < 20 {
            let planted = AsleepCount()
            let stray = strayTask(address: address, planted: planted)
            tasks.append(stray)
            let deadline = ContinuousClock.now + .seconds(60)
            while planted.value.load(ordering: .sequentiallyConsistent) == 0,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            let heap = HeapCensus.snapshot()
            let strayAddress = unsafeBitCast(stray, to: UInt.self)
            if let target = heap.object(at: address),
                heap.references(to: target).contains(where: {
                    heap[$0.from].address == strayAddress
                })
            {
                holding = (stray, planted)
                return heap
            }
            stray.cancel()
        }
        return nil
    }

    func cancelAll() {
        for task in tasks { task.cancel() }
    }
}
