import RetainGraph

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

/// What a timer calls, how it holds it, and the edge the graph records for it: what every timer
/// kind's initialisers build and its designated initialiser takes.
struct TimerBinding<Timer: AnyObject> {
    /// `timer ⇒/→ target` (role `.target`) or `timer ⇒ closure ⇒/→ captured` (nothing when no
    /// capture is declared), recorded once the tracker is attached.
    enum Edge {
        case target(AnyObject, Ownership)
        case closure(capturing: AnyObject?, Ownership, name: String)
    }

    let action: TimerAction<Timer>
    /// Whether a fire that finds the target dead invalidates the timer (weak targets).
    var stopsWhenTargetDies = false
    let edge: Edge

    func record(into tracker: TimerTracker?) {
        switch edge {
        case .target(let target, let ownership):
            tracker?.recordTarget(target, ownership: ownership, role: .target)
        case .closure(let captured, let ownership, let name):
            tracker?.recordClosure(capturing: captured, ownership: ownership, name: name)
        }
    }

    /// `target` held strongly until the timer is invalidated.
    static func strong<Target: AnyObject>(
        _ target: Target, _ body: @escaping (Target, Timer) -> Void
    ) -> Self {
        Self(action: .always { timer in body(target, timer) }, edge: .target(target, .strong))
    }

    /// `target` held weakly; the first fire that finds it dead stops the timer.
    static func weak<Target: AnyObject>(
        _ target: Target, _ body: @escaping (Target, Timer) -> Void
    ) -> Self {
        let action = TimerAction<Timer>.reporting { [weak target] timer in
            guard let target else { return false }
            body(target, timer)
            return true
        }
        return Self(action: action, stopsWhenTargetDies: true, edge: .target(target, .weak))
    }

    /// A ``WeakProxy`` held strongly, forwarding each fire to its weak target.
    static func proxy<Target: AnyObject>(
        _ proxy: WeakProxy<Target>, _ body: @escaping (Target, Timer) -> Void
    ) -> Self {
        Self(
            action: .reporting { timer in proxy.forward { target in body(target, timer) } },
            edge: .target(proxy, .strong))
    }

    /// A closure, with what it declares it captures (`nil`: no closure node is recorded).
    static func closure(
        _ body: @escaping (Timer) -> Void, capturing captured: AnyObject?, as kind: Ownership,
        name: String = "self"
    ) -> Self {
        Self(action: .always(body), edge: .closure(capturing: captured, kind, name: name))
    }
}
