import Dispatch
import Foundation
import Locking
import RetainGraph

/// A timer on a `DispatchSourceTimer` with the semantics of MSWeakTimer: it fires on a queue of
/// your choice, can be scheduled, fired and invalidated from any thread, and can call a target it
/// does not retain.
///
/// Three ways to give the action (see the initialisers in `DispatchTimer+Initializers.swift`):
/// - a **weak target** and an action: the timer does not retain the target; the first fire that
///   finds it dead invalidates the timer (S20, `TimerInfo.stopsWhenTargetDies`);
/// - a **strong target** and an action: the timer retains the target until it is invalidated;
/// - a **closure**, optionally declaring what it captures (`capturing: self, as: .weak`), which
///   is recorded as `timer ⇒ closure ⇒/→ owner` (S7a/S7b).
///
/// ```swift
/// final class Poller {
///     private var timer: DispatchTimer?
///     func start() throws {
///         timer = try DispatchTimer(interval: 5, repeats: true, queue: .global(),
///                                   weakTarget: self) { poller, _ in poller.poll() }
///         timer?.schedule()
///     }
///     func poll() {}
///     deinit { timer?.invalidate() }
/// }
/// ```
///
/// ## Lifetime
/// Like MSWeakTimer, the timer lives as long as you hold it: the dispatch source's handler
/// holds the timer weakly, and dropping the last reference invalidates it. While the timer is
/// scheduled and not paused the graph records `queue[root] ⇒ timer` (role `.resumed`), the
/// edge libdispatch's armed source stands for.
///
/// ## Safety against libdispatch traps
/// libdispatch kills the process (SIGILL) when a never-activated or a suspended source is
/// released, or when a source is resumed twice. No sequence of public calls reaches those
/// states: the source is created and activated in one locked step only when the timer first
/// runs, suspended at most once per pause, and resumed before it is cancelled; every
/// transition happens under one lock, and calling anything twice, out of order, or after
/// ``invalidate()`` is a harmless no-op.
///
/// ## What `invalidate()` guarantees
/// After ``invalidate()`` returns, no fire that *starts* later calls the action, and the action
/// and target are released as soon as no fire is running. A fire that had already started on
/// the queue (on another thread) may still finish: `invalidate()` never waits for it, so it can
/// be called from inside the action or from the timer's own queue without deadlocking.
public final class DispatchTimer: TrackedTimer, @unchecked Sendable {
    /// The action a fire runs.
    typealias Action = TimerAction<DispatchTimer>

    /// The interval between fires (or the delay before the single fire), in seconds.
    public let interval: TimeInterval
    /// Whether the timer fires repeatedly until invalidated.
    public let repeats: Bool
    /// The queue the action runs on.
    public let queue: DispatchQueue
    /// Whether a fire that finds the target dead invalidates the timer (weak-target timers).
    public let stopsWhenTargetDies: Bool
    /// Seconds from ``schedule()`` (or unpausing before the first run) to the first fire:
    /// ``interval`` unless a start delay was given (``TimerRegistry`` gives one).
    let firstDelay: TimeInterval

    let state: Locked<State>
    /// The graph recorder; `nil` when the graph was disabled at creation (then nothing is
    /// recorded and nothing extra is paid).
    let tracker: TimerTracker?

    /// The designated initialiser every public one funnels into (label and graph borrowed: see
    /// the tracker's initialiser).
    init(
        interval: TimeInterval, tolerance: TimeInterval, repeats: Bool, queue: DispatchQueue,
        label: borrowing String?, graph: borrowing LiveGraph, startDelay: TimeInterval? = nil,
        binding: TimerBinding<DispatchTimer>
    ) throws {
        try RunLoopTiming.validate(interval: interval, repeats: repeats)
        if let startDelay, !startDelay.isFinite || startDelay < 0 {
            throw TimerError.invalidStart(startDelay)
        }
        self.firstDelay = startDelay ?? interval
        self.interval = interval
        self.repeats = repeats
        self.queue = queue
        self.stopsWhenTargetDies = binding.stopsWhenTargetDies
        state = Locked(State(tolerance: Self.sanitizedTolerance(tolerance), action: binding.action))
        tracker = TimerTracker(
            kind: .timer, label: label,
            timer: TimerInfo(
                repeats: repeats, interval: interval,
                stopsWhenTargetDies: stopsWhenTargetDies),
            graph: graph, traceSkipping: 2)
        tracker?.attach(identifier: ObjectIdentifier(self), type: DispatchTimer.self)
        binding.record(into: tracker)
    }

    deinit {
        // The source's handler holds `self` weakly, so it cannot fire into a dead timer; tear
        // the source down safely (resume if suspended, then cancel).
        let leftovers = state.withLock { state in state.invalidate() }
        // The tracker goes with the timer, and its node (edges included) with the tracker.
        tracker?.retire()
        withExtendedLifetime(leftovers) {}
    }

    // MARK: State

    /// Whether the timer can still fire: it was neither invalidated nor stopped by itself.
    public var isValid: Bool { state.withLock { $0.phase != .invalidated } }

    /// Whether ``schedule()`` was called and the timer was not invalidated since.
    public var isScheduled: Bool { state.withLock { $0.phase == .scheduled } }

    /// How late the system may fire the timer, in seconds; the source's leeway.
    ///
    /// Setting it on a scheduled timer restarts its schedule from now (as MSWeakTimer does).
    /// A negative or NaN tolerance counts as 0; an infinite one as the longest leeway
    /// libdispatch takes.
    public var tolerance: TimeInterval {
        get { state.withLock { $0.tolerance } }
        set {
            let tolerance = Self.sanitizedTolerance(newValue)
            state.withLock { state in
                state.tolerance = tolerance
                if let source = state.source {
                    source.schedule(
                        deadline: .now() + Self.dispatchInterval(interval),
                        repeating: repeats
                            ? Self.dispatchInterval(interval, atLeastOne: true) : .never,
                        leeway: Self.dispatchInterval(tolerance))
                }
            }
        }
    }

    /// Whether the timer is paused: a paused timer keeps its action but does not fire, and the
    /// graph drops its `queue ⇒ timer` edge until it is unpaused.
    ///
    /// Pausing suspends the dispatch source (once, however often you set `true`); unpausing
    /// resumes it, and a fire that fell due meanwhile happens at once. Pausing before
    /// ``schedule()`` makes the timer start paused. Ignored once the timer is invalidated.
    public var isPaused: Bool {
        get { state.withLock { $0.isPaused } }
        set {
            state.withLock { state in
                guard state.phase != .invalidated, state.isPaused != newValue else { return }
                state.isPaused = newValue
                if newValue {
                    if let source = state.source, !state.isSuspended {
                        source.suspend()
                        state.isSuspended = true
                    }
                    tracker?.recordUnscheduled()
                } else if state.phase == .scheduled {
                    var delay = interval
                    if state.source == nil {
                        state.source = makeSource(tolerance: state.tolerance)
                        delay = firstDelay
                    } else if state.isSuspended, let source = state.source {
                        source.resume()
                        state.isSuspended = false
                    }
                    recordResumed(nextFireIn: delay)
                }
            }
        }
    }

    // MARK: Control

    /// Starts the timer: the first fire comes ``interval`` seconds from now on ``queue``.
    ///
    /// Safe from any thread. Scheduling a timer that is already scheduled, or one that was
    /// invalidated, does nothing (an invalidated timer is never revived).
    ///
    /// - Returns: Whether this call started the timer.
    @discardableResult
    public func schedule() -> Bool {
        state.withLock { state in
            guard state.phase == .idle else { return false }
            state.phase = .scheduled
            guard !state.isPaused else { return true }
            state.source = makeSource(tolerance: state.tolerance)
            recordResumed(nextFireIn: firstDelay)
            return true
        }
    }

    /// Runs the action now, on the calling thread, as MSWeakTimer's `fire` does.
    ///
    /// Does nothing on an invalidated timer. A one-shot timer is invalidated after the action
    /// returns; a weak-target timer whose target is dead is invalidated instead of acting.
    /// The action may run concurrently with a scheduled fire on ``queue``.
    public func fire() {
        performFire(fromSource: false)
    }

    /// Stops the timer for good, from any thread, and releases its action and target.
    ///
    /// Safe to call more than once, before ``schedule()``, from inside the action, and on a
    /// paused timer (the suspended source is resumed before it is cancelled). See the type's
    /// discussion for what it guarantees about a fire running on another thread.
    public func invalidate() {
        let leftovers = state.withLock { state -> (DispatchSource?, Action?)? in
            guard state.phase != .invalidated else { return nil }
            let leftovers = state.invalidate()
            tracker?.recordInvalidated()
            return leftovers
        }
        // The action (and whatever it captures) and the source die here, outside the lock.
        withExtendedLifetime(leftovers) {}
    }

    /// Records that `owner` holds this timer in `property` (`owner ⇒ timer`); see
    /// ``TrackedTimer/held(by:as:ownership:)``.
    public func recordHeld(by owner: AnyObject, property: String, ownership: Ownership) {
        tracker?.recordOwner(owner, property: property, ownership: ownership)
    }

    /// The timer's node in the graph it records into, or `nil` when tracking was off at
    /// creation.
    public var graphID: ObjectID? { tracker?.id }
}
