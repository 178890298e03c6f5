import Locking
import RetainGraph
import StackTraces
import Synchronization

/// Records one timer's (or proxy's) ownership edges into a ``LiveGraph`` as they are made and
/// broken; every instrumented timer and proxy made on an enabled graph owns one.
///
/// The edges it records are the library's vocabulary for timers, which the leak checker reads:
///
/// ```
/// root (run loop / queue) ⇒ timer       role .scheduled(mode:) or .resumed, while scheduled
/// timer ⇒ target                        role .target, strong or weak
/// timer ⇒ closure (anchored node)       role .actionClosure, when a capture is declared
/// closure ⇒/→ owner                     role .capture(name: "self"), as declared
/// owner ⇒ timer                         role .storedProperty(name:), when the owner says so
/// ```
///
/// Each event (creation, a target or closure, scheduling, a fire, invalidation) takes the
/// graph's lock once; the edges' identities are kept inline, so recording allocates only the
/// graph's node records. It never holds the timer, its target or its owner strongly.
///
/// ## Threads
/// Its mutable state (the edges it recorded) is read and written only inside
/// ``LiveGraph/withTimerBatch(_:)``, under the graph's lock.
package final class TimerTracker: @unchecked Sendable {
    /// The graph recorded into.
    package let graph: LiveGraph
    /// The timer's (or proxy's) node, or ``ObjectID/disabled``.
    package let id: ObjectID
    /// What the timer recorded; guarded by the graph's lock.
    private var edges = Edges()

    /// The edges one timer recorded, to remove them when it is unscheduled or invalidated.
    private struct Edges {
        /// Root ⇒ timer, one per mode.
        var scheduled = ReferenceIDList()
        /// Timer ⇒ target, timer ⇒ closure, closure ⇒ owner.
        var calls = ReferenceIDList()
        /// The action closure's anchored node, removed with the timer's.
        var closure = ObjectID.disabled
    }

    /// Whether the tracker records anything.
    package var isActive: Bool { id != .disabled }

    /// Registers `object` as a timer or proxy node, with its timer information, under one lock.
    ///
    /// - Parameters:
    ///   - object: The timer or proxy, which must own this tracker: the graph keeps no reference
    ///     to it (not even a weak one) and relies on this tracker's `deinit` to remove its node.
    ///   - kind: `.timer` or `.proxy`.
    ///   - label: A label for reports.
    ///   - timer: Initial timer state, for timers.
    ///   - graph: The graph; ``LiveGraph/shared`` by default.
    ///   - traceSkipping: Frames of the library's own to drop from the creation trace.
    package init(
        object: AnyObject, kind: NodeKind, label: String?, timer: TimerInfo?,
        graph: LiveGraph, traceSkipping: Int = 1
    ) {
        self.graph = graph
        guard graph.isEnabled else {
            id = .disabled
            return
        }
        let trace =
            TimerTracking.capturesCreationTraces
            ? StackTrace.capture(skipping: traceSkipping + 1) : nil
        var id = ObjectID.disabled
        graph.withTimerBatch { batch in
            // Managed: this tracker's deinit removes the node, and the object owns the
            // tracker, so the graph needs no weak reference (and the timer no side table).
            id = batch.register(
                object, kind: kind, label: label, creationTrace: trace, timer: timer,
                isManaged: true)
        }
        self.id = id
    }

    /// Records that the timer holds `target` in `role` (`.target` or `.proxyTarget`).
    package func recordTarget(_ target: AnyObject, kind: ReferenceKind, role: ReferenceRole) {
        guard isActive else { return }
        graph.withTimerBatch { batch in
            let targetID = batch.register(target)
            if let edge = batch.addReference(from: id, to: targetID, kind: kind, role: role) {
                edges.calls.append(edge)
            }
        }
    }

    /// Records that the timer holds a root as its target, such as a type used as the target
    /// (`.immortalType(name:)`, the Objective-C "timer class as target" trampoline). The edge
    /// goes with the other target edges on invalidation.
    package func recordTarget(root: RootKind, kind: ReferenceKind, role: ReferenceRole) {
        guard isActive else { return }
        graph.withTimerBatch { batch in
            let rootID = batch.registerRoot(root)
            if let edge = batch.addReference(from: id, to: rootID, kind: kind, role: role) {
                edges.calls.append(edge)
            }
        }
    }

    /// Records that the timer holds an action closure which captures `owner` with the given
    /// kind under the name `capture`: `timer ⇒ closure ⇒/→ owner`.
    ///
    /// Without a declared `owner` nothing is recorded: a closure node with no outgoing
    /// reference lies on no path and in no cycle, so reports are the same without it.
    package func recordClosure(capturing owner: AnyObject?, kind: ReferenceKind, name: String) {
        guard isActive, let owner else { return }
        graph.withTimerBatch { batch in
            let closure = batch.registerAnchored(kind: .closure, typeName: "closure", anchor: id)
            guard closure != .disabled else { return }
            edges.closure = closure
            if let edge = batch.addReference(
                from: id, to: closure, kind: .strong, role: .actionClosure)
            {
                edges.calls.append(edge)
            }
            let ownerID = batch.register(owner)
            if let edge = batch.addReference(
                from: closure, to: ownerID, kind: kind, role: .capture(name: name))
            {
                edges.calls.append(edge)
            }
        }
    }

    /// Records that `root` now holds the timer in `role`, and marks it scheduled.
    ///
    /// - Parameters:
    ///   - root: The root's kind; evaluated only the first time `rootObject` is recorded (a
    ///     root's name sticks), or every time when there is no root object.
    ///   - rootObject: The run loop or queue standing for the root, if any.
    ///   - role: `.scheduled(mode:)` or `.resumed`.
    ///   - nextFireDate: When the timer fires next, in seconds since 1970.
    package func recordScheduled(
        on root: @autoclosure () -> RootKind, rootObject: AnyObject?, role: ReferenceRole,
        nextFireDate: Double?
    ) {
        guard isActive else { return }
        graph.withTimerBatch { batch in
            let rootID =
                if let rootObject { batch.registerRoot(for: rootObject, kind: root) } else {
                    batch.registerRoot(root())
                }
            if let edge = batch.addReference(from: rootID, to: id, kind: .strong, role: role) {
                edges.scheduled.append(edge)
            }
            batch.updateTimerInfo(for: id) { info in
                info.isScheduled = true
                info.nextFireDate = nextFireDate
            }
        }
    }

    /// Records a fire: the next fire date (nil for none) and whether the target was alive.
    package func recordFire(nextFireDate: Double?, targetWasAlive: Bool = true) {
        guard isActive else { return }
        graph.withTimerBatch { batch in
            batch.updateTimerInfo(for: id) { info in
                info.fireCount += 1
                if !targetWasAlive { info.firesIntoDeadTarget += 1 }
                info.nextFireDate = nextFireDate
            }
        }
    }

    /// Records a new fire date without a fire (a rescheduled or paused timer).
    package func recordNextFireDate(_ date: Double?) {
        guard isActive else { return }
        graph.withTimerBatch { batch in
            batch.updateTimerInfo(for: id) { info in info.nextFireDate = date }
        }
    }

    /// Removes the root edges and marks the timer unscheduled (paused, suspended, or removed
    /// from its run loop) while it keeps its target and action.
    package func recordUnscheduled() {
        guard isActive else { return }
        graph.withTimerBatch { batch in unschedule(in: &batch) }
    }

    /// Records an invalidation: the root edges go, and so do the target and action edges,
    /// because an invalidated timer releases what it called.
    package func recordInvalidated() {
        guard isActive else { return }
        graph.withTimerBatch { batch in
            unschedule(in: &batch)
            edges.calls.removeAll { batch.removeReference($0) }
        }
    }

    /// Removes the root edges and marks the timer unscheduled; call inside a batch.
    private func unschedule(in batch: inout TimerGraphBatch) {
        edges.scheduled.removeAll { batch.removeReference($0) }
        batch.updateTimerInfo(for: id) { info in
            info.isScheduled = false
            info.nextFireDate = nil
        }
    }

    /// Records that `owner` holds the timer in the stored property `property`.
    ///
    /// - Returns: The edge, or `nil` when tracking is off.
    @discardableResult
    package func recordOwner(_ owner: AnyObject, property: String, kind: ReferenceKind)
        -> ReferenceID?
    {
        guard isActive else { return nil }
        var edge: ReferenceID?
        graph.withTimerBatch { batch in
            edge = batch.addReference(
                from: batch.register(owner), to: id, kind: kind,
                role: .storedProperty(name: property))
        }
        return edge
    }

    deinit {
        guard isActive else { return }
        let closure = edges.closure
        graph.withTimerBatch { batch in
            batch.removeNode(closure)
            batch.removeNode(id)
        }
    }
}

/// A list of reference identities with room for three inline: a timer records one root edge
/// per mode and one to three calling edges, so the list allocates only in unusual cases.
struct ReferenceIDList {
    private var first: ReferenceID?
    private var second: ReferenceID?
    private var third: ReferenceID?
    private var more: [ReferenceID] = []

    /// Adds an identity.
    mutating func append(_ id: ReferenceID) {
        if first == nil {
            first = id
        } else if second == nil {
            second = id
        } else if third == nil {
            third = id
        } else {
            more.append(id)
        }
    }

    /// Hands every identity to `body` in the order added, and empties the list.
    mutating func removeAll(_ body: (ReferenceID) -> Void) {
        if let first { body(first) }
        if let second { body(second) }
        if let third { body(third) }
        for id in more { body(id) }
        self = ReferenceIDList()
    }
}

/// Process-wide switches for the instrumented timers' tracking.
///
/// Whether anything is recorded at all is ``LiveGraph/isEnabled`` of the graph a timer records
/// into (``LiveGraph/shared`` by default: on in debug builds, off in release builds, overridable
/// with `RETAINGRAPH_TRACKING`).
public enum TimerTracking {
    private static let traces = Atomic<Bool>(true)

    /// Whether timers and proxies capture a stack trace where they are created (default `true`).
    ///
    /// A capture costs about half a microsecond at the default depth; symbolication happens
    /// only when a report is printed.
    public static var capturesCreationTraces: Bool {
        get { traces.load(ordering: .relaxed) }
        set { traces.store(newValue, ordering: .relaxed) }
    }
}
