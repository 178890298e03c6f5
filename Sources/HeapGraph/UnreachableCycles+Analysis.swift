import ObjectGraph

/// Finds the unreachable cycles of one snapshot (see ``UnreachableCycles`` for what
/// qualifies), with the graph's own analyses only: the heap's path tree for what holders reach,
/// then, on small graphs of the objects no holder reaches, strongly connected components for
/// the cycles, the path tree again for what a weak or unowned reference or an unexplained count
/// can revive, and the dominator tree for retained bytes.
///
/// Only the path tree looks at the whole heap (once per snapshot, shared with every other
/// question about it); everything after it is in proportion to the objects no holder reaches.
struct CycleFinder {
    let heap: HeapSnapshot
    let graph: CompactGraph
    /// Reads an object's counts now, in a process that still holds it (the census's); nil for a
    /// heap read from outside, whose counts are the snapshot's alone.
    let liveCounts: UnreachableCycles.LiveCounts?

    init(heap: HeapSnapshot, liveCounts: UnreachableCycles.LiveCounts?) {
        self.heap = heap
        graph = heap.graph
        self.liveCounts = liveCounts
    }

    /// The objects no holder reaches through retaining references, as a graph of their own:
    /// node `i` is heap node `nodes[i]`; each edge between two of them keeps its ownership, and
    /// its tag is its edge in the heap's graph (for its role).
    struct Unheld {
        var nodes: [CompactGraph.NodeID] = []
        /// Each heap object's node in ``graph``, -1 for the others.
        var position: [Int32]
        var graph = CompactGraph.Builder().build()
    }

    /// The objects no holder reaches, their components, and the unreachable cycles (as nodes of
    /// the unheld objects' graph), each with the bytes it keeps alive; nil when there is none.
    func cycles(retainedBytes: Bool = true) -> (
        unheld: Unheld, components: CompactGraph.Components,
        cycles: [(members: [CompactGraph.NodeID], retainedBytes: UInt64)]
    )? {
        let unheld = objectsNoHolderReaches()
        guard !unheld.nodes.isEmpty else { return nil }
        let leaked = leakedObjects(unheld)
        guard leaked.contains(true) else { return nil }
        let components = unheld.graph.strongComponents()
        var cycles: [[CompactGraph.NodeID]] = []
        for component in components.cycles {
            let members = Array(components.members(of: component))
            if let first = members.first, leaked[Int(first)] { cycles.append(members) }
        }
        guard !cycles.isEmpty else { return nil }
        let retained =
            retainedBytes
            ? self.retainedBytes(of: cycles, unheld: unheld, leaked: leaked)
            : [UInt64](repeating: 0, count: cycles.count)
        return (unheld, components, Array(zip(cycles, retained).map { ($0, $1) }))
    }

    /// The objects no holder reaches, and those it reaches only through a word of a task's
    /// memory (which ``leakedObjects(_:)`` weighs against the object's counts).
    private func objectsNoHolderReaches() -> Unheld {
        let tree = graph.paths()
        var unheld = Unheld(position: [Int32](repeating: -1, count: heap.objectCount))
        for node in 0..<heap.objectCount {
            let node = CompactGraph.NodeID(node)
            guard !tree.isReachable(node) || tree.priority(of: node) == .taskMemory else {
                continue
            }
            unheld.position[Int(node)] = Int32(unheld.nodes.count)
            unheld.nodes.append(node)
        }
        var builder = CompactGraph.Builder(
            expectedNodes: unheld.nodes.count, expectedEdges: 2 * unheld.nodes.count)
        let type = builder.intern("object")
        for node in unheld.nodes {
            builder.addNode(kind: .object, typeNameNumber: type, size: graph.size(of: node))
        }
        for (index, node) in unheld.nodes.enumerated() {
            for edge in graph.outEdges(of: node) {
                let target = graph.target(of: CompactGraph.EdgeID(edge))
                guard Int(target) < heap.objectCount, unheld.position[Int(target)] >= 0 else {
                    continue
                }
                builder.addEdge(
                    from: CompactGraph.NodeID(index),
                    to: CompactGraph.NodeID(unheld.position[Int(target)]),
                    ownership: graph.ownership(ofEdge: CompactGraph.EdgeID(edge)),
                    tag: UInt32(edge))
            }
        }
        unheld.graph = builder.build(numberingForLocality: false)
        return unheld
    }

    /// For each object no holder reaches, whether it is leaked for certain: no reference of any
    /// kind reaches it from an object a holder reaches or from an object whose counts the heap
    /// does not explain.
    ///
    /// The question is the path tree's, on a graph of the unheld objects with every reference
    /// among them (weak and unowned ones too, as strong), and one root holding each object that
    /// a held object references or whose counts are unexplained.
    ///
    /// A word of a task's memory that equals an object's address may be a reference an async
    /// frame keeps, or a stale copy in bytes the runtime never wrote (malloc handed the task a
    /// block a freed array of the program filled). The object's counts tell them apart where
    /// they were read: when the other references alone explain them, the words hold no count
    /// and revive nothing; otherwise the object is revived as any whose counts are unexplained.
    /// Without counts (a saved file), such a word revives the object.
    private func leakedObjects(_ unheld: Unheld) -> [Bool] {
        var builder = CompactGraph.Builder(
            expectedNodes: unheld.nodes.count + 1, expectedEdges: 2 * unheld.nodes.count)
        let type = builder.intern("object")
        for _ in unheld.nodes { builder.addNode(kind: .object, typeNameNumber: type) }
        let root = builder.addNode(kind: .root, typeName: "revival")
        builder.addRoot(root, kind: .process)
        let countsWereRead = liveCounts != nil || !heap.retainCounts.isEmpty
        for (index, node) in unheld.nodes.enumerated() {
            let to = CompactGraph.NodeID(index)
            var strong = 0
            var weak = 0
            var unowned = 0
            var fromTaskMemory = false
            for step in graph.incoming(to: node) {
                switch graph.ownership(ofEdge: step.edge) {
                case .strong: strong += 1
                case .conservative where graph.role(ofEdge: step.edge) == .runs:
                    // Counted by neither the counts nor the graph: see above.
                    fromTaskMemory = true
                    continue
                case .conservative: strong += 1
                case .weak: weak += 1
                case .unowned: unowned += 1
                case .unownedUnsafe: break
                }
                let from = Int(step.from) < heap.objectCount ? unheld.position[Int(step.from)] : -1
                builder.addEdge(
                    from: from >= 0 ? CompactGraph.NodeID(from) : root, to: to, ownership: .strong)
            }
            let counts = ReferenceCounts(strong: strong, unowned: unowned, weak: weak)
            if !countsAreExplained(node, counts) || (fromTaskMemory && !countsWereRead) {
                builder.addEdge(from: root, to: to, ownership: .strong)
            }
        }
        let reviving = builder.build(numberingForLocality: false)
        let revivable = reviving.paths()
        var leaked = [Bool](repeating: false, count: unheld.nodes.count)
        for index in leaked.indices {
            leaked[index] = !revivable.isReachable(reviving.node(added: CompactGraph.NodeID(index)))
        }
        return leaked
    }

    /// Whether the object's counts are exactly the references the heap holds to it: its strong
    /// retain count as read (a saved file keeps none: its holders were found when it was read),
    /// and, with ``liveCounts``, its strong, weak and unowned counts now.
    private func countsAreExplained(_ node: CompactGraph.NodeID, _ counts: ReferenceCounts)
        -> Bool
    {
        if liveCounts == nil, heap.retainCounts.isEmpty { return true }
        let record = heap[HeapObjectID(rawValue: Int32(node))]
        guard record.retainCount == counts.strong, record.outsideReferences == 0 else {
            return false
        }
        guard let liveCounts else { return true }
        return liveCounts(record.address) == counts
    }

    /// The bytes each cycle keeps alive: the retained size of a root holding its members, in
    /// the dominator tree of the leaked objects where a cycle's members are held by their root
    /// alone (a cycle another cycle holds still counts its own objects), so an object two
    /// cycles hold counts for neither, and every object for one cycle at most.
    private func retainedBytes(
        of cycles: [[CompactGraph.NodeID]], unheld: Unheld, leaked: [Bool]
    ) -> [UInt64] {
        let local = unheld.graph
        var builder = CompactGraph.Builder(expectedNodes: unheld.nodes.count + cycles.count)
        let type = builder.intern("object")
        for node in 0..<local.nodeCount {
            builder.addNode(
                kind: .object, typeNameNumber: type,
                size: local.size(of: CompactGraph.NodeID(node)))
        }
        var cycleOf = [Int](repeating: -1, count: local.nodeCount)
        for (index, members) in cycles.enumerated() {
            for member in members { cycleOf[Int(member)] = index }
        }
        for node in 0..<local.nodeCount where leaked[node] {
            // Retaining edges come first in a node's row.
            for edge in local.strongOutEdges(of: CompactGraph.NodeID(node)) {
                let target = Int(local.target(of: CompactGraph.EdgeID(edge)))
                guard leaked[target], cycleOf[target] < 0 || cycleOf[target] == cycleOf[node]
                else { continue }
                builder.addEdge(
                    from: CompactGraph.NodeID(node), to: CompactGraph.NodeID(target),
                    ownership: .strong)
            }
        }
        var roots: [CompactGraph.NodeID] = []
        for members in cycles {
            let root = builder.addNode(kind: .root, typeName: "cycle")
            builder.addRoot(root, kind: .process)
            roots.append(root)
            for member in members {
                builder.addEdge(from: root, to: member, ownership: .strong)
            }
        }
        let retaining = builder.build(numberingForLocality: false)
        let tree = retaining.dominatorTree()
        return roots.map { tree.retainedSize(of: retaining.node(added: $0)) }
    }
}
