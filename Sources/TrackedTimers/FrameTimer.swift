import Foundation
import Locking
import RetainGraph
import Synchronization

/// A `CADisplayLink` for Linux: a timer that fires once per frame, at a preferred frame rate,
/// on a run loop, with frame timestamps; it records who holds whom into a ``/RetainGraph/LiveGraph``.
///
/// There is no display on a server, so the "display" is a refresh grid at ``refreshRate``
/// refreshes per second (60 by default), driven by the run loop the frame timer is added to
/// (through the run loop's shared Foundation timer, as for ``RunLoopTimer``). At each refresh the timer reads its ``FrameClock``; it calls the
/// action when at least ``frameInterval`` refreshes passed since the last frame, so a preferred
/// rate of 30 on a 60 Hz grid fires every other refresh, and refreshes missed while the thread
/// was busy are skipped (one call, with the latest timestamp). Like `CADisplayLink` it must be
/// added with ``add(to:forMode:)`` before it fires (S13).
///
/// ```swift
/// final class Animator {
///     var link: FrameTimer?
///     func start() throws {
///         link = try FrameTimer(weakTarget: self, preferredFramesPerSecond: 30) { me, link in
///             me.step(to: link.targetTimestamp)
///         }.held(by: self, as: "link")
///         try link?.add(to: .main, forMode: .common)
///     }
///     func step(to time: TimeInterval) {}
///     deinit { link?.invalidate() }
/// }
/// ```
///
/// ## Timestamps
/// ``timestamp`` is the refresh the current frame belongs to (`origin + tick × duration`, with
/// the origin read when the timer is first scheduled), ``targetTimestamp`` the one the next
/// frame is due at (`timestamp + frameInterval × duration`), ``duration`` the time between
/// refreshes. Inject ``FrameClock/stepping(from:by:)`` to make them exact in tests.
///
/// ## Ownership and memory
/// As for ``RunLoopTimer``: while in a run loop (paused or not, as with `CADisplayLink`) the run
/// loop holds the timer (`runloop[root] ⇒ timer`), and the timer holds its target strongly
/// (S12a) or weakly, or its closure. ``invalidate()`` releases all of it. No Foundation `Timer`
/// is made per frame timer (Foundation never frees one on Linux): once invalidated and
/// released, nothing of it stays allocated.
///
/// All methods may be called from any thread; the action runs on the run loop's thread.
public final class FrameTimer: TrackedTimer, RunLoopDriven, @unchecked Sendable {
    /// A frame's work.
    typealias Action = TimerAction<FrameTimer>

    /// Refreshes per second of the simulated display (`maximumFramesPerSecond`).
    public let refreshRate: Double
    /// Whether a frame that finds the target dead invalidates the timer (weak-target timers).
    public let stopsWhenTargetDies: Bool
    /// The clock timestamps are read from.
    public let clock: FrameClock

    /// The timer's state and lock, in one box.
    let state: Locked<State>
    let frames = Atomic<Int>(0)
    /// The graph recorder; `nil` when the graph was disabled at creation.
    let tracker: TimerTracker?

    /// The lock-guarded state.
    struct State: RunLoopTimerState {
        var phase = TimerPhase.idle
        var action: Action?
        var frameInterval: Int
        var isPaused = false
        var origin: TimeInterval?
        var lastRefresh = 0
        var lastFrame = 0
        var timestamp: TimeInterval = 0
        var targetTimestamp: TimeInterval = 0
        /// When the next refresh is due while in a run loop (`.distantFuture` while paused).
        var refreshDate = Date.distantFuture
        var placement = RunLoopPlacement()
    }

    /// The designated initialiser every public one funnels into (label and graph borrowed: see
    /// the tracker's initialiser).
    init(
        refreshRate: Double, preferredFramesPerSecond: Int, clock: FrameClock,
        label: borrowing String?, graph: borrowing LiveGraph, binding: TimerBinding<FrameTimer>
    ) throws(TimerError) {
        guard refreshRate.isFinite, refreshRate > 0, refreshRate <= Self.maximumRefreshRate else {
            throw .invalidFrameRate(refreshRate)
        }
        guard preferredFramesPerSecond >= 0 else {
            throw .invalidFrameRate(Double(preferredFramesPerSecond))
        }
        self.refreshRate = refreshRate
        self.stopsWhenTargetDies = binding.stopsWhenTargetDies
        self.clock = clock
        state = Locked(
            State(
                action: binding.action,
                frameInterval: Self.frameInterval(
                    for: preferredFramesPerSecond, refreshRate: refreshRate)))
        tracker = TimerTracker(
            kind: .timer, label: label,
            timer: TimerInfo(
                repeats: true, interval: 1 / refreshRate,
                stopsWhenTargetDies: stopsWhenTargetDies),
            graph: graph, traceSkipping: 3)
        tracker?.attach(identifier: ObjectIdentifier(self), type: FrameTimer.self)
        binding.record(into: tracker)
    }

    /// The highest refresh rate accepted (10 µs between refreshes).
    public static let maximumRefreshRate: Double = 100_000

    /// The largest frame interval: higher values are stored as this.
    static let maximumFrameInterval = Int(Int32.max)

    /// Refreshes per frame for a preferred rate: `refreshRate / preferred`, rounded, at least 1;
    /// 0 means the refresh rate.
    static func frameInterval(for preferred: Int, refreshRate: Double) -> Int {
        guard preferred > 0 else { return 1 }
        let ratio = (refreshRate / Double(preferred)).rounded()
        return ratio.isFinite ? max(1, Int(min(ratio, Double(maximumFrameInterval)))) : 1
    }

    // MARK: Frame properties

    /// The time between refreshes: `1 / refreshRate`.
    public var duration: TimeInterval { 1 / refreshRate }

    /// When the current (last delivered) frame was due; 0 before the first frame.
    public var timestamp: TimeInterval { state.withLock { $0.timestamp } }

    /// When the next frame is due: ``timestamp`` + ``frameInterval`` × ``duration``.
    public var targetTimestamp: TimeInterval { state.withLock { $0.targetTimestamp } }

    /// Refreshes between frames (at least 1), as `CADisplayLink.frameInterval`.
    ///
    /// Setting it changes ``preferredFramesPerSecond`` to match; values below 1 count as 1,
    /// values above `Int32.max` as `Int32.max`.
    public var frameInterval: Int {
        get { state.withLock { $0.frameInterval } }
        set {
            let interval = min(max(1, newValue), Self.maximumFrameInterval)
            state.withLock { $0.frameInterval = interval }
        }
    }

    /// The frame rate the action is called at; 0 (the default) means ``refreshRate``.
    ///
    /// The effective rate is `refreshRate / frameInterval`, the nearest the grid allows (reading
    /// returns it rounded down). Negative values count as 0.
    public var preferredFramesPerSecond: Int {
        get { Int(refreshRate / Double(frameInterval)) }
        set {
            let interval = Self.frameInterval(for: max(0, newValue), refreshRate: refreshRate)
            state.withLock { $0.frameInterval = interval }
        }
    }

    /// How many frames the action was called for.
    public var frameCount: Int { frames.load(ordering: .relaxed) }

    /// Whether the timer can still fire.
    public var isValid: Bool { state.withLock { $0.phase != .invalidated } }

    /// The timer's node in the graph it records into, or `nil` when tracking was off.
    public var graphID: ObjectID? { tracker?.id }

    deinit {
        // A scheduled timer cannot die (its driver entries hold it) until invalidated, which
        // takes it out of its drivers; what is left is to let the tracker go with the timer.
        tracker?.retire()
    }
}
