import Foundation
import RetainGraph

extension FrameTimer {
    /// Creates a frame timer that holds `target` **strongly** until invalidated, as
    /// `CADisplayLink(target:selector:)` does (S12a: an owner storing it leaks).
    ///
    /// ```swift
    /// link = try FrameTimer(target: self) { me, link in me.render(at: link.timestamp) }
    /// try link?.add(to: .current, forMode: .default)
    /// ```
    ///
    /// - Parameters:
    ///   - target: Retained until ``invalidate()``.
    ///   - refreshRate: Refreshes per second of the simulated display; above 0, at most
    ///     ``FrameTimer/maximumRefreshRate``.
    ///   - preferredFramesPerSecond: Frames per second wanted; 0 for every refresh; not negative.
    ///   - clock: Where timestamps are read; the system's monotonic clock by default.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: Called with the target and the timer once per frame.
    /// - Throws: ``TimerError/invalidFrameRate(_:)``.
    public convenience init<Target: AnyObject>(
        target: Target, refreshRate: Double = 60, preferredFramesPerSecond: Int = 0,
        clock: FrameClock = .system, label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared,
        action: @escaping (Target, FrameTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            refreshRate: refreshRate, preferredFramesPerSecond: preferredFramesPerSecond,
            clock: clock, label: label, graph: graph, binding: .strong(target, action))
    }

    /// Creates a frame timer that holds `target` **weakly** and invalidates itself at the first
    /// frame after the target died.
    ///
    /// - Parameters:
    ///   - weakTarget: Not retained; loaded strongly for the duration of each frame.
    ///   - refreshRate: Refreshes per second; above 0, at most ``FrameTimer/maximumRefreshRate``.
    ///   - preferredFramesPerSecond: Frames per second wanted; 0 for every refresh.
    ///   - clock: Where timestamps are read.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: Called with the living target and the timer.
    /// - Throws: ``TimerError/invalidFrameRate(_:)``.
    public convenience init<Target: AnyObject>(
        weakTarget: Target, refreshRate: Double = 60, preferredFramesPerSecond: Int = 0,
        clock: FrameClock = .system, label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared,
        action: @escaping (Target, FrameTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            refreshRate: refreshRate, preferredFramesPerSecond: preferredFramesPerSecond,
            clock: clock, label: label, graph: graph, binding: .weak(weakTarget, action))
    }

    /// Creates a frame timer whose target is a ``WeakProxy`` (held strongly) forwarding each
    /// frame to its weak target: `link ⇒ proxy → owner`. Frames into a dead target are dropped
    /// and counted; the timer keeps running until invalidated.
    ///
    /// - Parameters:
    ///   - proxy: Retained until ``invalidate()``.
    ///   - refreshRate: Refreshes per second; above 0, at most ``FrameTimer/maximumRefreshRate``.
    ///   - preferredFramesPerSecond: Frames per second wanted; 0 for every refresh.
    ///   - clock: Where timestamps are read.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: Called with the proxy's living target and the timer.
    /// - Throws: ``TimerError/invalidFrameRate(_:)``.
    public convenience init<Target: AnyObject>(
        proxy: WeakProxy<Target>, refreshRate: Double = 60, preferredFramesPerSecond: Int = 0,
        clock: FrameClock = .system, label: borrowing String? = nil,
        graph: borrowing LiveGraph = .shared,
        action: @escaping (Target, FrameTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            refreshRate: refreshRate, preferredFramesPerSecond: preferredFramesPerSecond,
            clock: clock, label: label, graph: graph, binding: .proxy(proxy, action))
    }

    /// Creates a frame timer that runs a closure, optionally declaring what it captures
    /// (`capturing: self, as: .weak` records `link ⇒ closure → owner`, S12b).
    ///
    /// - Parameters:
    ///   - refreshRate: Refreshes per second; above 0, at most ``FrameTimer/maximumRefreshRate``.
    ///   - preferredFramesPerSecond: Frames per second wanted; 0 for every refresh.
    ///   - clock: Where timestamps are read.
    ///   - captured: The object the closure captures, to show in the graph. Not retained.
    ///   - kind: How the closure captures it.
    ///   - label: A label for reports.
    ///   - graph: The graph to record into.
    ///   - action: The closure, released on ``invalidate()``.
    /// - Throws: ``TimerError/invalidFrameRate(_:)``.
    public convenience init(
        refreshRate: Double = 60, preferredFramesPerSecond: Int = 0, clock: FrameClock = .system,
        capturing captured: AnyObject? = nil, as kind: Ownership = .strong,
        label: borrowing String? = nil, graph: borrowing LiveGraph = .shared,
        action: @escaping (FrameTimer) -> Void
    ) throws(TimerError) {
        try self.init(
            refreshRate: refreshRate, preferredFramesPerSecond: preferredFramesPerSecond,
            clock: clock, label: label, graph: graph,
            binding: .closure(action, capturing: captured, as: kind))
    }
}
