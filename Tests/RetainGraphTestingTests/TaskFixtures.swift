import Foundation

/// Continuations that tests park tasks on, and resume once the check has seen them: no test
/// leaves a task behind.
final class ParkedContinuations: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [CheckedContinuation<Void, Never>] = []
    private var counted = 0

    /// How many tasks are parked.
    var count: Int { lock.withLock { continuations.count } }

    /// Counts a task that got somewhere (without parking it).
    func markStarted() {
        lock.withLock { counted += 1 }
    }

    /// Waits (60 s at most) until `count` tasks counted themselves.
    func waitUntilCounted(_ count: Int) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while lock.withLock({ counted }) < count, ContinuousClock.now < deadline {
            await Task.yield()
        }
    }

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock { continuations.append(continuation) }
    }

    /// Resumes every parked task.
    func resumeAll() {
        let parked = lock.withLock {
            defer { continuations.removeAll() }
            return continuations
        }
        for continuation in parked { continuation.resume() }
    }

    /// Waits (60 s at most) until `count` tasks are parked, driving nothing but time: the
    /// tasks run on the cooperative pool.
    func waitUntilParked(_ count: Int) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while self.count < count, ContinuousClock.now < deadline {
            await Task.yield()
        }
    }
}

/// An object a parked task keeps alive (what a census report would find held by the task).
final class TaskHeldPayload: @unchecked Sendable {
    var bytes = [UInt8](repeating: 1, count: 64)
}

/// Starts, from this file (not the test's), on a thread of its own, a task that parks on
/// `parked`: a task the test did not start from its own file.
func startTaskFromAnotherThread(_ parked: ParkedContinuations) {
    let thread = Thread {
        Task.detached {
            await withCheckedContinuation { parked.park($0) }
        }
    }
    thread.start()
}
