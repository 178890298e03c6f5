import Dispatch
import Foundation
import RetainGraph
import Synchronization
import TrackedTimers

// The seeds' GCD timers, translated to Swift: `dispatch_source_t` timers (seeds 000, 002, 004),
// the `ZCGCDTimer` registry of named timers (seed 002) and MSWeakTimer (seed 004). As with the
// run-loop controllers, nothing here declares `owner ⇒ timer` or a handler's captures.

/// Way 3 of seed 000: a controller with a `dispatch_source_t` timer property, cancelled in
/// `dealloc` (S7).
public final class GCDTimerViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer, held strongly.
    var timer: DispatchTimer?
    /// How many times the handler reached the controller.
    public var ticks: Int { count.load(ordering: .relaxed) }
    private let count = Atomic<Int>(0)

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// The handler captures `self` strongly: `queue ⇒ source ⇒ handler ⇒ self ⇒ source` (S7b).
    public func startTimer() throws {
        let timer = try DispatchTimer(
            interval: 0.01, repeats: true, queue: .main, label: "gcd timer", graph: graph
        ) { _ in self.onTimerClock() }
        timer.schedule()
        self.timer = timer
    }

    /// The handler captures `[weak self]` (S7a).
    public func startTimerWithWeakSelf() throws {
        let timer = try DispatchTimer(
            interval: 0.01, repeats: true, queue: .main, label: "gcd timer", graph: graph
        ) { [weak self] _ in self?.onTimerClock() }
        timer.schedule()
        self.timer = timer
    }

    /// What the handler calls.
    public func onTimerClock() { count.add(1, ordering: .relaxed) }

    /// Cancels the source; for clean-up.
    public func stop() { timer?.invalidate() }

    deinit { timer?.invalidate() }
}

/// Seed 002's `ZCGCDTimer` user: a screen that polls through a registry of named GCD timers
/// (S18). The registry, not the screen, holds the timer.
public final class RegistryPollingViewController: @unchecked Sendable {
    /// The name the polling task is registered under.
    public static let taskName = "refresh"
    /// How many times the task ran.
    public var polls: Int { count.load(ordering: .relaxed) }
    private let count = Atomic<Int>(0)

    /// Creates a controller.
    public init() {}

    /// Registers a repeating task on the main queue whose closure captures `self` strongly.
    public func startPolling(in registry: TimerRegistry) throws {
        try registry.schedule(
            named: Self.taskName, interval: 0.01, repeats: true, queue: .main
        ) { self.refresh() }
    }

    /// One poll.
    public func refresh() { count.add(1, ordering: .relaxed) }
}

/// Seed 004 (MSWeakTimer): a timer that does not retain its target and runs on a private
/// serial queue (S20).
public final class WeakTimerClient: @unchecked Sendable {
    /// The queue the timer fires on.
    public static let queue = DispatchQueue(label: "seed.S20.queue")
    /// The timer, held strongly: `queue ⇒ timer → self ⇒ timer`.
    var timer: DispatchTimer?
    /// How many fires reached the client.
    public var ticks: Int { count.load(ordering: .relaxed) }
    private let count = Atomic<Int>(0)

    /// Creates a client.
    public init() {}

    /// `[MSWeakTimer scheduledTimerWithTimeInterval:target:selector:userInfo:repeats:
    /// dispatchQueue:]`.
    public func startTimer(graph: LiveGraph) throws {
        let timer = try DispatchTimer(
            interval: 0.01, repeats: true, queue: Self.queue, label: "MSWeakTimer",
            weakTarget: self, graph: graph
        ) { client, _ in client.onTimerClock() }
        timer.schedule()
        self.timer = timer
    }

    /// The "selector".
    public func onTimerClock() { count.add(1, ordering: .relaxed) }

    deinit { timer?.invalidate() }
}
