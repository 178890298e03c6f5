import Foundation
import Locking
import RetainGraph

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a run-loop-driven timer is scheduled: one run loop, one or more modes, and one entry
/// in the ``RunLoopDriver`` of each Foundation mode those stand for.
///
/// Guarded by its owner's lock; the drivers' locks are taken inside it. The first mode and the
/// first entry are stored inline, so the usual timer (one mode) allocates one entry here.
struct RunLoopPlacement {
    /// The run loop the timer was added to, until invalidation.
    private(set) var runLoop: RunLoop?
    /// The first mode it was added in.
    private var firstMode: RunLoop.Mode?
    /// Further modes, in order.
    private var moreModes: [RunLoop.Mode] = []
    /// The timer's entry in its first driver.
    private var firstEntry: RunLoopDriverEntry?
    /// Its entries in further drivers.
    private var moreEntries: [RunLoopDriverEntry] = []

    /// Whether the timer is in at least one driver.
    var isPlaced: Bool { firstEntry != nil }

    /// Validates a scheduling request and, unless the timer is already in `mode`, queues it
    /// at `due` (seconds since the reference date) in the drivers of the Foundation modes
    /// `mode` stands for (`.common` stands for several).
    ///
    /// - Returns: Whether the timer was added in a new mode.
    /// - Throws: ``TimerError/scheduledOnAnotherRunLoop`` when already on a different run loop.
    mutating func place(
        on runLoop: RunLoop, mode: RunLoop.Mode, timer: any RunLoopDriven, due: TimeInterval
    ) throws(TimerError) -> Bool {
        if let current = self.runLoop, current !== runLoop {
            throw .scheduledOnAnotherRunLoop
        }
        guard mode != firstMode, !moreModes.contains(mode) else { return false }
        self.runLoop = runLoop
        if firstMode == nil { firstMode = mode } else { moreModes.append(mode) }
        // `.default` first: the usual mode, and a copy of Foundation's own `.default` compares
        // equal by its storage alone, where `== .common` compares 21 characters.
        if mode == .default || mode != .common {
            enter(RunLoopDriver.driver(for: runLoop, mode: mode), timer: timer, due: due)
        } else {
            for foundationMode in TrackedRunLoopModes.foundationModes(for: mode) {
                enter(
                    RunLoopDriver.driver(for: runLoop, mode: foundationMode), timer: timer,
                    due: due)
            }
        }
        return true
    }

    /// Queues the timer in `driver` unless it is there already (`.common` and one of the extra
    /// common modes share a driver).
    private mutating func enter(
        _ driver: RunLoopDriver, timer: any RunLoopDriven, due: TimeInterval
    ) {
        if firstEntry?.driver === driver || moreEntries.contains(where: { $0.driver === driver }) {
            return
        }
        let entry = RunLoopDriverEntry(timer: timer, driver: driver, due: due)
        if firstEntry == nil { firstEntry = entry } else { moreEntries.append(entry) }
        driver.reschedule(entry, to: due)
    }

    /// Moves the timer's next fire to `due` in every driver it is in.
    func reschedule(to due: TimeInterval) {
        guard let firstEntry else { return }
        firstEntry.driver.reschedule(firstEntry, to: due)
        for entry in moreEntries { entry.driver.reschedule(entry, to: due) }
    }

    /// Takes the timer out of its drivers for good and forgets everything; returns what it
    /// held, for the caller to release after its lock (an entry holds the timer).
    mutating func clear() -> RunLoopPlacement {
        let old = self
        self = RunLoopPlacement()
        if let entry = old.firstEntry { entry.driver.remove(entry) }
        for entry in old.moreEntries { entry.driver.remove(entry) }
        return old
    }
}

/// The run-loop modes the instrumented timers know, including an emulation of Apple's common
/// modes that covers custom modes.
///
/// swift-corelibs-foundation has no `.tracking` mode, and `RunLoop.Mode.common` there covers only
/// `.default`: a custom mode cannot be made "common" through Foundation's public API. So when an
/// instrumented timer is added in `.common`, it is added to Foundation's `.common` **and** to every
/// mode in ``extraCommonModes`` (by default `RunLoop.Mode.tracking`), which is what
/// `NSRunLoopCommonModes` does on Apple platforms (S15). The graph records one edge, role
/// `.scheduled(mode: "kCFRunLoopCommonModes")`.
public enum TrackedRunLoopModes {
    private static let extra = Locked<[RunLoop.Mode]>([.tracking])

    /// Modes that an instrumented timer added in `.common` is also added to.
    ///
    /// Changing the list affects timers added in `.common` afterwards.
    public static var extraCommonModes: [RunLoop.Mode] {
        get { extra.withLock { $0 } }
        set { extra.withLock { $0 = newValue } }
    }

    /// The Foundation modes to add a timer to for a requested mode.
    static func foundationModes(for mode: RunLoop.Mode) -> [RunLoop.Mode] {
        guard mode == .common else { return [mode] }
        return [.common] + extraCommonModes.filter { $0 != .common && $0 != .default }
    }
}

extension RunLoop.Mode {
    /// A custom mode standing for UIKit's `UITrackingRunLoopMode` (a scroll view being dragged),
    /// which swift-corelibs-foundation does not have. Instrumented timers added in `.common`
    /// fire in it too (see ``TrackedRunLoopModes``).
    public static let tracking = RunLoop.Mode("UITrackingRunLoopMode")
}

/// The root kind for a run loop: `.runLoop(thread:)` named after the thread that owns it.
///
/// The main run loop is `"main"`; the current thread's run loop is named after the thread's own
/// pthread name, or `"tid 4242 (unnamed)"` when the thread only inherited the process's name
/// (see ``RunLoopThreads``). A run loop scheduled on from another thread (or a `Task`) is named
/// after its thread if it was ever seen there, else `"unknown, run loop at 0x…"` with its
/// address. The graph keys the root by the `RunLoop` object, so the first name recorded sticks;
/// once the thread exits, the root carries the note `its thread has exited`.
///
/// A name given with ``RunLoopNames/setName(_:for:)`` wins.
func runLoopRoot(for runLoop: RunLoop) -> RootKind {
    let isCurrent = runLoop === RunLoop.current
    let threadName = isCurrent ? RunLoopThreads.nameCurrentThread(owning: runLoop) : nil
    if let name = RunLoopNames.names.withLock({ $0[runLoop] }) { return .runLoop(thread: name) }
    if runLoop === RunLoop.main || (isCurrent && Thread.isMainThread) {
        return .runLoop(thread: "main")
    }
    if let name = threadName ?? RunLoopThreads.seen.withLock({ $0[runLoop] }) {
        return .runLoop(thread: name)
    }
    return .runLoop(thread: RunLoopThreads.addressName(of: runLoop))
}

/// Input checks shared by the timers.
enum RunLoopTiming {
    /// Checks a timer interval: finite, not negative, and above 0 when repeating.
    static func validate(interval: TimeInterval, repeats: Bool) throws(TimerError) {
        guard interval.isFinite, interval >= 0, !(repeats && interval == 0) else {
            throw .invalidInterval(interval)
        }
    }

    /// A tolerance as stored: NaN, negative and infinite values become 0.
    static func sanitized(tolerance: TimeInterval) -> TimeInterval {
        tolerance.isFinite && tolerance > 0 ? tolerance : 0
    }

    /// A date Foundation can schedule: NaN and +∞ become `distantFuture`, −∞ `distantPast`.
    static func sanitized(date: Date) -> Date {
        let seconds = date.timeIntervalSinceReferenceDate
        if seconds.isFinite { return date }
        return seconds == -.infinity ? .distantPast : .distantFuture
    }

    /// The first grid point `anchor + k × interval` (k ≥ 1) strictly after `now`: where a
    /// repeating timer fires next when fire points were missed (skipped, not shifted: S17).
    static func nextGridPoint(anchor: Date, interval: TimeInterval, after now: Date) -> Date {
        let elapsed = now.timeIntervalSince(anchor)
        let steps = elapsed < 0 ? 1 : (elapsed / interval).rounded(.down) + 1
        return anchor.addingTimeInterval(steps * interval)
    }
}
