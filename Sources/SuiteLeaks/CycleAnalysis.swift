import HeapCensus
import ObjectGraph

/// Finds the leaked cycles of one census snapshot (see ``LeakedCycles`` for what qualifies),
/// with the graph's own analyses only: its path tree for what roots hold, its strongly connected
/// components for the cycles, and both again (``/ObjectGraph/CompactGraph/paths()``,
/// ``/ObjectGraph/CompactGraph/dominatorTree()``) on two small graphs made of the objects no
/// root holds.
struct CycleAnalysis {
    let heap: HeapSnapshot
    let graph: CompactGraph

    init(heap: HeapSnapshot) {
        self.heap = heap
        graph = heap.graph
    }

    /// The leaked cycles, grouped by shape, by retained bytes (largest first).
    mutating func groups() -> [CycleGroup] {
        let unheld = objectsNoRootHolds()
        guard !unheld.nodes.isEmpty else { return [] }
        let leaked = leakedObjects(unheld)
        guard leaked.contains(true) else { return [] }
        let components = graph.strongComponents()
        var cycles: [[CompactGraph.NodeID]] = []
        for component in components.cycles {
            let members = Array(components.members(of: component))
            guard let first = members.first, Int(first) < heap.objectCount else { continue }
            let position = unheld.position[Int(first)]
            if position >= 0, leaked[Int(position)] { cycles.append(members) }
        }
        guard !cycles.isEmpty else { return [] }
        let retained = retainedBytes(of: cycles, unheld: unheld, leaked: leaked)
        var builder = GroupBuilder(heap: heap, components: components)
        for (index, members) in cycles.enumerated() {
            builder.add(members, retainedBytes: retained[index])
        }
        return builder.groups()
    }

    /// The objects no root holds through retaining references, and each one's position among
    /// them (-1 for the others).
    struct Unheld {
        var nodes: [CompactGraph.NodeID] = []
        var position: [Int32]
    }

    private func objectsNoRootHolds() -> Unheld {
        let tree = graph.paths()
        var unheld = Unheld(position: [Int32](repeating: -1, count: heap.objectCount))
        for node in 0..<heap.objectCount where !tree.isReachable(CompactGraph.NodeID(node)) {
            unheld.position[node] = Int32(unheld.nodes.count)
            unheld.nodes.append(CompactGraph.NodeID(node))
        }
        return unheld
    }

    /// For each object no root holds, whether it is leaked for certain: no reference of any
    /// kind reaches it from an object a root holds or from an object whose counts the heap
    /// does not explain.
    ///
    /// The question is the path tree's, on a graph of the unheld objects with every reference
    /// among them (weak and unowned ones too, as strong), and one root holding each object that
    /// a held object references or whose counts are unexplained.
    private func leakedObjects(_ unheld: Unheld) -> [Bool] {
        var builder = CompactGraph.Builder(
            expectedNodes: unheld.nodes.count + 1, expectedEdges: 2 * unheld.nodes.count)
        let type = builder.intern("object")
        for _ in unheld.nodes { builder.addNode(kind: .object, typeNameNumber: type) }
        let root = builder.addNode(kind: .root, typeName: "revival")
        builder.addRoot(root, kind: .process)
        for (index, node) in unheld.nodes.enumerated() {
            let to = CompactGraph.NodeID(index)
            var strong = 0
            var weak = 0
            var unowned = 0
            for step in graph.incoming(to: node) {
                switch graph.ownership(ofEdge: step.edge) {
                case .strong, .conservative: strong += 1
                case .weak: weak += 1
                case .unowned: unowned += 1
                case .unownedUnsafe: break
                }
                let from = Int(step.from) < heap.objectCount ? unheld.position[Int(step.from)] : -1
                if from >= 0 {
                    builder.addEdge(from: CompactGraph.NodeID(from), to: to, ownership: .strong)
                } else {
                    builder.addEdge(from: root, to: to, ownership: .strong)
                }
            }
            if !countsAreExplained(node, strong: strong, weak: weak, unowned: unowned) {
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

    /// Whether the object's counts, read in the snapshot and now, are exactly the references
    /// the heap holds to it.
    private func countsAreExplained(
        _ node: CompactGraph.NodeID, strong: Int, weak: Int, unowned: Int
    ) -> Bool {
        let record = heap[HeapObjectID(rawValue: Int32(node))]
        guard record.retainCount == strong, record.outsideReferences == 0,
            let now = HeapCensus.referenceCounts(ofObjectAt: record.address)
        else { return false }
        return now.strong == strong && now.weak == weak && now.unowned == unowned
    }

    /// The bytes each cycle keeps alive: the retained size of a root holding its members, in
    /// the dominator tree of the leaked objects where a cycle's members are held by their root
    /// alone (a cycle another cycle holds still counts its own objects), so an object two
    /// cycles hold counts for neither, and every object for one cycle at most.
    private func retainedBytes(
        of cycles: [[CompactGraph.NodeID]], unheld: Unheld, leaked: [Bool]
    ) -> [UInt64] {
        var builder = CompactGraph.Builder(expectedNodes: unheld.nodes.count + cycles.count)
        let type = builder.intern("object")
        for node in unheld.nodes {
            builder.addNode(kind: .object, typeNameNumber: type, size: graph.size(of: node))
        }
        var cycleOf = [Int](repeating: -1, count: unheld.nodes.count)
        for (index, members) in cycles.enumerated() {
            for member in members { cycleOf[Int(unheld.position[Int(member)])] = index }
        }
        for (index, node) in unheld.nodes.enumerated() where leaked[index] {
            // Retaining edges come first in a node's row.
            for edge in graph.strongOutEdges(of: node) {
                let target = graph.target(of: CompactGraph.EdgeID(edge))
                guard Int(target) < heap.objectCount else { continue }
                let position = unheld.position[Int(target)]
                guard position >= 0, leaked[Int(position)] else { continue }
                let targetCycle = cycleOf[Int(position)]
                guard targetCycle < 0 || targetCycle == cycleOf[index] else { continue }
                builder.addEdge(
                    from: CompactGraph.NodeID(index), to: CompactGraph.NodeID(position),
                    ownership: .strong)
            }
        }
        var roots: [CompactGraph.NodeID] = []
        for members in cycles {
            let root = builder.addNode(kind: .root, typeName: "cycle")
            builder.addRoot(root, kind: .process)
            roots.append(root)
            for member in members {
                builder.addEdge(
                    from: root, to: CompactGraph.NodeID(unheld.position[Int(member)]),
                    ownership: .strong)
            }
        }
        let retaining = builder.build(numberingForLocality: false)
        let tree = retaining.dominatorTree()
        return roots.map { tree.retainedSize(of: retaining.node(added: $0)) }
    }
}
