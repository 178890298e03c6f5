import Foundation
import Locking
import RetainGraph

extension RunLoopDriver {
    /// The driver of `runLoop` in the Foundation mode `mode`, made (and its Foundation timer
    /// added to the run loop) the first time it is asked for.
    ///
    /// - Complexity: O(1) amortised: one lock, the last driver handed out checked first.
    static func driver(for runLoop: RunLoop, mode: RunLoop.Mode) -> RunLoopDriver {
        var parked: [AnyObject] = []
        let driver = registry.withLock { registry in
            registry.driver(for: runLoop, mode: mode, parkingIn: &parked)
        }
        parked.removeAll()  // a last reference to a run loop goes here, after the lock
        return driver
    }

    /// Every run loop's drivers.
    private static let registry = Locked(Registry())

    /// The drivers of the run loops seen, by run loop.
    ///
    /// A run loop is keyed by its identity and pinned (see `ObjectPin`): its memory, not the
    /// run loop, is kept, so no other object can take its address while its drivers are
    /// listed. A dead run loop's drivers are forgotten once the table doubled since the last
    /// clean-up; their Foundation timers, never freed by Foundation, stay allocated (a few
    /// hundred bytes per run loop and mode).
    private struct Registry {
        var runLoops: [ObjectIdentifier: RunLoopDrivers] = [:]
        var countAfterCleanup = 0
        /// The last driver handed out, checked before the table.
        var last: (runLoop: ObjectIdentifier, mode: RunLoop.Mode, driver: RunLoopDriver)?

        mutating func driver(
            for runLoop: RunLoop, mode: RunLoop.Mode, parkingIn parked: inout [AnyObject]
        ) -> RunLoopDriver {
            let key = ObjectIdentifier(runLoop)
            if let last, last.runLoop == key, last.mode == mode { return last.driver }
            let drivers: RunLoopDrivers
            if let known = runLoops[key] {
                drivers = known
            } else {
                forgetDeadRunLoops(parkingIn: &parked)
                drivers = RunLoopDrivers(runLoop)
                runLoops[key] = drivers
            }
            let driver = drivers.driver(for: mode, on: runLoop)
            last = (key, mode, driver)
            return driver
        }

        /// Drops dead run loops' drivers once the table doubled since the last clean-up.
        private mutating func forgetDeadRunLoops(parkingIn parked: inout [AnyObject]) {
            guard runLoops.count >= max(16, 2 * countAfterCleanup) else { return }
            runLoops = runLoops.filter { entry in
                guard let live = entry.value.pin.load() else { return false }
                parked.append(live)
                return true
            }
            countAfterCleanup = runLoops.count
            last = nil
        }
    }
}

/// One run loop's drivers, one per Foundation mode.
private final class RunLoopDrivers {
    /// The run loop's memory, kept so that its address names it alone.
    let pin: ObjectPin
    /// The drivers by mode; few (usually `.default`, sometimes `.common` and a tracking mode).
    var modes: [(mode: RunLoop.Mode, driver: RunLoopDriver)] = []

    init(_ runLoop: RunLoop) { pin = ObjectPin(runLoop) }

    deinit { pin.release() }

    /// The driver for `mode`, made and started on `runLoop` if there is none yet.
    func driver(for mode: RunLoop.Mode, on runLoop: RunLoop) -> RunLoopDriver {
        if let known = modes.first(where: { $0.mode == mode }) { return known.driver }
        let driver = RunLoopDriver()
        driver.start(on: runLoop, mode: mode)
        modes.append((mode, driver))
        return driver
    }
}
