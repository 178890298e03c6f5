import Foundation
import RetainGraph
import TrackedTimers

// The seeds' view controllers, translated to Swift. Each keeps its timer in a stored property
// named `timer` and invalidates it in `deinit`, exactly as the Objective-C originals do in
// `dealloc`; none of them declares that property or its closures' captures to the graph.
// They are confined to the thread that runs the scenario, like a UIViewController to the main
// thread, hence `@unchecked Sendable`.

/// Seeds 000–003: a clock screen whose repeating timer targets the controller itself.
///
/// ```swift
/// let clock = ClockViewController(graph: graph)
/// try clock.startTimer()          // runloop ⇒ timer ⇒ clock ⇒ timer (S1)
/// ```
public final class ClockViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer, held strongly (`@property (nonatomic, strong) NSTimer *timer`).
    var timer: RunLoopTimer?
    /// How many times the timer called ``onTimerClock()``.
    public private(set) var ticks = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// `[NSTimer scheduledTimerWithTimeInterval:0.01 target:self selector:@selector(onTimerClock)
    /// userInfo:nil repeats:YES]`: the timer holds `self` strongly (S1, S5).
    public func startTimer() throws {
        timer = try RunLoopTimer.scheduled(
            interval: 0.01, repeats: true, target: self, label: "clock", graph: graph
        ) { controller, _ in controller.onTimerClock() }
    }

    /// Plan 1.1 of seed 003: pass a weak local copy of `self` as the target. The timer still
    /// stores a strong reference to it (S3).
    public func startTimerWithWeakSelf() throws {
        weak let weakSelf = self
        guard let target = weakSelf else { return }
        timer = try RunLoopTimer.scheduled(
            interval: 0.01, repeats: true, target: target, label: "clock", graph: graph
        ) { controller, _ in controller.onTimerClock() }
    }

    /// Seed 001: a one-shot timer (`repeats:NO`) that fires once after `delay` (S2).
    public func startOneShotTimer(after delay: TimeInterval) throws {
        timer = try RunLoopTimer.scheduled(
            interval: delay, repeats: false, target: self, label: "one-shot", graph: graph
        ) { controller, _ in controller.onTimerClock() }
    }

    /// Way 1 of seed 000 / plan 2 of seed 003: invalidate when the screen goes away (S5a).
    public func viewWillDisappear() {
        timer?.invalidate()
        timer = nil
    }

    /// The "selector".
    public func onTimerClock() { ticks += 1 }

    /// Stops the timer; for clean-up after a scenario that leaked on purpose.
    public func stop() { timer?.invalidate() }

    deinit { timer?.invalidate() }
}

/// Plan 1.2 of seed 003: the `timer` property is `weak`; the run loop still holds the timer and
/// the timer holds the controller (S4: a leak without any cycle).
public final class WeakTimerViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer, held weakly (`@property (nonatomic, weak) NSTimer *timer`).
    weak var timer: RunLoopTimer?
    /// How many times the timer fired.
    public private(set) var ticks = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// Schedules a repeating timer with `self` as its strong target.
    public func startTimer() throws {
        timer = try RunLoopTimer.scheduled(
            interval: 0.01, repeats: true, target: self, label: "clock", graph: graph
        ) { controller, _ in controller.onTimerClock() }
    }

    /// The "selector".
    public func onTimerClock() { ticks += 1 }

    /// Stops the timer; for clean-up.
    public func stop() { timer?.invalidate() }

    deinit { timer?.invalidate() }
}

/// Ways 2 of seed 000 and seed 002: a block-based timer (`scheduledTimerWithTimeInterval:
/// repeats:block:`) whose block captures the controller, strongly or `[weak self]` (S6).
public final class BlockClockViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer, held strongly.
    var timer: RunLoopTimer?
    /// How many times the block ran.
    public private(set) var ticks = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// The block captures `self` strongly: `runloop ⇒ timer ⇒ closure ⇒ self ⇒ timer` (S6b).
    public func startTimer() throws {
        timer = try RunLoopTimer.scheduled(
            interval: 0.01, repeats: true, label: "block clock", graph: graph
        ) { _ in self.onTimerClock() }
    }

    /// The block captures `[weak self]` (S6a).
    public func startTimerWithWeakSelf() throws {
        timer = try RunLoopTimer.scheduled(
            interval: 0.01, repeats: true, label: "block clock", graph: graph
        ) { [weak self] _ in self?.onTimerClock() }
    }

    /// What the block calls.
    public func onTimerClock() { ticks += 1 }

    /// Stops the timer; for clean-up.
    public func stop() { timer?.invalidate() }

    deinit { timer?.invalidate() }
}

/// Seed 001: `[[NSTimer alloc] initWithTimeInterval:…]` without `addTimer:forMode:`. The timer
/// never fires, yet holds its target (S14).
public final class UnscheduledViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer, held strongly and never added to a run loop.
    var timer: RunLoopTimer?

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// Creates the timer and forgets to add it to a run loop.
    public func prepareTimer() throws {
        timer = try RunLoopTimer(
            interval: 0.01, repeats: true, target: self, label: "never added", graph: graph
        ) { controller, _ in controller.onTimerClock() }
    }

    /// The "selector", never called.
    public func onTimerClock() {}

    /// Invalidates the timer; for clean-up.
    public func stop() { timer?.invalidate() }

    deinit { timer?.invalidate() }
}

/// Seed 001: polling on a background thread's run loop (S16). `startPolling()` must be called
/// on that thread: it schedules on the current run loop, which nobody runs.
public final class PollingViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The polling timer, held strongly; `invalidate()` works from any thread.
    var timer: RunLoopTimer?
    /// How many polls ran (none: the thread's run loop never runs).
    public private(set) var polls = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// Schedules the polling timer on the current thread's run loop, target `self`.
    public func startPolling() throws {
        timer = try RunLoopTimer.scheduled(
            interval: 0.01, repeats: true, target: self, label: "poll", graph: graph
        ) { controller, _ in controller.doPolling() }
    }

    /// One poll.
    public func doPolling() { polls += 1 }

    /// Invalidates the timer (from any thread); for clean-up.
    public func stopPolling() { timer?.invalidate() }

    deinit { timer?.invalidate() }
}
