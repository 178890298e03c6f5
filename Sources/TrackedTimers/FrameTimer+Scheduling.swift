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
        let decision = try state.withLock {
            (state) throws(TimerError) -> RunLoopPlacement.Decision in
            guard state.phase != .invalidated else { throw .invalidated }
            let refresh = duration
            // The closure runs inside `state.placement`'s mutating access: it must not touch
            // `state` itself (overlapping access traps at run time).
            let decision = try state.placement.place(on: runLoop, mode: mode) {
                RunLoopTrampoline(
                    state: self.state, fireDate: Date(timeIntervalSinceNow: refresh),
                    interval: refresh, repeats: true)
            }
            if case .add(let timer, let isFirst) = decision {
                if isFirst { state.handler = self }
                if state.origin == nil, let reading {
                    state.origin = reading
                    state.targetTimestamp = reading + Double(state.frameInterval) * refresh
                }
                state.phase = .scheduled
                tracker?.recordScheduled(
                    on: runLoopRoot(for: runLoop), rootObject: runLoop,
                    role: .scheduled(mode: mode.rawValue),
                    nextFireDate: state.isPaused ? nil : timer.fireDate.timeIntervalSince1970)
            }
            return decision
        }
        guard case .add(let timer, _) = decision else { return }
        RunLoopPlacement.add(timer, to: runLoop, forMode: mode)
    }

    /// Whether frames are suspended, as `CADisplayLink.isPaused`.
    ///
    /// A paused timer stays in its run loop and keeps its target (the graph keeps
    /// `runloop ⇒ timer`, with no next fire date); unpausing resumes at the next refresh.
    /// Ignored after ``invalidate()``.
    public var isPaused: Bool {
        get { state.withLock { $0.isPaused } }
        set {
            let timer = state.withLock { state -> Timer? in
                guard state.phase != .invalidated, state.isPaused != newValue else { return nil }
                state.isPaused = newValue
                return state.placement.foundationTimer
            }
            guard let timer else { return }
            let next = newValue ? Date.distantFuture : Date(timeIntervalSinceNow: duration)
            timer.fireDate = next
            tracker?.recordNextFireDate(newValue ? nil : next.timeIntervalSince1970)
        }
    }

    /// Stops the frame timer for good, removes it from its run loop and releases its target
    /// and action, as `CADisplayLink.invalidate()`.
    ///
    /// Safe from any thread, more than once, before scheduling and from inside the action.
    public func invalidate() {
        var action: Action?
        var timer: Timer?
        var handler: FrameTimer?
        let invalidates = state.withLock { state in
            guard state.phase != .invalidated else { return false }
            state.phase = .invalidated
            tracker?.recordInvalidated()
            action = state.action.take()
            timer = state.placement.clear()
            handler = state.handler.take()
            return true
        }
        guard invalidates else { return }
        timer?.invalidate()
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

    // MARK: Refreshes

    /// Called by the trampoline at each refresh, on the run loop's thread.
    func trampolineFired(_ foundationTimer: Timer) {
        let now = clock.now()
        let (action, isLive, isPaused) = state.withLock { state -> (Action?, Bool, Bool) in
            guard state.phase == .scheduled, let origin = state.origin else {
                return (nil, false, false)
            }
            guard !state.isPaused else { return (nil, true, true) }
            let elapsed = ((now - origin) * refreshRate + 1e-6).rounded(.down)
            var refresh = elapsed.isFinite ? Int(max(0, min(elapsed, 1e15))) : state.lastRefresh
            refresh = max(refresh, state.lastRefresh + 1)  // each fire is a new refresh
            state.lastRefresh = refresh
            guard refresh >= state.lastFrame + state.frameInterval else {
                return (nil, true, false)
            }
            state.lastFrame = refresh
            state.timestamp = origin + Double(refresh) * duration
            state.targetTimestamp = state.timestamp + Double(state.frameInterval) * duration
            return (state.action, true, false)
        }
        guard isLive else { return }
        // Keep Foundation's timer on the refresh grid (missed refreshes are skipped), or parked
        // while paused (a pause racing with this fire is re-applied here).
        foundationTimer.fireDate =
            isPaused
            ? .distantFuture
            : RunLoopTiming.nextGridPoint(
                anchor: foundationTimer.fireDate, interval: duration, after: Date())
        guard let action else { return }
        let targetWasAlive = action(self)
        frames.add(1, ordering: .relaxed)
        tracker?.recordFire(
            nextFireDate: foundationTimer.fireDate.timeIntervalSince1970,
            targetWasAlive: targetWasAlive)
        if !targetWasAlive && stopsWhenTargetDies { invalidate() }
    }
}
