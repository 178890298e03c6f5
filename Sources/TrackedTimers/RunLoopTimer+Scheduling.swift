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
    /// from another thread wakes the run loop).
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
    public func add(to runLoop: RunLoop, forMode mode: RunLoop.Mode) throws(TimerError) {
        let decision = try state.withLock {
            (state) throws(TimerError) -> RunLoopPlacement.Decision in
            guard state.phase != .invalidated else { throw .invalidated }
            let fireDate = state.fireDate
            // The closure runs inside `state.placement`'s mutating access: it must not touch
            // `state` itself (overlapping access traps at run time).
            let decision = try state.placement.place(on: runLoop, mode: mode) {
                RunLoopTrampoline(
                    state: self.state, fireDate: fireDate, interval: interval, repeats: repeats)
            }
            if case .add(_, let isFirst) = decision {
                if isFirst { state.handler = self }
                state.phase = .scheduled
                tracker?.recordScheduled(
                    on: runLoopRoot(for: runLoop), rootObject: runLoop,
                    role: .scheduled(mode: mode.rawValue),
                    nextFireDate: fireDate.timeIntervalSince1970)
            }
            return decision
        }
        // Outside the lock. Should an `invalidate()` have slipped in meanwhile, Foundation
        // ignores adding an invalidated timer.
        guard case .add(let timer, _) = decision else { return }
        RunLoopPlacement.add(timer, to: runLoop, forMode: mode)
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
    /// The Foundation timer is invalidated too (`Timer.invalidate()` from another thread stops
    /// further fires on Linux); it and the emptied state box it holds stay allocated (see the
    /// type's discussion). The graph drops the run-loop, target and action edges.
    public func invalidate() {
        var action: Action?
        var timer: Timer?
        var handler: RunLoopTimer?
        let invalidates = state.withLock { state in
            guard state.phase != .invalidated else { return false }
            if let timer = state.placement.foundationTimer, state.phase == .scheduled {
                state.fireDate = timer.fireDate
            }
            state.phase = .invalidated
            tracker?.recordInvalidated()
            action = state.action.take()
            timer = state.placement.clear()
            handler = state.handler.take()
            return true
        }
        guard invalidates else { return }
        timer?.invalidate()
        // Dropping the state's strong reference may release `self`'s last owner; the caller
        // keeps `self` alive until this method returns. User captures die here, lock-free.
        withExtendedLifetime((action, handler)) {}
    }

    /// Records that `owner` holds this timer in `property` (`owner ⇒ timer`).
    ///
    /// - Parameters:
    ///   - owner: The object storing the timer.
    ///   - property: The stored property's name.
    ///   - kind: How the property holds the timer.
    public func recordHeld(by owner: AnyObject, property: String, kind: ReferenceKind) {
        tracker?.recordOwner(owner, property: property, kind: kind)
    }

    // MARK: Firing

    /// Called by the trampoline on the run loop's thread.
    func trampolineFired(_ foundationTimer: Timer) {
        let action = state.withLock { $0.phase == .scheduled ? $0.action : nil }
        guard let action else { return }
        if repeats {
            // Skip missed fire points instead of shifting the schedule (S17): the next fire is
            // the first grid point after now. Set before the action so the action may override.
            let next = RunLoopTiming.nextGridPoint(
                anchor: foundationTimer.fireDate, interval: interval, after: Date())
            foundationTimer.fireDate = next
            state.withLock { $0.fireDate = next }
        }
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
