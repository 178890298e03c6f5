/// What a timer runs when it fires, stored as the closure itself rather than wrapped in another.
///
/// A ``DispatchTimer``'s actions come from `@Sendable` closures (they run on a queue of the
/// user's choice) and are stored as these.
enum TimerAction<Timer: AnyObject> {
    /// A closure or a strong target: the receiver is always alive.
    case always((Timer) -> Void)
    /// A weak target, a proxy, a forwarder or a registry task: returns whether the receiver was
    /// alive.
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

/// Where a timer is in its life: made, scheduled, or invalidated for good.
enum TimerPhase { case idle, scheduled, invalidated }
