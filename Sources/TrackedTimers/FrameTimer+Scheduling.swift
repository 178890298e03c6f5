import Foundation
import RetainGraph

extension FrameTimer {
    /// Adds the frame timer to `runLoop` in `mode`, as `CADisplayLink.add(to:forMode:)`.
    ///
    /// The first scheduling reads the clock for the origin of the refresh grid; the first frame
    /// comes one ``frameInterval`` later. Adding in a mode it is already in does nothing;
    /// `.common` covers ``TrackedRunLoopModes/extraCommonModes`` too. The graph records
    /// `runloop[root] ⇒ timer`, role `.scheduled(mode:)`. Safe from any thread.
    ///
    /// - Parameters:
    ///   - runLoop: The run loop whose thread runs the action.
    ///   - mode: The mode.
    /// - Throws: ``TimerError/invalidated`` after ``invalidate()``;
    ///   ``TimerError/scheduledOnAnotherRunLoop`` when already on another run loop.
    public func add(to runLoop: RunLoop, forMode mode: RunLoop.Mode) throws(TimerError) {
        let needsOrigin = state.withLock { $0.origin == nil }
        let reading = needsOrigin ? clock.now() : nil  // the clock is user code: lock-free
        try state.withLock { (state) throws(TimerError) in
            guard state.phase != .invalidated else { throw .invalidated }
            let refresh = duration
            if !state.placement.isPlaced {
                state.refreshDate =
                    state.isPaused ? .distantFuture : Date(timeIntervalSinceNow: refresh)
            }
            guard
                try state.placement.place(
                    on: runLoop, mode: mode, timer: self,
                    due: state.refreshDate.timeIntervalSinceReferenceDate)
            else { return }
            if state.origin == nil, let reading {
                state.origin = reading
                state.targetTimestamp = reading + Double(state.frameInterval) * refresh
            }
            state.phase = .scheduled
            tracker?.recordScheduled(
                on: runLoopRoot(for: runLoop), rootObject: runLoop,
                role: .scheduled(mode: mode.rawValue),
                nextFireDate: state.isPaused ? nil : state.refreshDate.timeIntervalSince1970)
        }
    }

    /// Whether frames are suspended, as `CADisplayLink.isPaused`.
    ///
    /// A paused timer stays in its run loop and keeps its target (the graph keeps
    /// `runloop ⇒ timer`, with no next fire date); unpausing resumes at the next refresh.
    /// Ignored after ``invalidate()``.
    public var isPaused: Bool {
        get { state.withLock { $0.isPaused } }
        set {
            state.withLock { state in
                guard state.phase != .invalidated, state.isPaused != newValue else { return }
                state.isPaused = newValue
                guard state.placement.isPlaced else { return }
                let next = newValue ? Date.distantFuture : Date(timeIntervalSinceNow: duration)
                state.refreshDate = next
                state.placement.reschedule(to: next.timeIntervalSinceReferenceDate)
                tracker?.recordNextFireDate(newValue ? nil : next.timeIntervalSince1970)
            }
        }
    }

    /// Stops the frame timer for good, removes it from its run loop and releases its target
    /// and action, as `CADisplayLink.invalidate()`.
    ///
    /// Safe from any thread, more than once, before scheduling and from inside the action.
    public func invalidate() { state.invalidate(recordingInto: tracker) }

    /// Records that `owner` holds this timer in `property` (`owner ⇒ timer`); see
    /// ``TrackedTimer/held(by:as:ownership:)``.
    public func recordHeld(by owner: AnyObject, property: String, ownership: Ownership) {
        tracker?.recordOwner(owner, property: property, ownership: ownership)
    }

    // MARK: Refreshes

    /// Called by the run loop's driver at each refresh, on the run loop's thread.
    func driverFired(_ entry: RunLoopDriverEntry, now: TimeInterval) {
        let reading = clock.now()  // user code: lock-free
        let (action, next) = state.withLock { state -> (Action?, Date?) in
            guard state.phase == .scheduled, let origin = state.origin,
                state.refreshDate.timeIntervalSinceReferenceDate <= now
            else {
                // Invalidated, or an out-of-date entry (the refresh date moved later after the
                // entry was taken, which queued it again).
                return (nil, nil)
            }
            // Keep the refresh grid (missed refreshes are skipped), or park while paused.
            state.refreshDate =
                state.isPaused
                ? .distantFuture
                : RunLoopTiming.nextGridPoint(
                    anchor: state.refreshDate, interval: duration,
                    after: Date(timeIntervalSinceReferenceDate: now))
            state.placement.reschedule(to: state.refreshDate.timeIntervalSinceReferenceDate)
            guard !state.isPaused else { return (nil, nil) }
            let elapsed = ((reading - origin) * refreshRate + 1e-6).rounded(.down)
            var refresh = elapsed.isFinite ? Int(max(0, min(elapsed, 1e15))) : state.lastRefresh
            refresh = max(refresh, state.lastRefresh + 1)  // each fire is a new refresh
            state.lastRefresh = refresh
            guard refresh >= state.lastFrame + state.frameInterval else { return (nil, nil) }
            state.lastFrame = refresh
            state.timestamp = origin + Double(refresh) * duration
            state.targetTimestamp = state.timestamp + Double(state.frameInterval) * duration
            return (state.action, state.refreshDate)
        }
        guard let action, let next else { return }
        let targetWasAlive = action(self)
        frames.add(1, ordering: .relaxed)
        tracker?.recordFire(
            nextFireDate: next.timeIntervalSince1970, targetWasAlive: targetWasAlive)
        if !targetWasAlive && stopsWhenTargetDies { invalidate() }
    }
}
