import Foundation
import HeapCensus

/// One growth measurement at a time in the process.
///
/// Two measurements running at once would count each other's objects (the census counts the
/// whole process): the issue that made this gate saw 1.5 instances per repetition where the
/// work made 1.0. Measurements queue here
/// instead: an async one suspends without holding a thread, a synchronous one blocks its
/// thread, for at most ``MeasurementGate/synchronousWait``: a blocked thread of the
/// cooperative pool could be the one an async holder needs (a synchronous measurement called
/// from an async test runs on one), so after that wait a synchronous measurement goes ahead
/// without the gate (``Ticket/isExclusive``): it traces its types beside the other's and counts
/// without attribution, and the holder sees its objects as made elsewhere.
final class MeasurementGate: @unchecked Sendable {
    static let shared = MeasurementGate()

    /// The longest a synchronous measurement waits for another to finish.
    static let synchronousWait: TimeInterval = 30

    /// What a measurement holds while it runs.
    struct Ticket {
        /// Whether no other measurement runs meanwhile (false after a synchronous wait timed
        /// out: the work's instances are then not told apart from the other measurement's).
        let isExclusive: Bool
    }

    private let condition = NSCondition()
    private var isBusy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits, suspended, until no other measurement runs.
    func enter() async -> Ticket {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = condition.withLock { () -> Bool in
                guard isBusy else {
                    isBusy = true
                    return true
                }
                waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
        return Ticket(isExclusive: true)
    }

    /// Waits, blocking the thread, until no other measurement runs or
    /// ``synchronousWait`` passes.
    func enterBlocking() -> Ticket {
        let deadline = Date().addingTimeInterval(Self.synchronousWait)
        condition.lock()
        defer { condition.unlock() }
        while isBusy {
            guard condition.wait(until: deadline) else { return Ticket(isExclusive: false) }
        }
        isBusy = true
        return Ticket(isExclusive: true)
    }

    /// Lets the next measurement run (an async one first, else a blocked one).
    func leave(_ ticket: Ticket) {
        guard ticket.isExclusive else { return }
        let next = condition.withLock { () -> CheckedContinuation<Void, Never>? in
            guard !waiting.isEmpty else {
                isBusy = false
                condition.broadcast()
                return nil
            }
            return waiting.removeFirst()  // the gate passes to it, still busy
        }
        next?.resume()
    }
}
