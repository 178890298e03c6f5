import StackTraces
import Synchronization

/// Records one instrumented timer's (or proxy's) ownership edges for a ``LiveGraph``; every
/// timer and proxy made on an enabled graph owns one.
///
/// The edges are the library's vocabulary for timers, which the leak checker reads:
///
/// ```
/// root (run loop / queue) ⇒ timer       role .scheduled(mode:) or .resumed, while scheduled
/// timer ⇒ target                        role .target, strong or weak
/// timer ⇒ closure (anchored node)       role .actionClosure, when a capture is declared
/// closure ⇒/→ owner                     role .capture(name: "self"), as declared
/// owner ⇒ timer                         role .storedProperty(name:), when the owner says so
/// ```
///
/// ## Recording is deferred to the graph's readers
/// A timer event (creation, a target, scheduling, a fire, invalidation) only writes what the
/// timer holds *now* into this tracker and queues it (see `TrackerJournal`); the graph's
/// tables are touched when someone reads them (see ``LiveGraph``). A timer that lives across
/// a read is recorded then, with the state it has at that moment.
///
/// The timer's identity (``id``) is handed out at creation, so ``LiveGraph`` calls that take
/// it (and the timers' `graphID`) work before any read.
///
/// ## References
/// The tracker never keeps anything alive and takes no weak reference (which would give the
/// object a side table and slow down its every retain and release). It pins its targets, its
/// roots and its closure's owner (see ``ObjectPin``), and holds nothing of the timer: the
/// timer's node is managed, removed by this tracker's `deinit`.
package final class TimerTracker: @unchecked Sendable {
    /// The graph recorded into.
    package let graph: LiveGraph
    /// The graph's journal, where events go; unretained, because the graph (held strongly)
    /// keeps it alive. Every event goes through it, and a strong reference, loaded for each
    /// call, cost a retain and a release per event.
    private let unretainedJournal: Unmanaged<TrackerJournal>
    /// The timer's (or proxy's) node, or ``ObjectID/disabled``.
    package let id: ObjectID

    /// What the node is made from when it is first applied; complete once ``attach(identifier:type:)``
    /// ran. Written before the tracker is first queued, read only by drains.
    @exclusivity(unchecked) private(set) var registration: Registration
    /// What the timer holds now; guarded by the journal's lock.
    @exclusivity(unchecked) var wanted: Wanted
    /// The tracker's place in the journal's queue, or -1; guarded by the journal's lock.
    @exclusivity(unchecked) var queuePosition = -1
    /// Whether the graph holds this tracker's node (so its `deinit` must remove it); written
    /// under both the graph's and the journal's locks, read by the `deinit` without them.
    let isRecorded = Atomic<Bool>(false)
    /// The references and closure node last applied; guarded by the graph's lock.
    @exclusivity(unchecked) var applied = Applied()

    /// Whether the tracker records anything.
    package var isActive: Bool { id != .disabled }

    /// Creates the tracker of a timer or proxy that is being initialised; the object calls
    /// ``attach(identifier:type:)`` once it is fully initialised, and records nothing before.
    ///
    /// Two steps, so that the object can keep its tracker in a `let` (it cannot pass `self`
    /// before its stored properties are initialised): reading a `let` of a class needs no
    /// retain and release around each call, as a `var` does.
    ///
    /// Costs one atomic increment (the identity); ``attach(identifier:type:)`` costs one journal
    /// round-trip. Nothing is recorded into the graph's tables before it is read.
    ///
    /// - Parameters:
    ///   - kind: `.timer` or `.proxy`.
    ///   - label: A label for reports.
    ///   - timer: Initial timer state, for timers.
    ///   - creationTrace: Where the timer was created, if captured.
    ///   - graph: The graph. When it is disabled the tracker records nothing (``isActive`` is
    ///     `false`).
    package init(
        kind: NodeKind, label: String?, timer: TimerInfo?, creationTrace: StackTrace?,
        graph: LiveGraph
    ) {
        unretainedJournal = Unmanaged.passUnretained(graph.journal)
        self.graph = graph
        registration = Registration(kind: kind, label: label, trace: creationTrace)
        wanted = Wanted(info: timer)
        id = graph.isEnabled ? graph.nextIdentity() : .disabled
    }

    /// Creates the tracker of `object`, a timer or a proxy that owns it, and attaches it.
    ///
    /// - Parameters:
    ///   - object: The timer or proxy; see ``attach(identifier:type:)``.
    ///   - kind: `.timer` or `.proxy`.
    ///   - label: A label for reports.
    ///   - timer: Initial timer state, for timers.
    ///   - creationTrace: Where the timer was created, if captured.
    ///   - graph: The graph.
    package convenience init(
        object: borrowing AnyObject, kind: NodeKind, label: String?, timer: TimerInfo?,
        creationTrace: StackTrace?, graph: LiveGraph
    ) {
        self.init(
            kind: kind, label: label, timer: timer, creationTrace: creationTrace, graph: graph)
        attach(identifier: ObjectIdentifier(copy object), type: Swift.type(of: copy object))
    }

    /// Names the object this tracker records, and makes it visible to the graph's readers;
    /// call once, at the end of the object's initialiser, before any other event. The object
    /// passes its identifier and type rather than itself, so the initialiser does not retain
    /// itself for the call.
    ///
    /// - Parameters:
    ///   - identifier: `ObjectIdentifier(self)` of the timer or proxy, which must own this
    ///     tracker: the graph keeps no reference to it (not even a pin) and relies on this
    ///     tracker's `deinit` to remove its node.
    ///   - type: Its dynamic type.
    package func attach(identifier: ObjectIdentifier, type: Any.Type) {
        guard isActive else { return }
        registration.key = ObjectKey(identifier: identifier)
        registration.type = type
        update { _ in }  // the journal's lock publishes the registration to drains
    }

    // MARK: Events

    /// Records that the timer holds `target` in `role` (`.target` or `.proxyTarget`).
    package func recordTarget(_ target: AnyObject, ownership kind: Ownership, role: ReferenceRole) {
        recordCall { CallEdge(object: ObjectPin(target), root: nil, kind: kind, role: role) }
    }

    /// Records that the timer holds a root as its target, such as a type used as the target
    /// (`.immortalType(name:)`, the Objective-C "timer class as target" trampoline). The edge
    /// goes with the other target edges on invalidation.
    package func recordTarget(root: RootKind, ownership kind: Ownership, role: ReferenceRole) {
        recordCall { CallEdge(object: nil, root: root, kind: kind, role: role) }
    }

    /// Adds the edge `edge` makes (called under the journal's lock) to what the timer calls.
    private func recordCall(_ edge: () -> CallEdge) {
        guard isActive else { return }
        update { wanted in
            wanted.calls.append(edge())
            wanted.changes.insert(.calls)
        }
    }

    /// Records that the timer holds an action closure which captures `owner` with the given
    /// kind under the name `capture`: `timer ⇒ closure ⇒/→ owner`.
    ///
    /// Without a declared `owner` nothing is recorded: a closure node with no outgoing
    /// reference lies on no path and in no cycle, so reports are the same without it.
    package func recordClosure(capturing owner: AnyObject?, ownership kind: Ownership, name: String)
    {
        guard isActive, let owner else { return }
        update { wanted in
            wanted.closure?.owner.release()
            wanted.closure = ClosureCapture(owner: ObjectPin(owner), kind: kind, name: name)
            wanted.changes.insert(.calls)
        }
    }

    /// Records that `root` now holds the timer in `role`, and marks it scheduled.
    ///
    /// - Parameters:
    ///   - root: The root's kind; evaluated only the first time `rootObject` is seen by the
    ///     graph (a root's name sticks while its object lives).
    ///   - rootObject: The run loop or queue standing for the root.
    ///   - role: `.scheduled(mode:)` or `.resumed`.
    ///   - nextFireDate: When the timer fires next, in seconds since 1970.
    package func recordScheduled(
        on root: @autoclosure () -> RootKind, rootObject: AnyObject, role: ReferenceRole,
        nextFireDate: Double?
    ) {
        guard isActive else { return }
        unretainedJournal._withUnsafeGuaranteedRef { journal in
            journal.schedule(
                self, on: rootObject, makeKind: root, role: role, nextFireDate: nextFireDate)
        }
    }

    /// Records a fire: the next fire date (nil for none) and whether the target was alive.
    package func recordFire(nextFireDate: Double?, targetWasAlive: Bool = true) {
        guard isActive else { return }
        update { wanted in
            wanted.info?.fireCount += 1
            if !targetWasAlive { wanted.info?.firesIntoDeadTarget += 1 }
            wanted.info?.nextFireDate = nextFireDate
            wanted.changes.insert(.info)
        }
    }

    /// Records a new fire date without a fire (a rescheduled or paused timer).
    package func recordNextFireDate(_ date: Double?) {
        guard isActive else { return }
        update { wanted in
            wanted.info?.nextFireDate = date
            wanted.changes.insert(.info)
        }
    }

    /// Removes the root edges and marks the timer unscheduled (paused, suspended, or removed
    /// from its run loop) while it keeps its target and action.
    package func recordUnscheduled() {
        guard isActive else { return }
        update { wanted in wanted.unschedule() }
    }

    /// Records an invalidation: the root edges go, and so do the target and action edges,
    /// because an invalidated timer releases what it called.
    package func recordInvalidated() {
        guard isActive else { return }
        update { wanted in
            wanted.unschedule()
            wanted.dropCalls()
            wanted.changes.insert(.calls)
        }
    }

    /// Records that `owner` holds the timer in the stored property `property`.
    ///
    /// Unlike the other events this one is written into the graph at once (it is the user's
    /// reference, removed with ``LiveGraph/removeReference(_:)``, not the timer's).
    ///
    /// - Returns: The edge, or `nil` when tracking is off.
    @discardableResult
    package func recordOwner(_ owner: AnyObject, property: String, ownership kind: Ownership)
        -> ReferenceID?
    {
        guard isActive else { return nil }
        return graph.addReference(
            from: graph.register(owner), to: id, ownership: kind,
            role: .storedProperty(name: property))
    }

    /// Tells the tracker that its timer (or proxy) is being deinitialized; call from the
    /// owner's `deinit`.
    ///
    /// The journal's queue lets go of the tracker at once, so that it dies with its owner
    /// (and its node, if the graph recorded one, goes with it) instead of at the next read of
    /// the graph. Without the call the result is the same, only later.
    ///
    /// Leaving an unrecorded tracker queued for the next read instead (sparing the `deinit` the
    /// journal's lock, about 110 instructions) was tried and measured slower: trackers then die
    /// in batches at the reads, and the allocator, which no longer gets the same block back at
    /// once, costs about 300 instructions more per timer.
    package func retire() {
        guard isActive else { return }
        unretainedJournal._withUnsafeGuaranteedRef { $0.retire(self) }
    }

    /// Applies `change` to the wanted state and queues the tracker, through the unretained
    /// journal.
    @inline(__always)
    private func update(_ change: (inout Wanted) -> Void) {
        unretainedJournal._withUnsafeGuaranteedRef { $0.update(self, change) }
    }

    deinit {
        wanted.releasePins()
        // Never queued here: the journal's queue holds its trackers strongly.
        guard isActive, isRecorded.load(ordering: .acquiring) else { return }
        graph.removeTrackedNodes(of: self)
    }
}

extension TimerTracker {
    /// The timer's node as it is registered when first applied.
    struct Registration {
        /// The object's key and type: set by ``TimerTracker/attach(identifier:type:)``; a tracker without
        /// a key is never registered.
        var key: ObjectKey?
        var type: Any.Type = AnyObject.self
        let kind: NodeKind
        let label: String?
        let trace: StackTrace?
    }

    /// What the timer holds now, and what changed since the graph last applied it.
    struct Wanted {
        var info: TimerInfo?
        var roots = SmallList<RootEdge>()
        var calls = SmallList<CallEdge>()
        var closure: ClosureCapture?
        var changes: Changes = []

        /// Forgets the targets and the closure, and releases their pins.
        mutating func dropCalls() {
            releasePins()
            if !calls.isEmpty { calls = SmallList() }
            closure = nil
        }

        /// Releases the pins of the targets and the closure's owner, which are released by
        /// hand (see ``ObjectPin``): by ``dropCalls()``, and by the tracker's `deinit`.
        ///
        /// `mutating` though it changes nothing: called on the tracker's stored property, a
        /// non-mutating method would copy the whole state first.
        mutating func releasePins() {
            if !calls.isEmpty { calls.forEachElement { $0.object?.release() } }
            closure?.owner.release()
        }

        /// `root` holds the timer in `role`.
        mutating func schedule(
            on root: consuming KnownRoot, role: ReferenceRole, nextFireDate: Double?
        ) {
            roots.append(RootEdge(root: root, role: role))
            info?.isScheduled = true
            info?.nextFireDate = nextFireDate
            changes.formUnion([.roots, .info])
        }

        /// No root holds the timer any more.
        mutating func unschedule() {
            if !roots.isEmpty { roots = SmallList() }
            info?.isScheduled = false
            info?.nextFireDate = nil
            changes.formUnion([.roots, .info])
        }
    }

    /// The parts of ``Wanted`` to apply.
    struct Changes: OptionSet {
        let rawValue: UInt8
        static let roots = Changes(rawValue: 1 << 0)
        static let calls = Changes(rawValue: 1 << 1)
        static let info = Changes(rawValue: 1 << 2)
        static let all: Changes = [.roots, .calls, .info]
    }

    /// A root holding the timer: `root ⇒ timer`, with the root's journal entry (which pins
    /// the root object and knows its name).
    struct RootEdge {
        let root: KnownRoot
        let role: ReferenceRole
    }

    /// Something the timer calls: `timer ⇒ target`, an object or a root.
    ///
    /// The object is pinned, not held weakly: a weak reference would give the target (often
    /// the timer's owner) a side table and slow down its every retain and release. The pin is
    /// released by ``Wanted/dropCalls()``.
    struct CallEdge {
        let object: ObjectPin?
        let root: RootKind?
        let kind: Ownership
        let role: ReferenceRole
    }

    /// The owner an action closure declares it captures: `timer ⇒ closure ⇒/→ owner`; pinned
    /// like a ``CallEdge``'s object.
    struct ClosureCapture {
        let owner: ObjectPin
        let kind: Ownership
        let name: String
    }

    /// What the graph holds for this tracker besides its node.
    struct Applied {
        var rootEdges = ReferenceIDList()
        var callEdges = ReferenceIDList()
        var closure = ObjectID.disabled
    }
}

/// A list with room for one element inline: a timer has one root edge and one target in the
/// usual case, so the list allocates only in unusual ones.
struct SmallList<Element> {
    private var first: Element?
    /// The elements after the first; `nil` rather than empty, so that destroying a list of one
    /// releases no array.
    private var more: [Element]?
    /// The number of elements: testing it copies nothing, where testing `first` copies an
    /// element.
    private(set) var count = 0

    /// Whether the list has no element.
    var isEmpty: Bool { count == 0 }

    /// Adds an element.
    mutating func append(_ element: consuming Element) {
        count += 1
        if count == 1 {
            first = element
        } else if more == nil {
            more = [element]
        } else {
            more?.append(element)
        }
    }

    /// Calls `body` with every element, in the order added.
    func forEachElement(_ body: (Element) -> Void) {
        if let first { body(first) }
        for element in more ?? [] { body(element) }
    }
}

/// A list of reference identities with room for three inline: a timer records one root edge
/// per mode and one to three calling edges, so the list allocates only in unusual cases.
struct ReferenceIDList {
    private var first: ReferenceID?
    private var second: ReferenceID?
    private var third: ReferenceID?
    /// The identities after the third; `nil` rather than empty (nothing to release).
    private var more: [ReferenceID]?

    /// Adds an identity.
    mutating func append(_ id: ReferenceID) {
        if first == nil {
            first = id
        } else if second == nil {
            second = id
        } else if third == nil {
            third = id
        } else if more == nil {
            more = [id]
        } else {
            more?.append(id)
        }
    }

    /// Hands every identity to `body` in the order added, and empties the list.
    mutating func removeAll(_ body: (ReferenceID) -> Void) {
        if let first { body(first) }
        if let second { body(second) }
        if let third { body(third) }
        for id in more ?? [] { body(id) }
        self = ReferenceIDList()
    }
}
