import HeapGraph
import RetainGraph

/// Explains watched objects with the heap census: the reference discoverer that
/// ``HeapCensus/start()`` registers in `DiscoveryRegistry.shared`, so every `LeakWatcher` (the
/// Swift Testing trait and the XCTest helper included) uses it with no setup.
///
/// For each watched object still alive that the census knows, it adds what holds it in the
/// whole heap: the path the project's path finder chooses from a holder outside the heap (a
/// global variable, a `Task`, a `Foundation.Timer`, a block libdispatch keeps, or references
/// from outside the heap), and when nothing outside holds it, the strong cycle it sits in.
/// When only references nothing names or a word of a task's memory reach it, the cycle is
/// added beside the path; and when that word is stale (the object's counts say it holds
/// nothing), the cycle alone explains the object.
/// Every reference keeps its role and ownership and is marked found in the heap; objects the
/// live graph knows keep their identities, so the path joins what the graph and reflection
/// recorded. Paths from the census's holders rank below paths from roots the program declared
/// (``/ObjectGraph/PathPriority``), so a report keeps its declared path when there is one.
///
/// ```swift
/// HeapCensus.start()                         // registers this discoverer
/// let watcher = LeakWatcher()                // uses it at every check
/// ```
public struct CensusDiscoverer: ReferenceDiscoverer {
    /// The name it is registered under.
    public static let name = "HeapCensus"

    /// Creates a discoverer; the census must be running for it to find anything.
    public init() {}

    /// Adds, for each watched object, the census's path from its holder, and its strong cycle
    /// when nothing names the holder (references from outside the heap), only a word of a
    /// task's memory reaches it (without the path when the word is stale), or no holder
    /// reaches it; hands the whole heap to the check
    /// (``/RetainGraph/GraphSnapshot/Builder/discoveredHeap``), so that its reports say what
    /// each leaked object retains.
    ///
    /// - Parameters:
    ///   - additions: What the check's discoverers found so far.
    ///   - request: The watched objects still alive.
    /// - Complexity: One census snapshot and one path search of it (O(*n* + *r*) for *n* live
    ///   objects holding *r* references, for all the watched objects at once), then each
    ///   watched object's path; the heap's components only when some watched object has no
    ///   holder.
    public func discoverReferences(
        into additions: inout GraphSnapshot.Builder, for request: DiscoveryRequest
    ) {
        guard HeapCensus.isRunning || HeapCensus.liveObjectCount > 0, !request.watched.isEmpty
        else { return }
        let heap = HeapCensus.snapshot()
        // The request's own array holds every watched object: never a holder worth naming.
        let requestStorage = request.watched.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { heap.storageID(ofElementsAt: UInt(bitPattern: $0)) }
        }
        let tree = heap.paths(ignoring: requestStorage.map { [$0] } ?? [])
        var joining = Joining(heap: heap, request: request)
        var components: CompactGraph.Components?
        var watchedNodes: [ObjectID: CompactGraph.NodeID] = [:]
        defer {
            // The whole heap, for what the check's reports say each object retains.
            additions.discoveredHeap = DiscoveredHeap(
                graph: heap.graph, nodes: watchedNodes, snapshot: heap)
        }
        for watched in request.watched {
            guard let target = heap.id(of: watched.object) else { continue }
            let node = CompactGraph.NodeID(target.rawValue)
            joining.identities[node] = watched.id
            watchedNodes[watched.id] = node
            // The watched object's own node carries where it was made too (its data stays the
            // live graph's; the check's builder fills the missing trace).
            if let trace = heap.creationTrace(of: target) ?? heap.creationSite(of: target)?.trace {
                additions.addNode(
                    id: watched.id, typeName: heap.graph.typeName(of: node), creationTrace: trace)
            }
            let path = tree.path(to: node) ?? []
            // A named holder explains the leak, unless its path passes through a stale word (of
            // a task's memory, or read conservatively) that the counts say holds nothing;
            // references nothing names do not, nor does a word of a task's memory (maybe
            // stale), so the object's cycle, when it is in one, is added too.
            let priority = tree.priority(of: node)
            let stale = !path.isEmpty && heap.passesThroughStaleWord(path)
            if !path.isEmpty, priority < .unattributed, !stale {
                joining.add(path, to: &additions)
                continue
            }
            if components == nil { components = heap.graph.strongComponents() }
            let cycle = heap.graph.cycle(through: node, components: components)
            // A stale word names a holder that holds nothing: the cycle alone explains the
            // object (without one, the path is still the best account found).
            if !path.isEmpty, cycle == nil || !stale {
                joining.add(path, to: &additions)
            }
            if let cycle { joining.add(cycle, to: &additions) }
        }
    }
}

/// The census's nodes joined to the check's identities, added to its builder once each.
private struct Joining {
    let heap: HeapSnapshot
    let request: DiscoveryRequest
    /// Identities given to heap nodes (objects and holders).
    var identities: [CompactGraph.NodeID: ObjectID] = [:]
    /// Root nodes made for holders, by description (one per holder and count of references).
    var roots: [String: ObjectID] = [:]

    init(heap: HeapSnapshot, request: DiscoveryRequest) {
        self.heap = heap
        self.request = request
    }

    /// Adds the references of `steps` (a path or a cycle of the heap's graph) and the nodes
    /// they join.
    mutating func add(_ steps: [CompactGraph.Step], to additions: inout GraphSnapshot.Builder) {
        let graph = heap.graph
        for step in steps {
            let from = identity(of: step.from, holding: Int(step.to), in: &additions)
            let to = identity(of: step.to, holding: Int(step.to), in: &additions)
            additions.addReference(
                from: from, to: to, ownership: graph.ownership(ofEdge: step.edge),
                role: graph.role(ofEdge: step.edge), origin: .heap,
                isLowPriority: graph.isLowPriority(step.edge))
        }
    }

    /// The identity of heap node `node`, adding its node on first sight: the live graph's
    /// identity for an object it knows, a shared one for other objects, and a root for a
    /// holder (named after what it holds: `object`, for the count of references from outside).
    private mutating func identity(
        of node: CompactGraph.NodeID, holding object: Int, in additions: inout GraphSnapshot.Builder
    ) -> ObjectID {
        let graph = heap.graph
        if heap.isObject(node) {
            if let known = identities[node] { return known }
            let id =
                heap.liveObject(HeapObjectID(rawValue: Int32(node))).map(request.id(of:))
                ?? ObjectID.nextDiscovered()
            let kind: NodeKind
            switch graph.kind(of: node) {
            case .closure: kind = .closure
            case .timer: kind = .timer
            default: kind = .object
            }
            // Where it was made: a full trace when the user asked for one, else the census's
            // creation site (the allocating initializer's caller and its caller).
            let heapID = HeapObjectID(rawValue: Int32(node))
            let trace = heap.creationTrace(of: heapID) ?? heap.creationSite(of: heapID)?.trace
            additions.addNode(
                id: id, typeName: graph.typeName(of: node), kind: kind,
                address: graph.address(of: node), size: graph.size(of: node),
                creationTrace: trace)
            identities[node] = id
            return id
        }
        let holder = heap.holder(at: node, of: object)
        let description = holder.description
        if let known = roots[description] { return known }
        let id = ObjectID.nextDiscovered()
        // The root's type name is what fingerprints see: the kind of holder, and a global
        // variable's name (two caches leaking the same type are two leaks).
        let typeName: String
        if case .globalVariable(let name) = holder {
            typeName = "global variable \(name)"
        } else {
            typeName = holder.kind.rawValue
        }
        additions.addNode(
            id: id, typeName: typeName,
            kind: .root(.heapHolder(holder)))
        roots[description] = id
        return id
    }
}
