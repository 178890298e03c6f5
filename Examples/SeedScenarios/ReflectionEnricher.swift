import Foundation
import LeakTracking
import ReferenceReflection
import RetainGraph

/// A ``LeakTracking/SnapshotEnricher`` backed by ReferenceReflection: before the watcher
/// analyses a snapshot, it walks the watched objects that are still alive (and any extra
/// objects named with ``walkAlso(_:)``, such as timers a registry holds) and adds the stored
/// properties and closure captures it finds as discovered references.
///
/// The scenarios never declare `owner ⇒ timer` nor what a closure captures: this enricher
/// finds both, and reports mark them `(discovered)`.
///
/// ```swift
/// let graph = LiveGraph()
/// let reflection = ReflectionEnricher(graph: graph)
/// let watcher = LeakWatcher(graph: graph, enricher: reflection.enricher)
/// reflection.watch(owner)
/// watcher.expectDeallocation(of: owner, reason: "closed")
/// ```
///
/// It keeps weak references only. The watcher hands an enricher the graph identities of the
/// live watched objects; a `LiveGraph` cannot turn an identity back into an object, so the
/// enricher remembers the objects itself (weakly) and walks those whose identity it was given.
public final class ReflectionEnricher: @unchecked Sendable {
    /// The walker; its graph is the one the watcher analyses.
    public let walker: ReferenceWalker
    private let graph: LiveGraph
    private let lock = NSLock()
    private var watched: [WeakObject] = []
    private var extra: [WeakObject] = []
    private var lastResult: WalkResult?

    private final class WeakObject {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    /// Creates an enricher over `graph`.
    ///
    /// - Parameters:
    ///   - graph: The graph the watcher records into; reached objects keep their identities.
    ///   - limits: Bounds on each walk. The default stops 12 references from a root, enough
    ///     for an owner, its timer, the timer's action and the action's captures.
    public init(graph: LiveGraph, limits: WalkLimits = WalkLimits(maxObjects: 2_000, maxDepth: 12))
    {
        self.graph = graph
        walker = ReferenceWalker(graph: graph, limits: limits)
    }

    /// Remembers `object` (weakly) as one to walk from while it is watched and alive.
    ///
    /// - Parameter object: An object passed to `expectDeallocation`.
    public func watch(_ object: AnyObject) {
        lock.withLock { watched.append(WeakObject(object)) }
    }

    /// Remembers `object` (weakly) as one to walk from whenever it is alive, watched or not:
    /// for timers that something other than the watched object holds.
    ///
    /// - Parameter object: A timer or other holder.
    public func walkAlso(_ object: AnyObject) {
        lock.withLock { extra.append(WeakObject(object)) }
    }

    /// The diagnostics of the last walk: what reflection could not read.
    public var lastDiagnostics: [WalkDiagnostic] { lock.withLock { lastResult?.diagnostics ?? [] } }

    /// The enricher to pass to `LeakWatcher(graph:clock:defaultGrace:knownLeaks:sinks:enricher:)`.
    public var enricher: SnapshotEnricher {
        { [self] snapshot, alive in enrich(snapshot, alive: alive) }
    }

    /// Walks from the live watched objects in `alive` and the extra objects, and adds what the
    /// walk found to `snapshot`.
    ///
    /// - Parameters:
    ///   - snapshot: The declared graph.
    ///   - alive: The identities of the watched objects still alive.
    /// - Returns: The snapshot with discovered nodes and references added.
    /// - Complexity: One bounded walk (see ``walker``'s limits).
    public func enrich(_ snapshot: GraphSnapshot, alive: [ObjectID]) -> GraphSnapshot {
        let wanted = Set(alive)
        let roots: [AnyObject] = lock.withLock {
            let owners = watched.compactMap(\.object).filter { object in
                graph.id(of: object).map(wanted.contains) ?? false
            }
            return owners + extra.compactMap(\.object)
        }
        guard !roots.isEmpty else { return snapshot }
        let result = Self.withoutBookkeeping(walker.walk(from: roots), declared: snapshot)
        lock.withLock { lastResult = result }
        return snapshot.addingDiscoveredReferences(from: result)
    }

    /// Drops what the walk found inside the library's own recording machinery: an
    /// instrumented timer's `tracker` and any reference to a `LiveGraph` (whose storage refers
    /// weakly to every recorded object), and a timer's pointer back to the run loop or queue
    /// that schedules it (recorded the other way round, as the root's edge). What only those
    /// references reached is dropped too.
    ///
    /// - Parameters:
    ///   - result: A walk.
    ///   - declared: The snapshot the walk will be added to.
    /// - Returns: The walk without those references.
    static func withoutBookkeeping(_ result: WalkResult, declared: GraphSnapshot) -> WalkResult {
        let graphNodes = Set(
            result.nodes.filter { $0.typeName == String(reflecting: LiveGraph.self) }.map(\.id))
        func isBookkeeping(_ reference: Reference) -> Bool {
            if case .storedProperty(let name) = reference.role,
                name == "tracker" || name.hasPrefix("tracker.")
            {
                return true
            }
            return declared.node(reference.to)?.isRoot ?? false
                || graphNodes.contains(reference.to)
        }
        let kept = collapsingLockBoxes(
            result.references.filter { !isBookkeeping($0) }, nodes: result.nodes)
        var outgoing: [ObjectID: [Reference]] = [:]
        for reference in kept { outgoing[reference.from, default: []].append(reference) }
        var reached = Set(result.rootIDs)
        var queue = result.rootIDs
        while let id = queue.popLast() {
            for reference in outgoing[id] ?? [] where reached.insert(reference.to).inserted {
                queue.append(reference.to)
            }
        }
        return WalkResult(
            nodes: result.nodes.filter { reached.contains($0.id) },
            references: kept.filter { reached.contains($0.from) },
            diagnostics: result.diagnostics, rootIDs: result.rootIDs,
            objectsRead: result.objectsRead, isComplete: result.isComplete)
    }

    /// Replaces each path through a library lock box (`Locking.LockStorage<…>`, the buffer
    /// behind a `Locked` value: the thread-safe state of an instrumented timer) by one
    /// reference that skips it, so reports read `DispatchTimer ⇒ .state.action ⇒ closure`
    /// rather than naming the box. A path through a box back to its holder is dropped.
    ///
    /// - Parameters:
    ///   - references: Discovered references.
    ///   - nodes: The discovered nodes, to recognise the boxes by type name.
    /// - Returns: The references with the boxes contracted away.
    static func collapsingLockBoxes(_ references: [Reference], nodes: [Node]) -> [Reference] {
        let boxPrefixes = ["Locking.LockStorage<", "Locking.Locked<"]
        let boxes = Set(
            nodes.filter { node in boxPrefixes.contains { node.typeName.hasPrefix($0) } }.map(\.id))
        guard !boxes.isEmpty else { return references }
        var leaving: [ObjectID: [Reference]] = [:]
        for reference in references where boxes.contains(reference.from) {
            leaving[reference.from, default: []].append(reference)
        }
        var result: [Reference] = []
        for reference in references where !boxes.contains(reference.from) {
            guard boxes.contains(reference.to) else {
                result.append(reference)
                continue
            }
            // A box that leads back to its own holder is the timer's bookkeeping: a scheduled
            // run-loop timer's lock box holds the timer (the run loop holding it), which the
            // declared `run loop ⇒ timer` reference already says.
            for inner in leaving[reference.to] ?? []
            where !boxes.contains(inner.to) && inner.to != reference.from {
                result.append(
                    Reference(
                        from: reference.from, to: inner.to,
                        kind: reference.kind == .strong ? inner.kind : reference.kind,
                        role: .storedProperty(name: joined(reference.role, inner.role)),
                        isDiscovered: true))
            }
        }
        return result
    }

    private static func joined(_ outer: ReferenceRole, _ inner: ReferenceRole) -> String {
        var head = outer.detail ?? outer.name
        var tail = inner.detail ?? inner.name
        // `Locked` is a handle whose `storage` is the box; the box keeps the value in its
        // `header` (`value` before `Locked` became a handle).
        if head.hasSuffix(".storage") { head.removeLast(".storage".count) }
        for prefix in ["header.", "value."] where tail.hasPrefix(prefix) {
            tail.removeFirst(prefix.count)
        }
        if tail == "header" || tail == "value" { return head }
        return inner.name == "capture" ? "\(head) captures \(tail)" : "\(head).\(tail)"
    }
}
