import Foundation

/// A background thread that runs one piece of setup and then parks, blocked, without ever
/// running its run loop, until ``finish()``: the thread of seed S16.
///
/// ```swift
/// let worker = ParkedThread(name: "worker")
/// try worker.run { try controller.startPolling() }   // scheduled on the worker's run loop
/// // … the timer never fires …
/// worker.finish()
/// ```
final class ParkedThread: @unchecked Sendable {
    /// The thread's name, which also names its run loop's root in reports.
    let name: String
    private let ready = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var failure: (any Error)?
    private var started = false

    init(name: String) { self.name = name }

    /// Starts the thread, runs `setup` on it and waits (up to 20 s) until it has run.
    ///
    /// - Parameter setup: Runs on the new thread before it parks.
    /// - Throws: What `setup` threw, or ``ScenarioContext/Failure/timedOut(_:)``.
    func run(_ setup: @escaping @Sendable () throws -> Void) throws {
        let thread = Thread { [self] in
            do { try setup() } catch { lock.withLock { failure = error } }
            ready.signal()
            release.wait()  // parked: this thread's run loop never runs
        }
        thread.name = name
        lock.withLock { started = true }
        thread.start()
        guard ready.wait(timeout: .now() + 20) == .success else {
            throw ScenarioContext.Failure.timedOut("thread \(name)")
        }
        if let failure = lock.withLock({ failure }) { throw failure }
    }

    /// Lets the thread end.
    func finish() {
        if lock.withLock({ started }) { release.signal() }
    }
}
