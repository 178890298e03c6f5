import Foundation
import RetainGraph

extension RunLoopTimer {
    /// Creates a timer with a **strong** target and adds it to the current thread's run loop in
    /// `.default`: `NSTimer.scheduledTimer(timeInterval:target:selector:userInfo:repeats:)`.
    ///
    /// The run loop then holds the timer and the timer holds the target: unless someone
    /// invalidates it, a repeating timer keeps its target alive for as long as the thread lives
    /// (S1). It fires only while this thread's run loop runs (S16).
    ///
    /// ```swift
    /// timer = try RunLoopTimer.scheduled(interval: 1, repeats: true, target: self) { me, _ in
    ///     me.tick()
    /// }
    /// ```
    ///
    /// Its parameters are those of ``init(interval:repeats:target:label:graph:action:)``.
    ///
    /// - Returns: The scheduled timer.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public static func scheduled<Target: AnyObject>(
        interval: TimeInterval, repeats: Bool, target: Target, label: String? = nil,
        graph: LiveGraph = .shared, action: @escaping (Target, RunLoopTimer) -> Void
    ) throws(TimerError) -> RunLoopTimer {
        try RunLoopTimer(
            interval: interval, repeats: repeats, target: target, label: label, graph: graph,
            action: action
        ).scheduleOnCurrentRunLoop()
    }

    /// Creates a timer with a **weak** target and adds it to the current thread's run loop in
    /// `.default`; it invalidates itself at the first fire after the target died.
    ///
    /// Its parameters are those of ``init(interval:repeats:weakTarget:label:graph:action:)``.
    ///
    /// - Returns: The scheduled timer.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public static func scheduled<Target: AnyObject>(
        interval: TimeInterval, repeats: Bool, weakTarget: Target, label: String? = nil,
        graph: LiveGraph = .shared, action: @escaping (Target, RunLoopTimer) -> Void
    ) throws(TimerError) -> RunLoopTimer {
        try RunLoopTimer(
            interval: interval, repeats: repeats, weakTarget: weakTarget, label: label,
            graph: graph, action: action
        ).scheduleOnCurrentRunLoop()
    }

    /// Creates a closure timer and adds it to the current thread's run loop in `.default`:
    /// `Timer.scheduledTimer(withTimeInterval:repeats:block:)`.
    ///
    /// ```swift
    /// timer = try RunLoopTimer.scheduled(interval: 1, repeats: true, capturing: self, as: .weak) {
    ///     [weak self] _ in self?.tick()
    /// }
    /// ```
    ///
    /// Its parameters are those of
    /// ``init(interval:repeats:capturing:as:captureName:label:graph:action:)``.
    ///
    /// - Returns: The scheduled timer.
    /// - Throws: ``TimerError/invalidInterval(_:)``.
    public static func scheduled(
        interval: TimeInterval, repeats: Bool, capturing captured: AnyObject? = nil,
        as kind: Ownership = .strong, label: String? = nil, graph: LiveGraph = .shared,
        action: @escaping (RunLoopTimer) -> Void
    ) throws(TimerError) -> RunLoopTimer {
        try RunLoopTimer(
            interval: interval, repeats: repeats, capturing: captured, as: kind, label: label,
            graph: graph, action: action
        ).scheduleOnCurrentRunLoop()
    }
}
