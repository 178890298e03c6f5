import Foundation

/// The thread the measured async work runs on: a task executor of its own, so that every
/// allocation the work (and its child tasks) makes has this thread's loop on its stack, and
/// the census's creation traces tell the work's objects from those other threads make
/// meanwhile (other tests running in parallel).
///
/// One thread serves the process (measurements run one at a time, ``MeasurementGate``) and
/// lives as long as it: a job that arrives late always has a thread to run on.
///
/// Work isolated to an actor (the main actor included) runs on that actor's executor, and an
/// unstructured `Task { }` does not inherit the preference: their objects are made on other
/// threads, and the analysis tells them apart by running an idle round.
final class MeasurementThread: TaskExecutor, @unchecked Sendable {
    static let shared = MeasurementThread()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isReady = false

    private init() {
        let thread = Thread { [unowned self] in self.runJobs() }
        thread.name = "HeapGrowth measurement"
        thread.start()
        condition.withLock {
            while !isReady { condition.wait() }
        }
    }

    /// Queues a job of the measured work.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// The thread's loop (``WorkMarker/measurementThread``): says it runs, then runs jobs in
    /// order. Not private: its symbol's name is the marker's.
    @inline(never)
    func runJobs() {
        condition.withLock {
            isReady = true
            condition.broadcast()
        }
        let executor = asUnownedTaskExecutor()
        while true {
            let job = condition.withLock { () -> UnownedJob in
                while jobs.isEmpty { condition.wait() }
                return jobs.removeFirst()
            }
            job.runSynchronously(on: executor)
        }
    }
}

/// The frame synchronous measured work runs under (``WorkMarker/synchronous``), for the same
/// purpose as ``MeasurementThread``: its objects' creation traces pass through ``run(_:)``.
enum SynchronousMarker {
    /// Runs `work` under the marker frame.
    @inline(never)
    static func run(_ work: () throws -> Void) rethrows {
        try work()
        keepFrame()  // no tail call: the frame stays on the stack while `work` runs
    }

    @inline(never)
    private static func keepFrame() {}
}
