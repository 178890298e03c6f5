/// One way a timer fire can reach its target; each ends in `Ticker.tick()` in another module.
///
/// The raw value is the name the `TimerDispatch` benchmarks, the `DispatchCount` tool and
/// `Scripts/callgrind.sh` use.
///
/// ```swift
/// let fixture = DispatchFixture(.closureWeakSelf)
/// fixture.run(times: 1_000)
/// ```
public enum DispatchVariant: String, CaseIterable, Sendable {
    /// `ticker.tick()` on a strong reference: the floor.
    case direct = "direct"
    /// A stored `() -> Void` that captures the ticker strongly (a block timer's action).
    case closure = "closure"
    /// A stored closure capturing `[weak self]`: the usual Swift fix for a timer cycle.
    case closureWeakSelf = "closure-weak-self"
    /// A stored closure capturing `[unowned self]`: no side table, but it traps once the target
    /// died, so it is a reference point, not a safe design.
    case closureUnowned = "closure-unowned"
    /// A stored closure capturing `[unowned(unsafe) self]`: touches freed memory once the
    /// target died; the floor of any "no weak load" design, not a candidate.
    case closureUnownedUnsafe = "closure-unowned-unsafe"
    /// S9: an intermediate object with a weak target, called directly.
    case intermediateForwarder = "s9-forwarder"
    /// S9 as a block timer fires it: a stored closure that calls the forwarder.
    case intermediateForwarderClosure = "s9-forwarder-closure"
    /// A string-keyed selector table that imitates Objective-C forwarding.
    case selectorTable = "selector-table"
    /// `WeakProxy.forward { $0.tick() }`.
    case weakProxyForward = "weakproxy-forward"
    /// `WeakProxy.withTarget { $0.tick() }`.
    case weakProxyWithTarget = "weakproxy-with-target"
    /// `WeakProxy.target?.tick()`: the proxy's weak property, read directly.
    case weakProxyTarget = "weakproxy-target"
    /// A `RunLoopTimer(proxy:)` fire's dispatch: a stored closure that calls
    /// `proxy.forward { action($0) }` with a stored `(Target) -> Void` action.
    case weakProxyTimerAction = "weakproxy-timer-action"
    /// `ForwardingProxy.forward("tick", to: Tickable.self)` with the ticker as its only target,
    /// held weakly (the timer-safe choice).
    case forwardingProxyOneWeak = "forwardingproxy-1-weak"
    /// As ``forwardingProxyOneWeak`` with the target held strongly (the proxy's default).
    case forwardingProxyOneStrong = "forwardingproxy-1-strong"
    /// Three weak targets, the ticker last: two failed `as? Tickable` casts first.
    case forwardingProxyThreeWeak = "forwardingproxy-3-weak"
    /// One weak target with a before and an after hook on `"tick"`.
    case forwardingProxyHooks = "forwardingproxy-hooks"

    /// A one-line description for tables.
    public var summary: String {
        switch self {
        case .direct: "ticker.tick() on a strong reference"
        case .closure: "stored closure capturing the target strongly"
        case .closureWeakSelf: "stored closure capturing [weak self]"
        case .closureUnowned: "stored closure capturing [unowned self] (traps if dead)"
        case .closureUnownedUnsafe: "stored closure capturing [unowned(unsafe) self] (unsafe)"
        case .intermediateForwarder: "S9 forwarder (weak target), forwarder.fire()"
        case .intermediateForwarderClosure: "S9 forwarder through a stored closure"
        case .selectorTable: "string-keyed selector table, weak target (ObjC imitation)"
        case .weakProxyForward: "WeakProxy.forward { $0.tick() }"
        case .weakProxyWithTarget: "WeakProxy.withTarget { $0.tick() }"
        case .weakProxyTarget: "WeakProxy.target?.tick()"
        case .weakProxyTimerAction: "stored closure { proxy.forward { action($0) } } (timer path)"
        case .forwardingProxyOneWeak: "ForwardingProxy, 1 weak target"
        case .forwardingProxyOneStrong: "ForwardingProxy, 1 strong target"
        case .forwardingProxyThreeWeak: "ForwardingProxy, 3 weak targets (match last)"
        case .forwardingProxyHooks: "ForwardingProxy, 1 weak target, before + after hooks"
        }
    }
}
