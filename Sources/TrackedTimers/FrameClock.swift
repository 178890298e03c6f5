import Foundation
import Locking

/// Where a ``FrameTimer`` reads the time for its frame timestamps: the system's monotonic
/// clock, or one you inject so tests can assert on exact timestamps.
///
/// The clock is read once when the timer is first scheduled (the origin of its refresh grid)
/// and once at every refresh (each fire of the underlying run-loop timer). Timestamps are
/// derived from those readings: `timestamp = origin + tick × duration`, where `tick` is the
/// refresh the reading falls in. With a clock that advances by exactly one refresh per reading
/// (``stepping(from:by:)``) the timestamps are a deterministic function of the fire count.
///
/// ```swift
/// let clock = FrameClock.stepping(from: 100, by: 1.0 / 64)
/// let link = try FrameTimer(refreshRate: 64, clock: clock) { _ in }
/// ```
public struct FrameClock: Sendable {
    private let read: @Sendable () -> TimeInterval

    /// Creates a clock from a function returning seconds on a monotonic time line.
    ///
    /// - Parameter now: Called outside the timer's locks, on the run loop's thread (or the
    ///   thread that schedules the timer).
    public init(_ now: @escaping @Sendable () -> TimeInterval) {
        read = now
    }

    /// The current time, in seconds.
    public func now() -> TimeInterval { read() }

    /// The system's monotonic clock (`ProcessInfo.systemUptime`), like `CACurrentMediaTime()`.
    public static let system = FrameClock { ProcessInfo.processInfo.systemUptime }

    /// A clock that returns `start`, then `start + step`, `start + 2 × step`, … one step per
    /// reading, whatever the wall clock says.
    ///
    /// - Parameters:
    ///   - start: The first reading.
    ///   - step: How far each reading advances; use the refresh duration for one refresh per
    ///     fire, or a multiple to model dropped frames.
    /// - Returns: The clock. Thread-safe.
    public static func stepping(from start: TimeInterval = 0, by step: TimeInterval) -> FrameClock {
        let readings = Locked<Int>(0)
        return FrameClock {
            let index = readings.withLock { count in
                defer { count += 1 }
                return count
            }
            return start + Double(index) * step
        }
    }
}
