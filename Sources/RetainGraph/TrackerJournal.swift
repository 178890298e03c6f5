import Locking
import Synchronization

/// A root object (a run loop, a queue) as the journal knows it: the name computed the first
/// time it was seen, and what keeps that name true.
///
/// The pin keeps the object's memory allocated (not the object alive), so no other object can
/// appear at its address while the entry exists: a lookup by address needs no load. A timer's
/// root edge holds its entry, so the address stays reserved while the edge exists. A pin, not
/// a weak reference: a run loop or queue that timers are scheduled on is retained and released
/// all the time, and a weak reference would send each of those down the runtime's slow path.
final class KnownRoot: @unchecked Sendable {
    let pin: ObjectPin
    let kind: RootKind

    init(_ object: AnyObject, kind: RootKind) {
        pin = ObjectPin(object)
        self.kind = kind
    }

    deinit { pin.release() }

    /// The root object, retained, while it is alive.
    var object: AnyObject? { pin.load() }
}

/// The queue of timer trackers whose state changed since the graph last applied them, and the
/// names of the roots (run loops, queues) timers were scheduled on.
///
/// A tracker event takes only this journal's lock, for a few dozen instructions: it writes the
/// tracker's new state and queues the tracker if it is not queued yet. The graph drains the
/// queue, under its own lock, before every read (see `LiveGraph.withSyncedStorage`).
///
/// ## Lifetimes
/// The queue holds its trackers strongly, so a queued tracker never dies while the graph
/// applies it. A queued tracker whose timer died is the queue's only reference (its timer
/// owned it): the drain leaves it out (removing its node if an earlier drain recorded it), and
/// so does a compaction when the queue grows long with nobody reading the graph. Released
/// trackers go only after the locks, and their `deinit` takes the graph's lock by itself.
///
/// ## Locks
/// The graph's lock is taken before this one (a drain holds both), never after it: tracker
/// events and a tracker's `deinit` take this lock alone, and the `deinit` takes the graph's
/// lock only after releasing it. No user code runs under either lock: strong references made
/// while applying (loading pins) are parked and released after both locks are.
final class TrackerJournal: @unchecked Sendable {
    private let lock = PthreadLock()
    /// Trackers with unapplied changes; guarded by `lock`.
    @exclusivity(unchecked) private var queue: [TimerTracker] = []
    /// The queue length at which an event compacts the queue; guarded by `lock`.
    @exclusivity(unchecked) private var compactionThreshold = TrackerJournal
        .minimumCompactionThreshold
    /// The root objects timers were scheduled on, by address; guarded by `lock`.
    @exclusivity(unchecked) private var rootKinds: [ObjectKey: KnownRoot] = [:]
    /// The number of root names kept after the last clean-up of dead roots.
    @exclusivity(unchecked) private var rootKindsAfterCleanup = 0

    private static let minimumCompactionThreshold = 4_096

    /// The last root looked up, checked before the dictionary; guarded by `lock`.
    @exclusivity(unchecked) private var lastRoot: (key: ObjectKey, root: KnownRoot)?

    /// Applies `change` to `tracker`'s wanted state and queues the tracker.
    @inline(__always)
    func update(_ tracker: TimerTracker, _ change: (inout TimerTracker.Wanted) -> Void) {
        var retired: [TimerTracker]?
        lock.withLock {
            change(&tracker.wanted)
            enqueue(tracker, retiring: &retired)
        }
        // Dead timers' trackers die here, outside the lock.
        if retired != nil { retired = nil }
    }

    /// Records that the root `object` stands for now holds `tracker`'s timer in `role`, and
    /// queues the tracker.
    ///
    /// The root's kind is the one computed the first time the journal saw `object`, or
    /// `makeKind()` for an object seen for the first time (evaluated outside the lock).
    func schedule(
        _ tracker: TimerTracker, on object: AnyObject, makeKind: () -> RootKind,
        role: ReferenceRole, nextFireDate: Double?
    ) {
        let key = ObjectKey(object)
        var retired: [TimerTracker]?
        let isKnown = lock.withLock { () -> Bool in
            guard let root = knownRoot(key) else { return false }
            tracker.wanted.schedule(on: root, role: role, nextFireDate: nextFireDate)
            enqueue(tracker, retiring: &retired)
            return true
        }
        if !isKnown {
            let kind = makeKind()
            var parked: [AnyObject] = []
            lock.withLock {
                let root =
                    knownRoot(key) ?? remember(object, key: key, kind: kind, parkingIn: &parked)
                tracker.wanted.schedule(on: root, role: role, nextFireDate: nextFireDate)
                enqueue(tracker, retiring: &retired)
            }
            parked.removeAll()
        }
        if retired != nil { retired = nil }
    }

    /// Queues `tracker` unless it is queued; call with the lock held.
    @inline(__always)
    private func enqueue(_ tracker: TimerTracker, retiring retired: inout [TimerTracker]?) {
        guard tracker.queuePosition < 0 else { return }
        tracker.queuePosition = queue.count
        queue.append(tracker)
        if queue.count >= compactionThreshold { retired = compact() }
    }

    /// How many trackers wait to be applied (for tests and diagnostics).
    var queuedCount: Int { lock.withLock { queue.count } }

    /// Takes `tracker`, whose owner is being deinitialized, out of the queue.
    func retire(_ tracker: TimerTracker) {
        var retired: TimerTracker?
        lock.withLock {
            let position = tracker.queuePosition
            guard position >= 0 else { return }
            let last = queue.count - 1
            if position != last {
                queue.swapAt(position, last)
                queue[position].queuePosition = position
            }
            retired = queue.removeLast()
            tracker.queuePosition = -1
        }
        withExtendedLifetime(retired) {}  // the queue's reference goes outside the lock
    }

    /// Takes the trackers whose timers died out of the queue, to be released after the lock.
    private func compact() -> [TimerTracker] {
        var retired: [TimerTracker] = []
        var kept: [TimerTracker] = []
        kept.reserveCapacity(queue.count)
        var index = 0
        while index < queue.count {
            defer { index += 1 }
            if isKnownUniquelyReferenced(&queue[index]) {
                queue[index].queuePosition = -1
                retired.append(queue[index])
            } else {
                queue[index].queuePosition = kept.count
                kept.append(queue[index])
            }
        }
        queue = kept
        compactionThreshold = max(Self.minimumCompactionThreshold, 2 * queue.count)
        return retired
    }

    /// Applies every queued tracker to `graph` and empties the queue. Call with the graph's
    /// lock held.
    ///
    /// - Parameters:
    ///   - isRecording: Whether the graph records; when it does not, only removals apply.
    ///   - survivors: Where strong references made by loads are parked, to be released
    ///     after the graph's lock.
    ///   - released: Gets the drained queue, to be released after the graph's lock; pass an
    ///     empty array.
    func drain(
        into graph: inout GraphStorage, isRecording: Bool, parkingIn survivors: inout [AnyObject],
        releasing released: inout [TimerTracker]
    ) {
        lock.withLock {
            guard !queue.isEmpty else { return }
            var live: [TimerTracker] = []
            live.reserveCapacity(queue.count)
            // Every live node first, so that an edge to another tracked object (a proxy) finds
            // its node; a tracker only the queue holds belongs to a dead timer.
            var index = 0
            while index < queue.count {
                defer { index += 1 }
                let isDead = isKnownUniquelyReferenced(&queue[index])
                let tracker = queue[index]
                tracker.queuePosition = -1
                if isDead {
                    if tracker.isRecorded.load(ordering: .relaxed) {
                        graph.removeNodes(of: tracker)
                        tracker.isRecorded.store(false, ordering: .releasing)
                    }
                } else {
                    graph.registerIfNew(tracker, isRecording: isRecording)
                    live.append(tracker)
                }
            }
            for tracker in live {
                graph.apply(tracker, isRecording: isRecording, parkingIn: &survivors)
            }
            // The queue's references go after the locks: a dead timer's tracker dies there.
            swap(&queue, &released)
            compactionThreshold = Self.minimumCompactionThreshold
        }
    }

    /// The entry for the root object at `key`, if any; call with the lock held.
    private func knownRoot(_ key: ObjectKey) -> KnownRoot? {
        if let lastRoot, lastRoot.key == key { return lastRoot.root }
        guard let known = rootKinds[key] else { return nil }
        lastRoot = (key, known)
        return known
    }

    /// Records the kind of a root object seen for the first time; call with the lock held.
    /// Forgets dead roots once the table doubled since the last clean-up.
    private func remember(
        _ object: AnyObject, key: ObjectKey, kind: RootKind, parkingIn parked: inout [AnyObject]
    ) -> KnownRoot {
        let root = KnownRoot(object, kind: kind)
        rootKinds[key] = root
        lastRoot = (key, root)
        if rootKinds.count > max(64, 2 * rootKindsAfterCleanup) {
            // A live root loaded here is parked, so that a last reference dropped meanwhile
            // is not released under the lock.
            rootKinds = rootKinds.filter { entry in
                guard let live = entry.value.object else { return false }
                parked.append(live)
                return true
            }
            rootKindsAfterCleanup = rootKinds.count
        }
        return root
    }
}

/// The source of node identities, shared by a graph's storage (under its lock) and its timer
/// trackers (without it).
final class IdentitySource: Sendable {
    private let last = Atomic<UInt64>(0)

    /// A fresh identity, never handed out before.
    @inline(__always)
    func next() -> ObjectID {
        ObjectID(rawValue: last.add(1, ordering: .relaxed).newValue)
    }
}
