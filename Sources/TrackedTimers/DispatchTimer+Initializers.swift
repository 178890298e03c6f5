import Dispatch
import Foundation
import RetainGraph

extension DispatchTimer {
    /// Creates an unscheduled timer that runs a closure on `queue`.
    ///
    /// The graph records the timer but no closure node (one that holds nothing would lie on
    /// no path); use ``init(interval:tolerance:repeats:queue:label:capturing:as:graph:handler:)``
    /// to record `timer ⇒ closure ⇒/→ owner`.
    ///
    /// ```swift
    /// let timer = try DispatchTimer(interval: 0.5, repeats: true, queue: .global()) { _ in
    ///     print("tick")
    /// }
    /// timer.schedule()
    /// ```
    ///
    /// - Parameters:
    ///   - interval: Seconds until the (first) fire and between fires. Finite and not negative;
    ///     above 0 when `repeats`. Values beyond about 146 years are clamped.
    ///   - tolerance: The leeway libdispatch may fire late by; see ``tolerance``.
    ///   - repeats: Whether the timer fires until invalidated, or once.
    ///   - queue: Where the handler runs; the main queue by default.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into; ``/RetainGraph/LiveGraph/shared`` by default.
    ///   - handler: The action, called with the timer.
    /// - Throws: ``TimerError/invalidInterval(_:)`` for NaN, ∞, negative or (repeating) zero
    ///   intervals.
    public convenience init(
        interval: TimeInterval, tolerance: TimeInterval = 0, repeats: Bool,
        queue: DispatchQueue = .main, label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared,
        handler: @escaping @Sendable (DispatchTimer) -> Void
    ) throws {
        try self.init(
            interval: interval, tolerance: tolerance, repeats: repeats, queue: queue,
            label: label, graph: graph, binding: .closure(handler, capturing: nil, as: .strong))
    }

    /// Creates an unscheduled timer that runs a closure and declares what the closure
    /// captures: `timer ⇒ closure ⇒ owner` for `.strong`, `timer ⇒ closure → owner` for `.weak`
    /// (scenarios S7b and S7a).
    ///
    /// The declaration is only recorded, never enforced: capture `owner` in `handler` the way
    /// you declare it.
    ///
    /// ```swift
    /// timer = try DispatchTimer(interval: 1, repeats: true, queue: .global(),
    ///                           capturing: self, as: .weak) { [weak self] _ in self?.tick() }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: See ``init(interval:tolerance:repeats:queue:label:graph:handler:)``.
    ///   - tolerance: The leeway.
    ///   - repeats: Whether the timer repeats.
    ///   - queue: Where the handler runs.
    ///   - label: A label for reports.
    ///   - owner: The object the closure captures (as `self`). Not retained by the timer.
    ///   - kind: How the closure captures it.
    ///   - graph: The graph to record into.
    ///   - handler: The action.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init(
        interval: TimeInterval, tolerance: TimeInterval = 0, repeats: Bool,
        queue: DispatchQueue = .main, label: borrowing String? = nil,
        capturing owner: AnyObject, as kind: Ownership, graph: borrowing LiveGraph = .shared,
        handler: @escaping @Sendable (DispatchTimer) -> Void
    ) throws {
        try self.init(
            interval: interval, tolerance: tolerance, repeats: repeats, queue: queue,
            label: label, graph: graph, binding: .closure(handler, capturing: owner, as: kind))
    }

    /// Creates an unscheduled timer that calls `action` with a target it does **not** retain
    /// (MSWeakTimer, scenario S20): `timer → target`.
    ///
    /// The first fire that finds the target dead invalidates the timer instead of acting
    /// (recorded as a fire into a dead target), so a forgotten timer stops by itself.
    ///
    /// ```swift
    /// timer = try DispatchTimer(interval: 1, repeats: true, queue: .global(),
    ///                           weakTarget: self) { owner, _ in owner.tick() }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: See ``init(interval:tolerance:repeats:queue:label:graph:handler:)``.
    ///   - tolerance: The leeway.
    ///   - repeats: Whether the timer repeats.
    ///   - queue: Where `action` runs; the target must be safe to use there.
    ///   - label: A label for reports.
    ///   - target: The receiver; held weakly.
    ///   - graph: The graph to record into.
    ///   - action: Called with the (living) target and the timer.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init<Target: AnyObject>(
        interval: TimeInterval, tolerance: TimeInterval = 0, repeats: Bool,
        queue: DispatchQueue = .main, label: borrowing String? = nil, weakTarget target: Target,
        graph: borrowing LiveGraph = .shared,
        action: @escaping @Sendable (Target, DispatchTimer) -> Void
    ) throws {
        try self.init(
            interval: interval, tolerance: tolerance, repeats: repeats, queue: queue,
            label: label, graph: graph, binding: .weak(target, action))
    }

    /// Creates an unscheduled timer that retains `target` until it is invalidated and calls
    /// `action` with it: `timer ⇒ target`, the NSTimer semantics that make a repeating timer
    /// keep its owner alive.
    ///
    /// - Parameters:
    ///   - interval: See ``init(interval:tolerance:repeats:queue:label:graph:handler:)``.
    ///   - tolerance: The leeway.
    ///   - repeats: Whether the timer repeats.
    ///   - queue: Where `action` runs; the target must be safe to use there.
    ///   - label: A label for reports.
    ///   - target: The receiver; held strongly until ``invalidate()``.
    ///   - graph: The graph to record into.
    ///   - action: Called with the target and the timer.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public convenience init<Target: AnyObject>(
        interval: TimeInterval, tolerance: TimeInterval = 0, repeats: Bool,
        queue: DispatchQueue = .main, label: borrowing String? = nil, target: Target,
        graph: borrowing LiveGraph = .shared,
        action: @escaping @Sendable (Target, DispatchTimer) -> Void
    ) throws {
        try self.init(
            interval: interval, tolerance: tolerance, repeats: repeats, queue: queue,
            label: label, graph: graph, binding: .strong(target, action))
    }
}
