import Foundation
import Locking
import RetainGraph

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a ``RunLoopTrampoline`` calls when its Foundation timer fires: a run-loop-driven timer.
protocol RunLoopFireHandler: AnyObject {
    /// Called on the run loop's thread for each fire of `foundationTimer`.
    func trampolineFired(_ foundationTimer: Timer)
}

/// The lock-guarded state of a run-loop-driven timer, as its ``RunLoopTrampoline`` sees it.
protocol RunLoopFireState {
    /// The timer kind the trampoline forwards fires to.
    associatedtype Handler: RunLoopFireHandler

    /// The timer itself while it is scheduled (the run loop holding it, as on Apple
    /// platforms); `nil` before it is first scheduled and after it is invalidated.
    var handler: Handler? { get }
}

/// The Foundation timer an instrumented run-loop timer schedules: a `Timer` subclass whose
/// block captures nothing and which forwards each fire to the timer found in the timer's own
/// lock-guarded state.
///
/// ## Why it exists
/// On Linux, swift-corelibs-foundation never frees a `Timer`: its initialiser stores a retained
/// reference to the timer in the CF timer's context, which has no release callback, and
/// `invalidate()` does not drop the block. Everything the `Timer` holds strongly therefore
/// lives forever. This subclass holds only the instrumented timer's lock box (its state and
/// mutex, one allocation the timer needs anyway), and its block is a non-capturing function,
/// so there is no block context to allocate or leak. While the timer is scheduled its state
/// holds the instrumented timer strongly (``RunLoopFireState/handler``); the timer empties its
/// state when it is invalidated, which releases the timer, its target and whatever its action
/// captured, and leaves the emptied box to the leaked `Timer`.
final class RunLoopTrampoline<State: RunLoopFireState>: RunLoopForwardingTimer {
    /// The instrumented timer's state; its lock is the timer's lock.
    private let state: Locked<State>

    /// Makes the Foundation timer for the instrumented timer whose state is `state`.
    ///
    /// - Parameters:
    ///   - state: The instrumented timer's lock-guarded state.
    ///   - fireDate: The first fire.
    ///   - interval: Seconds between fires of a repeating timer.
    ///   - repeats: Whether it repeats.
    init(state: Locked<State>, fireDate: Date, interval: TimeInterval, repeats: Bool) {
        self.state = state
        super.init(fireDate: fireDate, interval: interval, repeats: repeats)
    }

    /// Forwards one fire. After invalidation (no handler) it does nothing.
    ///
    /// - Complexity: One lock and one call; no allocation.
    override func forward() {
        guard let handler = state.withLock({ $0.handler }) else { return }
        handler.trampolineFired(self)
    }
}

/// The non-generic base of ``RunLoopTrampoline``: it gives Foundation the block, which then
/// mentions no generic parameter (a block naming one would capture its metadata).
class RunLoopForwardingTimer: Timer {
    /// Makes a Foundation timer whose block calls ``forward()``.
    ///
    /// - Parameters:
    ///   - fireDate: The first fire.
    ///   - interval: Seconds between fires of a repeating timer.
    ///   - repeats: Whether it repeats.
    init(fireDate: Date, interval: TimeInterval, repeats: Bool) {
        super.init(fire: fireDate, interval: interval, repeats: repeats) { timer in
            unsafeDowncast(timer, to: RunLoopForwardingTimer.self).forward()
        }
    }

    /// Called on the run loop's thread for each fire; subclasses forward it.
    func forward() {}
}

/// Where a run-loop-driven timer is scheduled: one run loop, one or more modes, one Foundation
/// timer (created at the first scheduling, so a timer that is never scheduled leaks nothing).
///
/// Guarded by its owner's lock; the Foundation calls it asks for are made outside that lock.
/// The first mode is stored inline, so the usual timer (one mode) allocates nothing here.
struct RunLoopPlacement {
    /// The run loop the timer was added to, until invalidation.
    private(set) var runLoop: RunLoop?
    /// The first mode it was added in.
    private var firstMode: RunLoop.Mode?
    /// Further modes, in order.
    private var moreModes: [RunLoop.Mode] = []
    /// The Foundation timer, once made.
    private(set) var foundationTimer: Timer?

    /// What ``place(on:mode:make:)`` decided.
    enum Decision {
        /// Already in that mode: nothing to do.
        case alreadyThere
        /// Add this Foundation timer to the run loop in the requested mode (outside the lock,
        /// with ``add(_:to:forMode:)``).
        case add(Timer, isFirst: Bool)
    }

    /// Validates a scheduling request and records it.
    ///
    /// - Throws: ``TimerError/scheduledOnAnotherRunLoop`` when already on a different run loop.
    mutating func place(on runLoop: RunLoop, mode: RunLoop.Mode, make: () -> Timer)
        throws(TimerError) -> Decision
    {
        if let current = self.runLoop, current !== runLoop {
            throw .scheduledOnAnotherRunLoop
        }
        guard mode != firstMode, !moreModes.contains(mode) else { return .alreadyThere }
        let isFirst = foundationTimer == nil
        let timer = foundationTimer ?? make()
        foundationTimer = timer
        self.runLoop = runLoop
        if firstMode == nil { firstMode = mode } else { moreModes.append(mode) }
        return .add(timer, isFirst: isFirst)
    }

    /// Forgets everything and returns the Foundation timer to invalidate.
    mutating func clear() -> Timer? {
        let timer = foundationTimer.take()
        self = RunLoopPlacement()
        return timer
    }

    /// Adds `timer` to `runLoop` in the Foundation modes standing for `mode` (see
    /// ``TrackedRunLoopModes``). Call outside the owner's lock.
    static func add(_ timer: Timer, to runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        // `.default` first: the usual mode, and a copy of Foundation's own `.default` compares
        // equal by its storage alone, where `== .common` compares 21 characters.
        guard mode != .default, mode == .common else {
            runLoop.add(timer, forMode: mode)
            return
        }
        for mode in TrackedRunLoopModes.foundationModes(for: mode) {
            runLoop.add(timer, forMode: mode)
        }
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
    if let name = RunLoopNames.name(for: runLoop) { return .runLoop(thread: name) }
    if runLoop === RunLoop.main || (isCurrent && Thread.isMainThread) {
        return .runLoop(thread: "main")
    }
    if let name = threadName ?? RunLoopThreads.knownName(of: runLoop) {
        return .runLoop(thread: name)
    }
    return .runLoop(thread: RunLoopThreads.addressName(of: runLoop))
}

/// Input checks shared by the run-loop-driven timers.
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
