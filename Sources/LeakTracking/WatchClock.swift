import Foundation
import Locking
import RetainGraphUtilities

/// The source of "now" for a ``LeakWatcher``: when a watch started, when its grace ends.
///
/// The watcher reads the clock only through this protocol, so tests can replace the system
/// clock with a ``ManualWatchClock`` and decide exactly when a grace period is over, without
/// sleeping. Times are wall-clock `Date`s because timer fire dates recorded in the graph
/// (``/RetainGraph/TimerInfo/nextFireDate``) are wall-clock seconds since 1970.
///
/// ```swift
/// let clock = ManualWatchClock()
/// let watcher = LeakWatcher(graph: graph, clock: clock)
/// watcher.expectDeallocation(of: owner, within: .seconds(1), reason: "screen closed")
/// clock.advance(by: .seconds(2))
/// ```
public protocol WatchClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system's wall clock.
public struct SystemWatchClock: WatchClock {
    /// Creates the system clock.
    public init() {}

    /// The current time, as `Date()` reads it.
    public var now: Date { Date() }
}

extension WatchClock where Self == SystemWatchClock {
    /// The system's wall clock.
    public static var system: SystemWatchClock { SystemWatchClock() }
}

/// A clock that moves only when told to, for deterministic tests.
///
/// It starts at the date given (the current date by default) and is safe to read and advance
/// from any thread.
///
/// ```swift
/// let clock = ManualWatchClock()
/// clock.advance(by: .milliseconds(500))
/// ```
public final class ManualWatchClock: WatchClock {
    private let current: Locked<Date>

    /// Creates a clock that reads `start` until it is advanced.
    ///
    /// - Parameter start: The first time the clock reads. Defaults to now, so that fire dates
    ///   recorded by real timers stay comparable with it.
    public init(start: Date = Date()) {
        current = Locked(start)
    }

    /// The time the clock was last set to.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    ///
    /// - Parameter duration: How far to move; negative durations move it back.
    public func advance(by duration: Duration) {
        current.withLock { $0 = $0.addingTimeInterval(duration.seconds) }
    }

    /// Sets the clock to a given time.
    ///
    /// - Parameter date: The new time.
    public func set(to date: Date) {
        current.withLock { $0 = date }
    }
}
