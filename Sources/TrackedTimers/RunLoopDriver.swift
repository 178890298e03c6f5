import Foundation
import Locking
import RetainGraph

/// A timer that a ``RunLoopDriver`` fires: a ``RunLoopTimer`` or a ``FrameTimer``.
protocol RunLoopDriven: AnyObject, Sendable {
    /// Called on the run loop's thread, with no lock held, when `entry` came due (it is out of
    /// its driver's queue until rescheduled); `now` is in seconds since the reference date.
    func driverFired(_ entry: RunLoopDriverEntry, now: TimeInterval)
}

/// What the lock-guarded states of ``RunLoopTimer`` and ``FrameTimer`` share.
protocol RunLoopTimerState {
    associatedtype Timer: AnyObject
    var phase: TimerPhase { get set }
    var action: TimerAction<Timer>? { get set }
    /// The run loop, modes and driver entries; the entries hold the timer while scheduled.
    var placement: RunLoopPlacement { get set }
}

extension Locked where Value: RunLoopTimerState {
    /// Invalidates the timer this is the state of, once: takes it out of its drivers and
    /// releases its action (and what the action captured) outside the lock.
    func invalidate(recordingInto tracker: TimerTracker?) {
        var leftovers: (TimerAction<Value.Timer>?, RunLoopPlacement)?
        withLock { state in
            guard state.phase != .invalidated else { return }
            state.phase = .invalidated
            tracker?.recordInvalidated()
            leftovers = (state.action.take(), state.placement.clear())
        }
        // The driver entries held the timer; the caller keeps it alive until this returns.
        withExtendedLifetime(leftovers) {}
    }
}

/// One instrumented timer's place in one ``RunLoopDriver``'s queue.
///
/// It holds its timer strongly: while scheduled, the run loop (through the driver) holds the
/// timer, as on Apple platforms, and the timer holds its entries (a cycle that invalidation
/// breaks). Its mutable fields are guarded by its driver's lock.
final class RunLoopDriverEntry: @unchecked Sendable {
    /// The timer to call.
    let timer: any RunLoopDriven
    /// The driver whose queue this entry is in, retained by hand: a reference walk
    /// (ReferenceReflection) reads an `Unmanaged` as an unowned reference, so a walk from a
    /// timer does not go on through the driver to the run loop's other timers.
    private let retainedDriver: Unmanaged<RunLoopDriver>

    /// The driver whose queue this entry is in.
    var driver: RunLoopDriver { retainedDriver.takeUnretainedValue() }
    /// When the timer is due, in seconds since the reference date; `.infinity` for never.
    @exclusivity(unchecked) var due: TimeInterval
    /// The entry's index in the driver's heap, or -1 while out of it.
    @exclusivity(unchecked) var heapIndex = -1
    /// Set when the timer left the driver for good (invalidated): never queued again.
    @exclusivity(unchecked) var isRemoved = false

    init(timer: any RunLoopDriven, driver: RunLoopDriver, due: TimeInterval) {
        self.timer = timer
        retainedDriver = .passRetained(driver)
        self.due = due
    }

    deinit { retainedDriver.release() }
}

/// Fires every instrumented timer of one run loop and one Foundation mode with a single
/// Foundation `Timer` that is never invalidated (corelibs Foundation never frees a `Timer`: see
/// ``RunLoopTimer``'s "No Foundation timer per timer"), re-armed through its `fireDate` (which
/// works on Linux) to the earliest due time of the timers it drives; `.distantFuture` parks it.
///
/// ## How
/// The driver keeps a binary min-heap of ``RunLoopDriverEntry`` by due time. Adding an entry
/// due before the armed date re-arms the Foundation timer; removing one does not (the timer
/// then fires early once, finds nothing due and re-arms). At a fire, on the run loop's thread,
/// the driver takes every entry due by now out of the heap, calls each timer with no lock held,
/// and re-arms to the new earliest due time. A timer that fires again puts its entries back
/// with ``reschedule(_:to:)``.
///
/// ## Locks
/// The driver's lock may be taken with a timer's lock held (timers reschedule under their own
/// lock), never the other way round: the driver calls timers only after releasing it. Setting
/// the Foundation timer's fire date happens under the driver's lock, so that the date armed is
/// always the one computed last; Foundation calls no code of ours from inside that setter.
final class RunLoopDriver: @unchecked Sendable {
    private let lock = PthreadLock()
    /// The entries by due time; guarded by `lock`.
    @exclusivity(unchecked) private var heap: [RunLoopDriverEntry] = []
    /// The date the Foundation timer was last armed to; guarded by `lock`.
    @exclusivity(unchecked) private var armed = TimeInterval.infinity
    /// Whether a fire is under way (it re-arms once at its end); guarded by `lock`.
    @exclusivity(unchecked) private var isFiring = false
    /// The Foundation timer; set once by ``start(on:mode:)``.
    @exclusivity(unchecked) private var timer: Timer?

    /// Makes the Foundation timer, parked, and adds it to `runLoop` in `mode`; call once,
    /// before the driver is shared.
    func start(on runLoop: RunLoop, mode: RunLoop.Mode) {
        let timer = RunLoopDriverTimer(driver: self)
        self.timer = timer
        runLoop.add(timer, forMode: mode)
    }

    /// How many entries are queued (for tests and diagnostics).
    var queuedCount: Int { lock.withLock { heap.count } }

    /// Queues `entry` at `due`, or moves it there if it is queued; does nothing once the entry
    /// was removed. Re-arms the Foundation timer when the entry is now the earliest.
    ///
    /// - Complexity: O(log *n*) for the *n* entries queued.
    func reschedule(_ entry: RunLoopDriverEntry, to due: TimeInterval) {
        lock.withLock {
            guard !entry.isRemoved else { return }
            let earlier = due < entry.due
            entry.due = due
            if entry.heapIndex < 0 {
                entry.heapIndex = heap.count
                heap.append(entry)
                siftUp(entry.heapIndex)
            } else if earlier {
                siftUp(entry.heapIndex)
            } else {
                siftDown(entry.heapIndex)
            }
            if due < armed, !isFiring { arm(due) }
        }
    }

    /// Takes `entry` out of the queue for good.
    ///
    /// - Complexity: O(log *n*).
    func remove(_ entry: RunLoopDriverEntry) {
        lock.withLock {
            entry.isRemoved = true
            let index = entry.heapIndex
            guard index >= 0 else { return }
            entry.heapIndex = -1
            let last = heap.count - 1
            if index != last {
                heap.swapAt(index, last)
                heap[index].heapIndex = index
            }
            heap.removeLast()
            if index < heap.count {
                siftDown(index)
                siftUp(index)
            }
        }
    }

    /// Fires every entry due by now; called by the Foundation timer on the run loop's thread.
    func fire() {
        let now = Date().timeIntervalSinceReferenceDate
        var due: [RunLoopDriverEntry] = []
        lock.withLock {
            isFiring = true
            while let first = heap.first, first.due <= now {
                due.append(first)
                let last = heap.removeLast()
                if !heap.isEmpty {
                    heap[0] = last
                    last.heapIndex = 0
                    siftDown(0)
                }
                first.heapIndex = -1
            }
        }
        for entry in due { entry.timer.driverFired(entry, now: now) }
        lock.withLock {
            isFiring = false
            // Inside the Foundation timer's callout, a later date is kept as set; an earlier one
            // (an entry made due in the past meanwhile) makes Foundation step by the timer's
            // short interval instead, which fires again at once.
            arm(heap.first?.due ?? .infinity)
        }
        withExtendedLifetime(due) {}  // timers whose last owner let go die here, lock-free
    }

    /// Sets the Foundation timer's fire date; call with the lock held.
    private func arm(_ date: TimeInterval) {
        armed = date
        timer?.fireDate =
            date.isFinite ? Date(timeIntervalSinceReferenceDate: date) : .distantFuture
    }

    private func siftUp(_ start: Int) {
        var index = start
        let entry = heap[index]
        while index > 0 {
            let parent = (index - 1) / 2
            guard entry.due < heap[parent].due else { break }
            heap[index] = heap[parent]
            heap[index].heapIndex = index
            index = parent
        }
        heap[index] = entry
        entry.heapIndex = index
    }

    private func siftDown(_ start: Int) {
        var index = start
        let entry = heap[index]
        let count = heap.count
        while true {
            let left = 2 * index + 1
            guard left < count else { break }
            let right = left + 1
            let child = right < count && heap[right].due < heap[left].due ? right : left
            guard heap[child].due < entry.due else { break }
            heap[index] = heap[child]
            heap[index].heapIndex = index
            index = child
        }
        heap[index] = entry
        entry.heapIndex = index
    }
}

/// The Foundation timer of a ``RunLoopDriver``: repeating, never invalidated, its block a
/// non-capturing function (no block context to allocate).
///
/// Its interval matters only when a fire ends with an entry due before the date that fire was
/// armed for: Foundation then keeps its own schedule (the old date plus whole intervals), so a
/// short interval makes that fire come at once.
final class RunLoopDriverTimer: Timer {
    /// The driver this timer fires. The timer is never freed (see ``RunLoopDriver``).
    let driver: RunLoopDriver

    init(driver: RunLoopDriver) {
        self.driver = driver
        super.init(fire: .distantFuture, interval: 0.001, repeats: true) { timer in
            unsafeDowncast(timer, to: RunLoopDriverTimer.self).driver.fire()
        }
    }
}
