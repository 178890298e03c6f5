import Foundation
import RetainGraph

extension RunLoopTimer {
    /// Creates an unscheduled timer that holds `target` **strongly** until invalidated: the
    /// faithful `NSTimer(timeInterval:target:selector:userInfo:repeats:)`.
    ///
    /// An owner that stores this timer and is its target forms the cycle `owner ⇒ timer ⇒
    /// owner`; once scheduled the run loop holds it too, so the owner never dies unless someone
    /// invalidates the timer (S1, S3, S4, S14). Passing a weak local copy of the owner changes
    /// nothing (S3): the timer still stores a strong reference.
    ///
    /// ```swift
    /// let timer = try RunLoopTimer(interval: 1, repeats: true, target: self) { me, _ in me.tick() }
    /// try timer.add(to: .current, forMode: .default)
    /// ```
    ///
    /// - Parameters:
    ///   - interval: Seconds between fires (delay before the fire of a one-shot timer). Finite,
    ///     not negative, above 0 when repeating.
    ///   - repeats: Whether the timer repeats.
    ///   - target: The object the action is called on; retained until ``invalidate()``.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: The "selector": called with the target and the timer on the run loop's thread.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init<Target: AnyObject>(
        interval: TimeInterval, repeats: Bool, target: Target, label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared, action: @escaping (Target, RunLoopTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            interval: interval, repeats: repeats, label: label, graph: graph,
            binding: .strong(target, action))
    }

    /// Creates an unscheduled timer that holds `target` **weakly** and invalidates itself at
    /// the first fire after the target died (MSWeakTimer / YYTimer semantics).
    ///
    /// The target is loaded strongly for the duration of each fire, so it cannot die in the
    /// middle of one. The fire that finds it dead counts as a fire into a dead target.
    ///
    /// - Parameters:
    ///   - interval: As for the strong-target initialiser.
    ///   - repeats: Whether the timer repeats.
    ///   - weakTarget: The object the action is called on; not retained.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: Called with the (living) target and the timer.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init<Target: AnyObject>(
        interval: TimeInterval, repeats: Bool, weakTarget: Target, label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared, action: @escaping (Target, RunLoopTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            interval: interval, repeats: repeats, label: label, graph: graph,
            binding: .weak(weakTarget, action))
    }

    /// Creates an unscheduled timer that holds `target` strongly and whose action reports
    /// whether it reached a living receiver: for an intermediate object that keeps a weak
    /// target and forwards (S9), or a wrapper that is its own timer's target (S11).
    ///
    /// A fire whose action returns `false` counts as a fire into a dead target in the timer's
    /// `TimerInfo.firesIntoDeadTarget`; the timer keeps firing (it does not stop by itself).
    ///
    /// ```swift
    /// final class Forwarder { weak var owner: Owner? }
    /// let timer = try RunLoopTimer(interval: 1, repeats: true, forwarder: forwarder) { f, _ in
    ///     guard let owner = f.owner else { return false }
    ///     owner.tick()
    ///     return true
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: As for the strong-target initialiser.
    ///   - repeats: Whether the timer repeats.
    ///   - target: The forwarding object, the timer's target; retained until ``invalidate()``.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - forward: Called with the target and the timer; returns whether the call was
    ///     delivered to a living receiver.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init<Target: AnyObject>(
        interval: TimeInterval, repeats: Bool, forwarder target: Target,
        label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared, forward: @escaping (Target, RunLoopTimer) -> Bool
    ) throws(TimerError) {
        try self.init(
            interval: interval, repeats: repeats, label: label, graph: graph,
            binding: TimerBinding(
                action: .reporting { timer in forward(target, timer) },
                edge: .target(target, .strong)))
    }

    /// Creates an unscheduled timer whose target is a ``WeakProxy`` (held strongly) that
    /// forwards each fire to its own weak target (S8): `timer ⇒ proxy → owner`.
    ///
    /// A fire through a proxy whose target died is dropped and counted (in the proxy and in the
    /// timer's `firesIntoDeadTarget`); the timer keeps firing until invalidated, as with `NSProxy`.
    ///
    /// - Parameters:
    ///   - interval: As for the strong-target initialiser.
    ///   - repeats: Whether the timer repeats.
    ///   - proxy: The proxy; retained until ``invalidate()``.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: Called with the proxy's (living) target and the timer.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    /// - Complexity: A fire allocates nothing: the forwarded call is a non-escaping closure.
    public convenience init<Target: AnyObject>(
        interval: TimeInterval, repeats: Bool, proxy: WeakProxy<Target>,
        label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared, action: @escaping (Target, RunLoopTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            interval: interval, repeats: repeats, label: label, graph: graph,
            binding: .proxy(proxy, action))
    }

    /// Creates an unscheduled timer that runs a closure, like `Timer(timeInterval:repeats:block:)`.
    ///
    /// Declare what the closure captures so the graph can show it: `capturing: self, as: .weak`
    /// for `[weak self]` records `timer ⇒ closure → owner` (S6a); `as: .strong` records
    /// `timer ⇒ closure ⇒ owner` (S6b). Without a declaration the graph records no closure
    /// node: one that holds nothing lies on no path and in no cycle.
    ///
    /// ```swift
    /// timer = try RunLoopTimer(interval: 1, repeats: true, capturing: self, as: .weak) {
    ///     [weak self] _ in self?.tick()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: As for the strong-target initialiser.
    ///   - repeats: Whether the timer repeats.
    ///   - captured: The object the closure captures, if you want it in the graph. Not retained.
    ///   - kind: How the closure captures it.
    ///   - captureName: The captured variable's name for reports; `"self"` by default.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: The closure; retained until ``invalidate()``, then released.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init(
        interval: TimeInterval, repeats: Bool, capturing captured: borrowing AnyObject? = nil,
        as kind: Ownership = .strong, captureName: borrowing String = "self",
        label: borrowing String? = nil, graph: borrowing LiveGraph = .shared,
        action: @escaping (RunLoopTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            interval: interval, repeats: repeats, label: label, graph: graph,
            binding: .closure(action, capturing: copy captured, as: kind, name: copy captureName))
    }

    /// Creates an unscheduled timer whose target is a **type**, with the closure as its
    /// "userInfo": the Objective-C trampoline where the timer class itself is the target and
    /// the block rides in `userInfo` (S10).
    ///
    /// The graph records `timer ⇒ Type` where the type is a root `.immortalType(name:)` (a
    /// type never dies, so that cycle is no leak) and `timer ⇒ closure →/⇒ captured`.
    ///
    /// ```swift
    /// enum BlockTrampoline { static func invoke(_ block: () -> Void) { block() } }
    /// timer = try RunLoopTimer(interval: 1, repeats: true, typeTarget: BlockTrampoline.self,
    ///                          capturing: self, as: .weak) { [weak self] type, _ in
    ///     type.invoke { self?.tick() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: As for the strong-target initialiser.
    ///   - repeats: Whether the timer repeats.
    ///   - typeTarget: The type used as the target.
    ///   - captured: The object the closure captures, if you want it in the graph.
    ///   - kind: How the closure captures it.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: Called with the type and the timer; retained until ``invalidate()``.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init<T>(
        interval: TimeInterval, repeats: Bool, typeTarget: T.Type,
        capturing captured: AnyObject? = nil, as kind: Ownership = .strong,
        label: borrowing String? = nil, graph: borrowing LiveGraph = .shared,
        action: @escaping (T.Type, RunLoopTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            interval: interval, repeats: repeats, label: label, graph: graph,
            binding: .closure({ action(typeTarget, $0) }, capturing: captured, as: kind))
        tracker?.recordTarget(
            root: .immortalType(name: String(reflecting: typeTarget)), ownership: .strong,
            role: .target)
    }
}
