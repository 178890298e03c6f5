import Locking
import RetainGraph
import StackTraces
import Synchronization

/// Records one timer's (or proxy's) ownership edges into a ``LiveGraph`` as they are made and
/// broken; every instrumented timer and proxy owns one.
///
/// The edges it records are the library's vocabulary for timers, which the leak checker reads:
///
/// ```
/// root (run loop / queue) ⇒ timer       role .scheduled(mode:) or .resumed, while scheduled
/// timer ⇒ target                        role .target, strong or weak
/// timer ⇒ closure (anchored node)       role .actionClosure
/// closure ⇒/→ owner                     role .capture(name: "self"), as declared
/// owner ⇒ timer                         role .storedProperty(name:), when the owner says so
/// ```
///
/// When the graph is disabled at creation, the tracker is inert and every call costs one
/// branch. It never holds the timer, its target or its owner strongly.
package final class TimerTracker: Sendable {
    /// The graph recorded into.
    package let graph: LiveGraph
    /// The timer's (or proxy's) node, or ``ObjectID/disabled``.
    package let id: ObjectID
    private let scheduledEdges = Locked<[ReferenceID]>([])
    private let actionEdges = Locked<[ReferenceID]>([])

    /// Whether the tracker records anything.
    package var isActive: Bool { id != .disabled }

    /// Registers `object` as a timer or proxy node.
    ///
    /// - Parameters:
    ///   - object: The timer or proxy; held weakly by the graph.
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
        id = graph.register(object, kind: kind, label: label, creationTrace: trace)
        if let timer { graph.setTimerInfo(timer, for: id) }
    }

    /// Records that the timer holds `target` in `role` (`.target` or `.proxyTarget`).
    package func recordTarget(_ target: AnyObject, kind: ReferenceKind, role: ReferenceRole) {
        guard isActive else { return }
        let targetID = graph.register(target)
        if let edge = graph.addReference(from: id, to: targetID, kind: kind, role: role) {
            actionEdges.withLock { $0.append(edge) }
        }
    }

    /// Records that the timer holds a root as its target, such as a type used as the target
    /// (`.immortalType(name:)`, the Objective-C "timer class as target" trampoline). The edge
    /// goes with the other target edges on invalidation.
    package func recordTarget(root: RootKind, kind: ReferenceKind, role: ReferenceRole) {
        guard isActive else { return }
        let rootID = graph.registerRoot(root, for: nil)
        if let edge = graph.addReference(from: id, to: rootID, kind: kind, role: role) {
            actionEdges.withLock { $0.append(edge) }
        }
    }

    /// Records that the timer holds an action closure which captures `owner` (if declared)
    /// with the given kind under the name `capture`.
    package func recordClosure(capturing owner: AnyObject?, kind: ReferenceKind, name: String) {
        guard isActive else { return }
        let closure = graph.registerAnchored(
            kind: .closure, typeName: "closure", label: nil, anchor: id)
        var edges: [ReferenceID] = []
        if let edge = graph.addReference(
            from: id, to: closure, kind: .strong, role: .actionClosure)
        {
            edges.append(edge)
        }
        if let owner,
            let edge = graph.addReference(
                from: closure, to: graph.register(owner), kind: kind,
                role: .capture(name: name))
        {
            edges.append(edge)
        }
        actionEdges.withLock { $0.append(contentsOf: edges) }
    }

    /// Records that `root` now holds the timer in `role`, and marks it scheduled.
    package func recordScheduled(
        on root: RootKind, rootObject: AnyObject?, role: ReferenceRole, nextFireDate: Double?
    ) {
        guard isActive else { return }
        let rootID = graph.registerRoot(root, for: rootObject)
        if let edge = graph.addReference(from: rootID, to: id, kind: .strong, role: role) {
            scheduledEdges.withLock { $0.append(edge) }
        }
        graph.updateTimerInfo(for: id) { info in
            info.isScheduled = true
            info.nextFireDate = nextFireDate
        }
    }

    /// Records a fire: the next fire date (nil for none) and whether the target was alive.
    package func recordFire(nextFireDate: Double?, targetWasAlive: Bool = true) {
        guard isActive else { return }
        graph.updateTimerInfo(for: id) { info in
            info.fireCount += 1
            if !targetWasAlive { info.firesIntoDeadTarget += 1 }
            info.nextFireDate = nextFireDate
        }
    }

    /// Records a new fire date without a fire (a rescheduled or paused timer).
    package func recordNextFireDate(_ date: Double?) {
        guard isActive else { return }
        graph.updateTimerInfo(for: id) { info in info.nextFireDate = date }
    }

    /// Removes the root edges and marks the timer unscheduled (paused, suspended, or removed
    /// from its run loop) while it keeps its target and action.
    package func recordUnscheduled() {
        guard isActive else { return }
        let edges = scheduledEdges.withLock { edges in
            defer { edges.removeAll() }
            return edges
        }
        for edge in edges { graph.removeReference(edge) }
        graph.updateTimerInfo(for: id) { info in
            info.isScheduled = false
            info.nextFireDate = nil
        }
    }

    /// Records an invalidation: the root edges go, and so do the target and action edges,
    /// because an invalidated timer releases what it called.
    package func recordInvalidated() {
        guard isActive else { return }
        recordUnscheduled()
        let edges = actionEdges.withLock { edges in
            defer { edges.removeAll() }
            return edges
        }
        for edge in edges { graph.removeReference(edge) }
    }

    /// Records that `owner` holds the timer in the stored property `property`.
    ///
    /// - Returns: The edge, or `nil` when tracking is off.
    @discardableResult
    package func recordOwner(_ owner: AnyObject, property: String, kind: ReferenceKind)
        -> ReferenceID?
    {
        guard isActive else { return nil }
        return graph.addReference(
            from: graph.register(owner), to: id, kind: kind,
            role: .storedProperty(name: property))
    }

    deinit {
        if isActive { graph.removeNode(id) }
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
