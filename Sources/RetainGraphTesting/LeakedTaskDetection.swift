import Foundation
import HeapCensus
import ProcessAttach
import StackTraces

/// Runs `body` and returns the tasks it started that are still alive when it ends, after
/// driving them for up to `grace`.
///
/// The heap census knows every live task (this process's census records from launch in a
/// test process): the tasks alive when `body` ends that were not alive when it started are
/// the candidates. A candidate is the test's when the census's creation stack for it has a
/// frame in `filePath` (the test's file: the line that started it, or a call of a helper that
/// did), of the function named `function` when one is given (`Suite.test(` : the test's own
/// function, or a closure in it), so that tasks other tests start meanwhile (Swift Testing runs
/// tests in parallel, those of one file too) and the test runner's own are never blamed. A task
/// started after the test's function suspended (from an async helper that awaited first) has
/// no such frame and is not blamed. Without a creation stack (the census did not keep one) a
/// candidate is the test's only when `filePath` is nil. The candidates are then driven: the check
/// yields and re-reads them (a millisecond apart) until each has ended or completed, or
/// `grace` has passed. What remains, read through the remote mirror
/// (``/ProcessAttach/TaskInspection/thisProcess()``), is returned: tasks suspended on a
/// continuation nobody resumes, in a sleep loop nobody cancels, or still running. A task the
/// runtime made for itself (the timer of a `Task.sleep`) is never returned: the task that
/// sleeps is.
///
/// ```swift
/// let leaked = try await withLeakedTaskDetection(startedIn: #filePath) {
///     let poller = Poller()
///     poller.start()        // Task { while true { … try await Task.sleep(…) } }
/// }
/// print(leaked.first?.failureMessage ?? "none")
/// // Task 12 started by this test is still suspended when it ends, in Poller.run() at …
/// ```
///
/// - Parameters:
///   - grace: How long the tasks may take to end after `body` returns.
///   - filePath: The test's `#filePath`: only tasks created from it are the test's; nil takes
///     every task created while `body` ran.
///   - function: A part of the name of the function in `filePath` that must have created them
///     (`LeakedTaskTests.pollerStops(`); nil for any function of the file.
///   - isolation: Where `body` runs: the caller's actor (a `@MainActor` test's main actor), so
///     that `body` need not be `Sendable`.
///   - body: The test's work.
/// - Returns: The tasks left alive, by id.
/// - Throws: What `body` throws (the tasks are not checked then).
/// - Complexity: Two passes over the census's table (O(*n*) for *n* live objects: a few
///   milliseconds at 100,000), plus, only when `body` left tasks alive, the wait and a read of
///   each through the remote mirror.
public func withLeakedTaskDetection(
    grace: Duration = .seconds(1), startedIn filePath: String? = nil, function: String? = nil,
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async throws -> [LeakedTask] {
    let before = LiveTasks.addresses()
    try await body()
    let origin = TaskOrigin(filePath: filePath, function: function)
    return await LiveTasks.leaked(since: before, grace: grace, startedIn: origin)
}

/// Where a test's tasks were started from: a frame of their creation stack in the test's file,
/// and of the test's function when it is known.
struct TaskOrigin: Sendable {
    var filePath: String?
    var function: String?

    /// Whether `frame` is the test's.
    func contains(_ frame: StackFrame) -> Bool {
        guard let filePath, frame.file == filePath else { return filePath == nil }
        guard let function else { return true }
        return frame.function?.contains(function) == true
    }
}

/// The census's view of this process's tasks.
enum LiveTasks {
    /// The addresses of every live task the census knows (starting the census if it can).
    static func addresses() -> Set<UInt> {
        if !HeapCensus.isRunning { HeapCensus.start() }
        return HeapCensus.counts().addresses(ofType: "Task")
    }

    /// The tasks alive now that were not in `before`, started from `origin`, left after
    /// driving them for `grace` (yielding, a millisecond apart).
    static func leaked(since before: Set<UInt>, grace: Duration, startedIn origin: TaskOrigin)
        async -> [LeakedTask]
    {
        var waiting = Waiting(since: before, grace: grace, startedIn: origin)
        while waiting.isWaiting() {
            await Task.yield()
            try? await Task.sleep(for: .milliseconds(1))
        }
        return waiting.leaked()
    }

    /// The same, for a caller on a thread with a run loop (XCTest's teardown, on the main
    /// thread): between reads it runs the current run loop for a millisecond, so that work the
    /// tasks wait for on the main actor or the main queue goes on.
    static func leakedDrivingRunLoop(
        since before: Set<UInt>, grace: Duration, startedIn origin: TaskOrigin
    ) -> [LeakedTask] {
        var waiting = Waiting(since: before, grace: grace, startedIn: origin)
        while waiting.isWaiting() {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.001))
        }
        return waiting.leaked()
    }

    /// The candidates of one check, read again until they end or the grace is over.
    ///
    /// The grace is counted in time the check itself got to run, a few milliseconds at most
    /// per read: while the cooperative pool is starved (other tests block its threads), the
    /// tasks cannot end and the check does not run either, and that time does not count. A
    /// minute past the grace ends the wait whatever happens.
    struct Waiting {
        private var remaining: [(address: UInt, site: CreationSite?)]
        private let grace: Duration
        private var counted = Duration.zero
        private var lastRead = ContinuousClock.now
        private let deadline: ContinuousClock.Instant
        private let origin: TaskOrigin
        private let reader = TaskInspection.thisProcess()

        init(since before: Set<UInt>, grace: Duration, startedIn origin: TaskOrigin) {
            self.origin = origin
            self.grace = grace
            deadline = ContinuousClock.now + grace + .seconds(60)
            remaining = LiveTasks.addresses().subtracting(before).compactMap { address in
                let site = HeapCensus.creationSite(ofObjectAt: address)
                return LiveTasks.isStarted(site, in: origin) ? (address, site) : nil
            }
        }

        /// Drops the candidates that ended; whether some remain and there is time left.
        mutating func isWaiting() -> Bool {
            let reader = self.reader
            remaining = remaining.filter {
                LiveTasks.isAlive($0.address, madeAt: $0.site, reader: reader)
            }
            let now = ContinuousClock.now
            counted += min(now - lastRead, .milliseconds(5))
            lastRead = now
            return !remaining.isEmpty && counted < grace && now < deadline
        }

        /// The candidates left, read through the mirror, but the runtime's own tasks.
        func leaked() -> [LeakedTask] {
            guard !remaining.isEmpty else { return [] }
            let tasks = reader?.tasks(at: remaining.map(\.address)) ?? []
            return remaining.compactMap { address, site in
                let task = tasks.first { $0.address == address }
                if let task, task.isRuntimeTask || task.state == .completed { return nil }
                // Ended while it was read, its memory taken by a new object.
                if let site, HeapCensus.creationSite(ofObjectAt: address) != site { return nil }
                return LeakedTask(
                    task: task, address: address, creationSite: site,
                    createdAt: LiveTasks.createdAt(site, in: origin))
            }.sorted { ($0.task?.id ?? 0) < ($1.task?.id ?? 0) }
        }
    }

    /// Whether the census still knows a live task at `address`, made at `site`, that has not
    /// completed.
    ///
    /// A task that ended frees its memory, and a new object may take it at once (under load,
    /// often): an object at `address` made elsewhere than `site` is that new one, and the task
    /// has ended. (Read through the mirror, the new object's words made a "suspended" task.)
    static func isAlive(_ address: UInt, madeAt site: CreationSite?, reader: TaskInspection?)
        -> Bool
    {
        guard HeapCensus.referenceCounts(ofObjectAt: address) != nil else { return false }
        if let site, HeapCensus.creationSite(ofObjectAt: address) != site { return false }
        return reader?.state(ofTaskAt: address) != .completed
    }

    /// Whether a task made at `site` was started from `origin`.
    static func isStarted(_ site: CreationSite?, in origin: TaskOrigin) -> Bool {
        guard origin.filePath != nil else { return true }
        guard let site else { return false }
        return site.frames().contains(where: origin.contains)
    }

    /// The creation frame of `origin`, else the first of the program's own code.
    static func createdAt(_ site: CreationSite?, in origin: TaskOrigin) -> StackFrame? {
        guard let site else { return nil }
        if origin.filePath != nil, let own = site.frames().first(where: origin.contains) {
            return own
        }
        return site.userFrame()
    }
}
