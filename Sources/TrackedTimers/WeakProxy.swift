import RetainGraph
import Synchronization

/// The `NSProxy` weak-target pattern for Swift: an object that holds its target weakly and
/// forwards calls (and timer fires) to it while it lives (S8).
///
/// Make the proxy the timer's target instead of the owner, and the cycle `owner ⇒ timer ⇒
/// owner` becomes `owner ⇒ timer ⇒ proxy → owner`: the owner can die, and its `deinit`
/// invalidates the timer. The graph records `proxy → target` (weak, role `.proxyTarget`).
///
/// ```swift
/// final class Ticker {
///     var timer: RunLoopTimer?
///     func start() throws {
///         let proxy = WeakProxy(self)
///         timer = try RunLoopTimer(interval: 1, repeats: true, proxy: proxy) { ticker, _ in
///             ticker.tick()
///         }.scheduleOnCurrentRunLoop().held(by: self, as: "timer")
///     }
///     func tick() {}
///     deinit { timer?.invalidate() }
/// }
/// ```
///
/// A call routed through a proxy whose target died is not delivered: ``forward(_:)`` returns
/// `false` and ``callsIntoDeadTarget`` grows; a timer firing through the proxy also counts the
/// fire in its `TimerInfo.firesIntoDeadTarget`, the evidence of a zombie timer. Unlike a
/// weak-target timer, a timer firing through a proxy does not stop by itself (as with
/// `NSProxy`): someone must invalidate it.
///
/// The target is loaded strongly for the duration of each forwarded call, so a target cannot
/// die in the middle of a call (its last release then happens after the call returns).
///
/// An ordinary intermediate object that keeps a weak target and forwards (S9) needs no special
/// type: use it as a strong target and declare its weak edge with
/// `LiveGraph.addReference(from:to:ownership:role:creationTrace:)`.
///
/// - Complexity: A forwarded call costs one pin load (a conditional retain) and one closure call;
///   it allocates nothing.
public final class WeakProxy<Target: AnyObject>: @unchecked Sendable {
    /// The target, pinned rather than held weakly: a weak reference would give the target (the
    /// timer's owner, as a rule) a side table and send its every retain and release down the
    /// runtime's slow path, and a weak load costs more than a pin's. The pin keeps the dead
    /// target's memory (not what it referred to) until the proxy dies.
    private let pin: ObjectPin
    private let deadCalls = Atomic<Int>(0)
    let tracker: TimerTracker?

    /// Creates a proxy for `target`, holding it weakly.
    ///
    /// - Parameters:
    ///   - target: The object calls are forwarded to. Not retained.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into; ``/RetainGraph/LiveGraph/shared`` by default.
    public init(_ target: Target, label: String? = nil, graph: LiveGraph = .shared) {
        pin = ObjectPin(target)
        tracker = TimerTracker(
            kind: .proxy, label: label, timer: nil, graph: graph, traceSkipping: 1)
        tracker?.attach(identifier: ObjectIdentifier(self), type: WeakProxy<Target>.self)
        tracker?.recordTarget(target, ownership: .weak, role: .proxyTarget)
    }

    /// The target, or `nil` once it died (began deinitialising).
    public var target: Target? {
        guard let object = pin.load() else { return nil }
        return unsafeDowncast(object, to: Target.self)
    }

    /// Whether the target is still alive.
    public var isTargetAlive: Bool { target != nil }

    /// How many forwarded calls found the target dead and were dropped.
    public var callsIntoDeadTarget: Int { deadCalls.load(ordering: .relaxed) }

    /// The proxy's node in the graph, or `nil` when tracking was off at creation.
    public var graphID: ObjectID? { tracker?.id }

    deinit {
        // The tracker goes with the proxy, and its node with the tracker.
        tracker?.retire()
        pin.release()
    }

    /// Calls `body` with the target if it is alive; counts a call into a dead target otherwise.
    ///
    /// ```swift
    /// let delivered = proxy.forward { $0.tick() }
    /// ```
    ///
    /// - Parameter body: The call to forward. It runs on the calling thread.
    /// - Returns: Whether the call was delivered.
    /// - Throws: Whatever `body` throws.
    /// - Complexity: O(1), no allocation.
    @discardableResult
    @inlinable
    public func forward(_ body: (Target) throws -> Void) rethrows -> Bool {
        guard let target else {
            recordDeadCall()
            return false
        }
        try body(target)
        return true
    }

    /// Calls `body` with the target if it is alive and returns its result; `nil` (and a call
    /// into a dead target counted) otherwise.
    ///
    /// - Parameter body: The call to forward.
    /// - Returns: `body`'s result, or `nil` when the target is dead.
    /// - Throws: Whatever `body` throws.
    @inlinable
    public func withTarget<Result>(_ body: (Target) throws -> Result) rethrows -> Result? {
        guard let target else {
            recordDeadCall()
            return nil
        }
        return try body(target)
    }

    /// Counts a call that found the target dead.
    @usableFromInline
    func recordDeadCall() {
        deadCalls.add(1, ordering: .relaxed)
    }
}
