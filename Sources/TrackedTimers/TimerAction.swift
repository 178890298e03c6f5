/// What a run-loop-driven timer (``RunLoopTimer``, ``FrameTimer``) runs when it fires, stored
/// as the closure itself rather than wrapped in another.
///
/// ``DispatchTimer`` has its own `Sendable` variant: its actions run on a queue of the user's
/// choice, so its closures must be `@Sendable`.
enum TimerAction<Timer: AnyObject> {
    /// A closure or a strong target: the receiver is always alive.
    case always((Timer) -> Void)
    /// A weak target, a proxy or a forwarder: returns whether the receiver was alive.
    case reporting((Timer) -> Bool)

    /// Runs the action; returns whether its receiver was alive.
    @inline(__always)
    func callAsFunction(_ timer: Timer) -> Bool {
        switch self {
        case .always(let body):
            body(timer)
            return true
        case .reporting(let body):
            return body(timer)
        }
    }
}
