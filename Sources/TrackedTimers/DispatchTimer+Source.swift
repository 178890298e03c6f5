import Dispatch
import Foundation
import Locking
import RetainGraph

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The dispatch source state machine behind ``DispatchTimer``.
///
/// ```
///            schedule()                    invalidate() / deinit
///   idle ───────────────▶ scheduled ─────────────────────────────▶ invalidated
///     │                   │  ▲  isPaused = true: suspend (once)          ▲
///     │                   ▼  │  isPaused = false: resume (balanced)      │
///     └──────────────── invalidate() ────────────────────────────────────┘
/// ```
///
/// The source exists only once it has been activated (created, configured and activated in
/// one locked step), so a never-activated source is never released. `isSuspended` mirrors
/// libdispatch's suspend count (0 or 1); ``invalidate()`` resumes a suspended source before
/// cancelling it, so a suspended source is never released either.
extension DispatchTimer {
    /// The lock-protected state of one timer.
    struct State {
        var phase = TimerPhase.idle
        /// The activated source, or `nil` before the timer first runs and after invalidation.
        ///
        /// Held as the class libdispatch's overlay makes, not as the `any DispatchSourceTimer`
        /// it is returned as: that existential is opaque (copied, moved and destroyed through
        /// value witnesses, which made this state address-only); a class reference is one word.
        var source: DispatchSource?
        /// Whether `source` is suspended (by a pause).
        var isSuspended = false
        /// Whether the user paused the timer.
        var isPaused = false
        /// The sanitised leeway, in seconds.
        var tolerance: TimeInterval
        /// The action; `nil` once invalidated.
        var action: Action?

        /// Moves to `.invalidated`: resumes a suspended source, cancels it, and hands back the
        /// source and the action (with what it captures) for release outside the lock.
        /// Idempotent.
        mutating func invalidate() -> (source: DispatchSource?, action: Action?) {
            phase = .invalidated
            let source = self.source.take()
            if let source {
                if isSuspended {
                    source.resume()
                    isSuspended = false
                }
                source.cancel()
            }
            return (source, action.take())
        }
    }

    /// Creates, configures and activates the source. Call with the state lock held.
    ///
    /// The handler holds the timer weakly, so the source never keeps it alive.
    func makeSource(tolerance: TimeInterval) -> DispatchSource {
        // swift-corelibs-libdispatch makes every source a `DispatchSource` and returns the timer
        // one as `any DispatchSourceTimer`.
        let source = DispatchSource.makeTimerSource(queue: queue) as! DispatchSource
        source.setEventHandler { [weak self] in self?.performFire(fromSource: true) }
        source.schedule(
            deadline: .now() + Self.dispatchInterval(firstDelay),
            repeating: repeats ? Self.dispatchInterval(interval, atLeastOne: true) : .never,
            leeway: Self.dispatchInterval(tolerance))
        source.activate()
        return source
    }

    /// Records `queue[root] ⇒ timer` (`.resumed`), the next fire `delay` seconds away. Call
    /// with the state lock held, so edges are recorded in the order the transitions happen.
    func recordResumed(nextFireIn delay: TimeInterval) {
        // Optional chaining, not `guard let`: the binding would retain the tracker.
        tracker?.recordScheduled(
            on: .dispatchQueue(label: queue.label), rootObject: queue, role: .resumed,
            nextFireDate: Self.secondsSince1970() + delay)
    }

    /// Runs one fire, from the source or from ``fire()``: calls the action outside the lock,
    /// records the fire, and invalidates a one-shot timer or one whose weak target died. A
    /// paused timer skips a fire `fromSource`, even one libdispatch queued before the pause.
    func performFire(fromSource: Bool) {
        let action = state.withLock { state -> Action? in
            guard state.phase != .invalidated, !(fromSource && state.isPaused) else { return nil }
            return state.action
        }
        guard let action else { return }
        let targetWasAlive = action(self)
        let stops = !repeats || (!targetWasAlive && stopsWhenTargetDies)
        if let tracker {
            state.withLock { state in
                let running = state.phase == .scheduled && !state.isPaused && !stops
                tracker.recordFire(
                    nextFireDate: running ? Self.secondsSince1970() + interval : nil,
                    targetWasAlive: targetWasAlive)
            }
        }
        if stops { invalidate() }
    }

    /// The wall clock in seconds since 1970, for the graph's next-fire dates: `clock_gettime`
    /// read directly, which costs a third of `Date().timeIntervalSince1970` (the dispatch
    /// timer records one on every schedule and fire, and needs no `Date` otherwise).
    static func secondsSince1970() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    // MARK: Input

    /// The longest interval handed to libdispatch, in nanoseconds (about 146 years); longer
    /// ones are clamped, so huge finite intervals never overflow.
    static let maximumNanoseconds = Int(Int64.max / 2)

    /// A tolerance libdispatch accepts: NaN and negative values become 0.
    static func sanitizedTolerance(_ tolerance: TimeInterval) -> TimeInterval {
        tolerance.isNaN || tolerance < 0 ? 0 : tolerance
    }

    /// Converts validated, non-negative seconds (infinity clamped) to a nanosecond interval that
    /// never traps; `atLeastOne` rounds values below 1 ns up (for repeating intervals).
    static func dispatchInterval(_ seconds: TimeInterval, atLeastOne: Bool = false)
        -> DispatchTimeInterval
    {
        let floor = atLeastOne ? 1 : 0
        guard !seconds.isNaN, seconds > 0 else { return .nanoseconds(floor) }
        let nanoseconds = seconds * 1e9
        guard nanoseconds < Double(maximumNanoseconds) else {
            return .nanoseconds(maximumNanoseconds)
        }
        return .nanoseconds(max(floor, Int(nanoseconds)))
    }
}
