import Foundation
import RetainGraph

extension RunLoopTimer {
    /// Adds the timer to `runLoop` in `mode`, as `RunLoop.add(_:forMode:)` does for a `Timer`.
    ///
    /// A timer belongs to one run loop but may be added in several of its modes; adding it in a
    /// mode it is already in does nothing. `.common` also covers
    /// ``TrackedRunLoopModes/extraCommonModes`` (`RunLoop.Mode.tracking` by
    /// default), as `NSRunLoopCommonModes` does. The first fire is at ``fireDate``. The graph
    /// records `runloop[root] ⇒ timer`, role `.scheduled(mode:)`. Safe from any thread (adding
    /// from another thread wakes the run loop). No Foundation timer is made per timer: the
    /// run loop's shared one for that mode fires it (see the type's discussion).
    ///
    /// ```swift
    /// let timer = try RunLoopTimer(interval: 0.5, repeats: true, target: self) { me, _ in me.tick() }
    /// try timer.add(to: .current, forMode: .common)
    /// ```
    ///
    /// - Parameters:
    ///   - runLoop: The run loop; it runs the action on its thread.
    ///   - mode: The mode (`.default`, `.common` or a custom one).
    /// - Throws: ``TimerError/invalidated`` after ``invalidate()`` (an invalidated timer is never
    ///   revived); ``TimerError/scheduledOnAnotherRunLoop`` when it is already on another run loop.
    /// - Complexity: O(log *n*) for the *n* instrumented timers on that run loop and mode; no
    ///   Foundation call, except the first time a run loop and mode are used or when the timer
    ///   is due before every other one there (the shared Foundation timer is re-armed).
    public func add(to runLoop: RunLoop, forMode mode: RunLoop.Mode) throws(TimerError) {
        try state.withLock { (state) throws(TimerError) in
            guard state.phase != .invalidated else { throw .invalidated }
            let fireDate = state.fireDate
            guard
                try state.placement.place(
                    on: runLoop, mode: mode, timer: self,
                    due: fireDate.timeIntervalSinceReferenceDate)
            else { return }
            state.phase = .scheduled
            tracker?.recordScheduled(
                on: runLoopRoot(for: runLoop), rootObject: runLoop,
                role: .scheduled(mode: mode.rawValue),
                nextFireDate: fireDate.timeIntervalSince1970)
        }
    }

    /// Adds the timer to the current thread's run loop, in `.default` unless told otherwise,
    /// and returns it: what `Timer.scheduledTimer` does after making the timer.
    ///
    /// - Parameter mode: The mode; `.default` by default.
    /// - Returns: `self`.
    /// - Throws: As ``add(to:forMode:)``.
    @discardableResult
    public func scheduleOnCurrentRunLoop(forMode mode: RunLoop.Mode = .default)
        throws(TimerError) -> Self
    {
        try add(to: .current, forMode: mode)
        return self
    }

    /// Runs the action now, on the calling thread, as `NSTimer.fire()` does.
    ///
    /// A repeating timer keeps its schedule; a one-shot timer is invalidated after the action,
    /// even if its fire date has not come. Works on a timer that was never scheduled; does
    /// nothing after ``invalidate()``. A weak-target timer whose target is dead counts a fire
    /// into a dead target and invalidates itself instead of acting.
    public func fire() {
        let action = state.withLock { $0.phase == .invalidated ? nil : $0.action }
        guard let action else { return }
        deliver(action)
    }

    /// Stops the timer for good, removes it from its run loop and releases its target and
    /// action (and everything the action captured), as `NSTimer.invalidate()` does.
    ///
    /// Safe from any thread, more than once, before scheduling and from inside the action.
    /// The timer leaves its run loop's queue at once: no fire starts after this returns, and
    /// nothing of the timer stays allocated once you release it. The graph drops the run-loop,
    /// target and action edges.
    ///
    /// - Complexity: O(log *n*) per mode, for the *n* instrumented timers on that run loop and
    ///   mode.
    public func invalidate() { state.invalidate(recordingInto: tracker) }

    /// Records that `owner` holds this timer in `property` (`owner ⇒ timer`); see
    /// ``TrackedTimer/held(by:as:ownership:)``.
    public func recordHeld(by owner: AnyObject, property: String, ownership: Ownership) {
        tracker?.recordOwner(owner, property: property, ownership: ownership)
    }

    // MARK: Firing

    /// Called by the run loop's driver, on the run loop's thread, when an entry came due.
    func driverFired(_ entry: RunLoopDriverEntry, now: TimeInterval) {
        let action = state.withLock { state -> Action? in
            guard state.phase == .scheduled else { return nil }
            // Every entry of the timer moves with its fire date, so an entry that is out of
            // date (its fire date moved later after it was taken) is already queued again.
            guard state.fireDate.timeIntervalSinceReferenceDate <= now else { return nil }
            if repeats {
                // Skip missed fire points instead of shifting the schedule (S17): the next fire
                // is the first grid point after now. Set before the action so the action may
                // override.
                let next = RunLoopTiming.nextGridPoint(
                    anchor: state.fireDate, interval: interval,
                    after: Date(timeIntervalSinceReferenceDate: now))
                state.fireDate = next
                state.placement.reschedule(to: next.timeIntervalSinceReferenceDate)
            }
            return state.action
        }
        guard let action else { return }
        deliver(action)
    }

    /// Runs the action, records the fire, and ends a one-shot timer or one whose weak target
    /// died.
    private func deliver(_ action: Action) {
        let targetWasAlive = action(self)
        fires.add(1, ordering: .relaxed)
        if let tracker {
            let next = state.withLock { state in
                repeats && state.phase == .scheduled ? state.fireDate.timeIntervalSince1970 : nil
            }
            tracker.recordFire(nextFireDate: next, targetWasAlive: targetWasAlive)
        }
        if !repeats || (!targetWasAlive && stopsWhenTargetDies) { invalidate() }
    }
}
