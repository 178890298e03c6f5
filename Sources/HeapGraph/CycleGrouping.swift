import ObjectGraph
import RetainGraphUtilities

/// Sorts unreachable cycles into groups of one shape (``UnreachableCycles/Group``): the
/// references of their shortest loop (holder type, ownership, role), whatever their rotation,
/// and every type of the cycle.
struct CycleGrouping {
    let heap: HeapSnapshot
    /// The objects no holder reaches, as a graph of their own.
    let unheld: CycleFinder.Unheld
    let components: CompactGraph.Components
    private var order: [String] = []
    private var shapes: [String: [UnreachableCycles.Cycle]] = [:]
    /// Names of anonymous closure contexts, by node (see ``name(of:within:)``).
    private var contextNames: [CompactGraph.NodeID: String] = [:]

    init(heap: HeapSnapshot, unheld: CycleFinder.Unheld, components: CompactGraph.Components) {
        self.heap = heap
        self.unheld = unheld
        self.components = components
    }

    /// Adds one cycle (a component's members, as nodes of the unheld objects' graph).
    mutating func add(_ localMembers: [CompactGraph.NodeID], retainedBytes: UInt64) {
        let graph = heap.graph
        let members = localMembers.map { unheld.nodes[Int($0)] }
        let memberSet = Set(members)
        let names = members.map { name(of: $0, within: memberSet) }
        // The shortest cycle through the member whose type name sorts first: the whole cycle
        // for a simple one, the same shape whichever member a search starts from.
        guard let first = names.indices.min(by: { names[$0] < names[$1] }),
            let localSteps = unheld.graph.cycle(
                through: localMembers[first], components: components)
        else { return }
        // The cycle's steps in the heap's graph (an edge's tag is its heap edge).
        let steps = localSteps.map { step in
            CompactGraph.Step(
                from: unheld.nodes[Int(step.from)],
                edge: unheld.graph.tag(ofEdge: step.edge),
                to: unheld.nodes[Int(step.to)])
        }
        let types = Set(names).sorted()
        let key =
            steps.map { step in
                let holder = name(of: step.from, within: memberSet)
                return "\(holder)\u{1}\(graph.ownership(ofEdge: step.edge))\u{1}"
                    + graph.role(ofEdge: step.edge).description
            }.sorted().joined(separator: "\u{2}") + "\u{3}" + types.joined(separator: "\u{2}")
        let objects = zip(members, names).map { node, name in
            (node: node, address: graph.address(of: node) ?? 0, name: name)
        }.sorted { $0.address < $1.address }
        let cycle = UnreachableCycles.Cycle(
            objects: objects.map { HeapObjectID(rawValue: Int32($0.node)) },
            addresses: objects.map(\.address),
            typeNames: objects.map(\.name),
            bytes: objects.reduce(0) { $0 + graph.size(of: $1.node) },
            retainedBytes: retainedBytes, loop: steps)
        if shapes[key] == nil { order.append(key) }
        shapes[key, default: []].append(cycle)
    }

    /// The groups, in the order their shapes were first met.
    mutating func groups() -> [UnreachableCycles.Group] {
        order.compactMap { key in
            guard let cycles = shapes[key], let first = cycles.first else { return nil }
            // The sample: the first cycle's loop in its canonical rotation.
            let holders = first.loop.map { name(of: $0.from) }
            let start = CycleRotation.canonicalStart(
                keys: zip(first.loop, holders).map { step, holder in
                    "\(holder)\u{1}\(heap.graph.role(ofEdge: step.edge).description)"
                }, identities: Array(first.loop.indices))
            let loop = Array(first.loop[start...] + first.loop[..<start])
            let sampleNames = Array(holders[start...] + holders[..<start])
            var types = sampleNames.reduce(into: [String]()) { names, name in
                if !names.contains(name) { names.append(name) }
            }
            types += Set(first.typeNames).sorted().filter { !types.contains($0) }
            return UnreachableCycles.Group(
                sample: loop.map(heap.reference), sampleTypeNames: sampleNames, types: types,
                cycles: cycles, shapeKey: key)
        }
    }

    /// A node's type name; for a closure context whose captures the layout could not name,
    /// `closure context (captures A, B)` after the types it holds in its cycle (`cycle`, its
    /// members; a context's undecoded words can also point at unrelated objects, stale copies
    /// read conservatively).
    private mutating func name(
        of node: CompactGraph.NodeID, within cycle: Set<CompactGraph.NodeID>? = nil
    ) -> String {
        let graph = heap.graph
        let typeName = graph.typeName(of: node)
        guard typeName == "closure context" else { return typeName }
        if let known = contextNames[node] { return known }
        var captured: [String] = []
        for edge in graph.strongOutEdges(of: node) {
            let target = graph.target(of: CompactGraph.EdgeID(edge))
            guard cycle?.contains(target) ?? true else { continue }
            let name = TypeNames.withoutModule(graph.typeName(of: target))
            if !captured.contains(name) { captured.append(name) }
        }
        let named =
            captured.isEmpty
            ? typeName : "closure context (captures \(captured.sorted().joined(separator: ", ")))"
        contextNames[node] = named
        return named
    }
}
