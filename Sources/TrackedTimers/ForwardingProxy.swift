import Locking
import RetainGraph
import Synchronization

/// A proxy over several targets, with before and after hooks around forwarded calls: the
/// `NSProxy` "multiple inheritance" and AOP patterns for Swift (S19).
///
/// Objective-C forwards a selector to whichever target responds to it. Here a *message* is a
/// name plus the protocol (or type) a target must conform to: ``forward(_:to:_:)`` calls the
/// first target (in the order added) that conforms, after running the message's before hooks
/// and before running its after hooks; ``broadcast(_:to:_:)`` calls every conforming target.
///
/// ```swift
/// protocol Speaker: AnyObject { func speak() -> String }
/// protocol Walker: AnyObject { func walk() }
/// let proxy = ForwardingProxy()
/// proxy.addTarget(robotArm)            // a Speaker
/// proxy.addTarget(robotLegs)           // a Walker
/// proxy.hook("walk", before: { _, _ in log("start") }, after: { _, _ in log("stop") })
/// proxy.forward("walk", to: Walker.self) { $0.walk() }   // start, walk, stop
/// ```
///
/// Targets are held strongly (as the Objective-C proxies' arrays do) or weakly, as chosen per
/// target; the graph records `proxy ⇒/→ target`, role `.proxyTarget`. Hooks are called with
/// the target and the message name, on the calling thread, outside the proxy's lock.
///
/// - Complexity: A forwarded call costs a lock, a dictionary lookup for the hooks, one dynamic
///   cast per target tried, and the hooks; it allocates nothing.
public final class ForwardingProxy: @unchecked Sendable {
    /// A hook: called with the target and the message name.
    public typealias Hook = (AnyObject, String) -> Void

    struct Slot {
        weak var weakTarget: AnyObject?
        var strongTarget: AnyObject?
        var target: AnyObject? { strongTarget ?? weakTarget }
    }

    struct Hooks {
        var before: [Hook] = []
        var after: [Hook] = []
    }

    private let lock = PthreadLock()
    private var slots: [Slot] = []
    private var hooks: [String: Hooks] = [:]
    private let unhandled = Atomic<Int>(0)
    let tracker: TimerTracker?

    /// Creates an empty proxy.
    ///
    /// - Parameters:
    ///   - label: A label for reports.
    ///   - graph: The graph to record into; ``/RetainGraph/LiveGraph/shared`` by default.
    public init(label: String? = nil, graph: LiveGraph = .shared) {
        tracker = TimerTracker(
            kind: .proxy, label: label, timer: nil, graph: graph, traceSkipping: 1)
        tracker?.attach(identifier: ObjectIdentifier(self), type: ForwardingProxy.self)
    }

    /// Adds a target; calls are tried on targets in the order they were added.
    ///
    /// - Parameters:
    ///   - target: The target.
    ///   - kind: `.strong` (default) retains it; `.weak` or `.unowned` hold it weakly (a dead
    ///     weak target is skipped).
    public func addTarget(_ target: AnyObject, holding kind: Ownership = .strong) {
        let slot = kind == .strong ? Slot(strongTarget: target) : Slot(weakTarget: target)
        lock.withLock { slots.append(slot) }
        tracker?.recordTarget(
            target, ownership: kind == .strong ? .strong : .weak, role: .proxyTarget)
    }

    /// The living targets, in order.
    public var targets: [AnyObject] { lock.withLock { slots.compactMap(\.target) } }

    /// Adds hooks around every forwarded call of `message`. Hooks accumulate: several may be
    /// added for one message and run in the order added.
    ///
    /// - Parameters:
    ///   - message: The message name, as passed to ``forward(_:to:_:)``.
    ///   - before: Runs before the call, with the target and the message name.
    ///   - after: Runs after the call returned (not when it threw).
    public func hook(_ message: String, before: Hook? = nil, after: Hook? = nil) {
        lock.withLock {
            var entry = hooks[message] ?? Hooks()
            if let before { entry.before.append(before) }
            if let after { entry.after.append(after) }
            hooks[message] = entry
        }
    }

    /// How many forwarded calls found no target conforming to the requested protocol.
    public var unhandledMessageCount: Int { unhandled.load(ordering: .relaxed) }

    /// The proxy's node in the graph, or `nil` when tracking was off at creation.
    public var graphID: ObjectID? { tracker?.id }

    deinit {
        // The tracker goes with the proxy, and its node with the tracker.
        tracker?.retire()
    }

    /// Forwards `message` to the first living target that is a `Role`, with its hooks.
    ///
    /// - Parameters:
    ///   - message: The message name (selects the hooks).
    ///   - role: The protocol or type the target must conform to ("responds to the selector").
    ///   - body: The call.
    /// - Returns: Whether a target handled the message; `false` counts an unhandled message.
    /// - Throws: Whatever `body` throws (the after hooks are then skipped).
    @discardableResult
    public func forward<Role>(
        _ message: String, to role: Role.Type, _ body: (Role) throws -> Void
    ) rethrows -> Bool {
        let (slots, hooks) = lock.withLock { (self.slots, self.hooks[message]) }
        for slot in slots {
            guard let object = slot.target, let target = object as? Role else { continue }
            try call(target, object: object, message: message, hooks: hooks, body)
            return true
        }
        unhandled.add(1, ordering: .relaxed)
        return false
    }

    /// Forwards `message` to every living target that is a `Role`, each with the hooks.
    ///
    /// - Parameters:
    ///   - message: The message name (selects the hooks).
    ///   - role: The protocol or type the targets must conform to.
    ///   - body: The call, once per conforming target.
    /// - Returns: How many targets were called; 0 counts an unhandled message.
    /// - Throws: Whatever `body` throws (the remaining targets are then skipped).
    @discardableResult
    public func broadcast<Role>(
        _ message: String, to role: Role.Type, _ body: (Role) throws -> Void
    ) rethrows -> Int {
        let (slots, hooks) = lock.withLock { (self.slots, self.hooks[message]) }
        var count = 0
        for slot in slots {
            guard let object = slot.target, let target = object as? Role else { continue }
            try call(target, object: object, message: message, hooks: hooks, body)
            count += 1
        }
        if count == 0 { unhandled.add(1, ordering: .relaxed) }
        return count
    }

    private func call<Role>(
        _ target: Role, object: AnyObject, message: String, hooks: Hooks?,
        _ body: (Role) throws -> Void
    ) rethrows {
        if let hooks { for hook in hooks.before { hook(object, message) } }
        try body(target)
        if let hooks { for hook in hooks.after { hook(object, message) } }
    }
}
