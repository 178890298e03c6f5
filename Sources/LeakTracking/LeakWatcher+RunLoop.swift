import Foundation
import RetainGraphUtilities

extension LeakWatcher {
    /// Runs the current thread's run loop in short slices until `condition` holds or `timeout`
    /// passes, so timers scheduled on this thread fire and objects they release can die.
    ///
    /// A run loop with no sources returns at once; the loop then yields the processor for a
    /// millisecond before looking again, so it never spins and never sleeps for long.
    ///
    /// ```swift
    /// LeakWatcher.drainRunLoop { owner == nil }
    /// ```
    ///
    /// - Parameters:
    ///   - mode: The run loop mode to run.
    ///   - timeout: The longest time to wait, measured on the system clock.
    ///   - condition: Checked before each slice.
    /// - Returns: Whether `condition` held before the timeout.
    @discardableResult
    public static func drainRunLoop(
        mode: RunLoop.Mode = .default, timeout: Duration = .seconds(30),
        until condition: () -> Bool
    ) -> Bool {
        let deadline = Date().addingTimeInterval(timeout.seconds)
        while !condition() {
            let now = Date()
            if now >= deadline { return false }
            let ran = RunLoop.current.run(mode: mode, before: now.addingTimeInterval(0.005))
            if !ran || Date().timeIntervalSince(now) < 0.001 { usleep(1_000) }
        }
        return true
    }

    /// Drives the current thread's run loop until every watch has a final verdict (each
    /// object died, or its grace is over and no pending one-shot timer still holds it), or
    /// until `timeout` passes.
    ///
    /// With the system clock this waits out grace periods while letting this thread's timers
    /// fire; with a ``ManualWatchClock``, advance the clock first.
    ///
    /// ```swift
    /// let verdicts = watcher.settle(timeout: .seconds(5))
    /// ```
    ///
    /// - Parameters:
    ///   - mode: The run loop mode to run.
    ///   - timeout: The longest time to wait.
    /// - Returns: The verdicts when it stopped waiting; some may still be
    ///   ``Verdict/pending`` or ``Verdict/transient`` after a timeout.
    @discardableResult
    public func settle(mode: RunLoop.Mode = .default, timeout: Duration = .seconds(30))
        -> [WatchVerdict]
    {
        var latest: [WatchVerdict] = []
        Self.drainRunLoop(mode: mode, timeout: timeout) {
            guard isReadyForVerdicts() else { return false }
            latest = verdicts()
            return latest.allSatisfy(\.verdict.isFinal)
        }
        return latest.isEmpty || !latest.allSatisfy(\.verdict.isFinal) ? verdicts() : latest
    }

    /// Waits, without a run loop, until every watch has a final verdict or `timeout` passes.
    ///
    /// For async contexts (Swift Testing scopes), where objects are released by queues or
    /// other threads. It polls every few milliseconds with `Task.sleep`.
    ///
    /// - Parameter timeout: The longest time to wait.
    /// - Returns: The verdicts when it stopped waiting.
    public func settled(timeout: Duration = .seconds(30)) async -> [WatchVerdict] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if isReadyForVerdicts() {
                let current = verdicts()
                if current.allSatisfy(\.verdict.isFinal) { return current }
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return verdicts()
    }

    /// Whether every watched object is dead or past its deadline (no snapshot needed).
    private func isReadyForVerdicts() -> Bool {
        let now = clock.now
        return state.withLock { state in
            state.watches.values.allSatisfy { !$0.reference.isAlive || now >= $0.deadline }
        }
    }
}
