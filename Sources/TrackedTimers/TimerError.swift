/// Why an instrumented timer, proxy or registry refused its input.
///
/// Every timer kind validates what it is given before touching Foundation or libdispatch, so
/// bad input (a NaN interval, a repeating interval of 0, a negative start) becomes a value the
/// caller can handle instead of a trap in the host app.
///
/// ```swift
/// do {
///     _ = try DispatchTimer(interval: .nan, repeats: true) { _ in }
/// } catch let error as TimerError {
///     print(error)  // invalid interval nan: …
/// }
/// ```
public enum TimerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The interval is NaN, infinite or negative, or it is 0 (or less) for a repeating timer.
    case invalidInterval(Double)
    /// The start delay (or first fire date offset) is NaN, infinite or negative.
    case invalidStart(Double)
    /// No action (closure, target or task) was given.
    case missingAction
    /// A name that a live registered timer already carries.
    case nameInUse(String)
    /// The timer was invalidated; it can never be scheduled again.
    case invalidated
    /// The timer is already scheduled on another run loop; a timer belongs to one run loop
    /// (it may be in several modes of that one).
    case scheduledOnAnotherRunLoop
    /// A frame rate (frames per second) is NaN, infinite, not above 0 or above
    /// `FrameTimer.maximumRefreshRate`, or a preferred rate is negative.
    case invalidFrameRate(Double)

    /// A one-line explanation, as printed in logs.
    public var description: String {
        switch self {
        case .invalidInterval(let value):
            return "invalid interval \(value): it must be finite, not negative, and above 0 "
                + "for a repeating timer"
        case .invalidStart(let value):
            return "invalid start delay \(value): it must be finite and not negative"
        case .missingAction:
            return "missing action: a timer needs a closure, a target or a task"
        case .nameInUse(let name):
            return "the name \"\(name)\" belongs to a live timer"
        case .invalidated:
            return "the timer was invalidated and cannot be scheduled again"
        case .scheduledOnAnotherRunLoop:
            return "the timer is already scheduled on another run loop"
        case .invalidFrameRate(let value):
            return "invalid frame rate \(value): it must be above 0 and at most 100000"
        }
    }
}
