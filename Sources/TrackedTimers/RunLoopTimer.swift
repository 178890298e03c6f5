import Foundation
import Locking
import RetainGraph
import Synchronization

/// An `NSTimer` for Linux: a run-loop timer with a target and action (held strongly, as
/// `NSTimer` does, or weakly) or a closure, that records who holds whom into a ``/RetainGraph/LiveGraph``.
///
/// It runs on Foundation's `Timer` and `RunLoop`, with the behaviour of Apple's `NSTimer`:
/// ``scheduled(interval:repeats:target:label:graph:action:)`` adds it to the current run loop in
/// `.default`; a timer made with an initialiser fires only after ``add(to:forMode:)``, yet holds
/// its target from the start (S14). It fires only while that run loop runs in one of its modes
/// (S15, S16). A repeating timer whose fire points were missed fires once and goes back to its
/// original grid (`fireDate + k × interval`): missed points are skipped, not shifted (S17).
///
/// ```swift
/// final class Clock {
///     var timer: RunLoopTimer?
///     func start() throws {
///         timer = try RunLoopTimer.scheduled(interval: 1, repeats: true, weakTarget: self) {
///             clock, _ in clock.tick()
///         }.held(by: self, as: "timer")
///     }
///     func tick() {}
///     deinit { timer?.invalidate() }
/// }
/// ```
///
/// ## Ownership
/// While scheduled, the run loop holds the timer (the graph records `runloop[root] ⇒ timer`,
/// role `.scheduled(mode:)`, one edge per mode); the timer holds its target (`.target`) or its
/// action closure (`.actionClosure`, with the declared capture). ``invalidate()`` drops all of
/// it, and the timer then lives only as long as you hold it.
///
/// ## No Foundation timer per timer
/// swift-corelibs-foundation never frees a `Timer` (its initialiser retains it for the CF
/// context, which has no release callback) nor the block it was given: a `Timer` per timer
/// would leak a few hundred bytes per timer, forever. So this timer makes none. Every
/// instrumented timer of one run loop and mode is fired by one shared Foundation timer, made
/// the first time that run loop and mode are used and never invalidated, whose fire date is
/// moved to the earliest due time of the timers it drives (parked at `.distantFuture` when
/// there is none). A timer's whole memory goes when it is invalidated and released; what stays
/// is one Foundation timer (a few hundred bytes) per run loop and mode that ever ran an
/// instrumented timer.
///
/// Two consequences of the shared timer: a run loop mode that ran an instrumented timer is
/// never empty again, so `RunLoop.run()` without a deadline does not return after the last
/// timer is invalidated (run with a deadline, `run(mode:before:)`, as on Linux you must
/// anyway); and a run loop run again from inside a timer's action (a nested run in the same
/// mode) fires that mode's other instrumented timers only after the action returns.
///
/// ## Threads
/// Every method may be called from any thread. The action runs on the thread of the run loop
/// the timer was added to (or on the caller's thread for ``fire()``). After ``invalidate()``
/// returns no fire *starts*; a fire already running on the run loop's thread may finish.
public final class RunLoopTimer: TrackedTimer, RunLoopDriven, @unchecked Sendable {
    /// A fire's work.
    typealias Action = TimerAction<RunLoopTimer>

    /// The interval between fires (or, for a one-shot timer, the delay before the fire).
    public let interval: TimeInterval
    /// Whether the timer fires until invalidated.
    public let repeats: Bool
    /// Whether a fire that finds the target dead invalidates the timer (weak-target timers).
    public let stopsWhenTargetDies: Bool

    /// The timer's state and lock, in one box.
    let state: Locked<State>
    let fires = Atomic<Int>(0)
    /// The graph recorder; `nil` when the graph was disabled at creation. A `let`: reading it
    /// needs no retain.
    let tracker: TimerTracker?

    /// The lock-guarded state.
    struct State: RunLoopTimerState {
        var phase = TimerPhase.idle
        var action: Action?
        var fireDate: Date
        var tolerance: TimeInterval = 0
        var placement = RunLoopPlacement()
    }

    /// The designated initialiser every public one funnels into (label and graph borrowed: see
    /// the tracker's initialiser).
    init(
        interval: TimeInterval, repeats: Bool, label: borrowing String?,
        graph: borrowing LiveGraph, binding: TimerBinding<RunLoopTimer>
    ) throws(TimerError) {
        try RunLoopTiming.validate(interval: interval, repeats: repeats)
        self.interval = interval
        self.repeats = repeats
        self.stopsWhenTargetDies = binding.stopsWhenTargetDies
        state = Locked(
            State(action: binding.action, fireDate: Date(timeIntervalSinceNow: interval)))
        tracker = TimerTracker(
            kind: .timer, label: label,
            timer: TimerInfo(
                repeats: repeats, interval: interval,
                stopsWhenTargetDies: stopsWhenTargetDies),
            graph: graph, traceSkipping: 3)
        tracker?.attach(identifier: ObjectIdentifier(self), type: RunLoopTimer.self)
        binding.record(into: tracker)
    }

    // MARK: State

    /// Whether the timer can still fire: it was neither invalidated nor stopped by itself.
    public var isValid: Bool { state.withLock { $0.phase != .invalidated } }

    /// Whether the timer is in a run loop (and not invalidated).
    public var isScheduled: Bool { state.withLock { $0.phase == .scheduled } }

    /// How many times the action ran (scheduled fires and ``fire()``), target alive or not.
    public var fireCount: Int { fires.load(ordering: .relaxed) }

    /// The timer's node in the graph it records into, or `nil` when tracking was off.
    public var graphID: ObjectID? { tracker?.id }

    /// The date at which the timer fires next.
    ///
    /// Setting it reschedules the timer (and re-anchors the grid of a repeating timer, as on
    /// Apple platforms). Before scheduling it is creation time + ``interval``. After
    /// invalidation it keeps the last value and setting it does nothing. A NaN or +∞ date is
    /// stored as `Date.distantFuture` (the timer then waits), −∞ as `Date.distantPast` (it is
    /// due at once).
    ///
    /// - Complexity: O(log *n*) per mode the timer is in, for the *n* instrumented timers
    ///   scheduled on that run loop and mode.
    public var fireDate: Date {
        get { state.withLock { $0.fireDate } }
        set {
            let newValue = RunLoopTiming.sanitized(date: newValue)
            state.withLock { state in
                guard state.phase != .invalidated else { return }
                state.fireDate = newValue
                state.placement.reschedule(to: newValue.timeIntervalSinceReferenceDate)
                tracker?.recordNextFireDate(newValue.timeIntervalSince1970)
            }
        }
    }

    /// How late the timer may fire, in seconds (default 0).
    ///
    /// swift-corelibs-foundation ignores `Timer.tolerance` (its setter does nothing). This
    /// timer stores the value and reports it, and never delays a fire to use it: a fire at the
    /// fire date is within any tolerance, so the contract holds trivially. NaN, negative and
    /// infinite values are stored as 0.
    public var tolerance: TimeInterval {
        get { state.withLock { $0.tolerance } }
        set {
            let value = RunLoopTiming.sanitized(tolerance: newValue)
            state.withLock { $0.tolerance = value }
        }
    }

    deinit {
        // A scheduled timer cannot die (its driver entries hold it) until invalidated, which
        // takes it out of its drivers; what is left is to let the tracker go with the timer.
        tracker?.retire()
    }
}
