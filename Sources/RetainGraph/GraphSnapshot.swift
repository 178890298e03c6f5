/// An immutable copy of the retain graph, indexed for analysis.
///
/// Take one from a ``LiveGraph`` with ``LiveGraph/snapshot()``, or build one from nodes and
/// references for a synthetic graph. Analysis never touches the live graph, so it never blocks
/// recording.
///
/// ```swift
/// let snapshot = LiveGraph.shared.snapshot()
/// for cycle in snapshot.stronglyConnectedComponents().cycles { print(cycle) }
/// ```
///
/// Internally, references are stored by holder in compressed sparse rows, so walking a node's
/// outgoing references costs O(out-degree) with no hashing; a second, reverse index answers
/// ``references(to:)`` in O(in-degree). Identities are looked up in a direct table when they
/// are dense (as a ``LiveGraph``'s are).
public struct GraphSnapshot: Sendable {
    /// Every node, sorted by identity.
    public let nodes: [Node]
    /// Every reference whose two ends are in ``nodes``, grouped by holder.
    public let references: [Reference]

    /// Identity to position in ``nodes``.
    let nodeIndex: NodeIndex
    /// For each node index, where its outgoing references start in ``references``;
    /// `rowStart[n]` is `references.count`.
    let rowStart: [Int32]
    /// For each reference, the index of the node it points to if the reference is strong, else
    /// `-1`. Every algorithm here follows strong references only.
    let strongTarget: [Int32]
    /// For each node index, where its incoming references start in ``incoming``.
    let incomingStart: [Int32]
    /// Positions in ``references``, grouped by the node they point to.
    let incoming: [Int32]

    /// Creates a snapshot of the given nodes and references.
    ///
    /// References naming a node that is not in `nodes` are dropped; if two nodes share an
    /// identity, the first is kept.
    ///
    /// - Complexity: O(*n* + *r*) for *n* nodes with dense identities and *r* references;
    ///   O(*n* log *n* + *r* log *n*) when identities are sparse.
    public init(nodes: [Node], references: [Reference]) {
        let (index, order) = NodeIndex.build(nodes)
        self.nodeIndex = index
        // Nodes from a live graph arrive sorted already: then the array is shared, not copied.
        self.nodes = order.indices.elementsEqual(order) ? nodes : order.map { nodes[$0] }
        let nodeCount = order.count

        // Resolve both ends, then counting-sort references by holder (and, for the reverse
        // index, by target).
        var fromIndex = [Int32](repeating: -1, count: references.count)
        var toIndex = [Int32](repeating: -1, count: references.count)
        var start = [Int32](repeating: 0, count: nodeCount + 1)
        var inStart = [Int32](repeating: 0, count: nodeCount + 1)
        var kept = 0
        for (position, reference) in references.enumerated() {
            guard let from = index.position(of: reference.from),
                let to = index.position(of: reference.to)
            else { continue }
            fromIndex[position] = Int32(from)
            toIndex[position] = Int32(to)
            start[from + 1] += 1
            inStart[to + 1] += 1
            kept += 1
        }
        for node in 0..<nodeCount {
            start[node + 1] += start[node]
            inStart[node + 1] += inStart[node]
        }
        var cursor = start
        var targetOfSlot = [Int32](repeating: 0, count: kept)
        var strongTarget = [Int32](repeating: -1, count: kept)
        self.references = [Reference](unsafeUninitializedCapacity: kept) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress else { return }
            for (position, reference) in references.enumerated() where fromIndex[position] >= 0 {
                let from = Int(fromIndex[position])
                let slot = Int(cursor[from])
                cursor[from] += 1
                (base + slot).initialize(to: reference)
                targetOfSlot[slot] = toIndex[position]
                if reference.kind == .strong { strongTarget[slot] = toIndex[position] }
            }
            count = kept
        }
        // Reverse index: positions grouped by target, in holder order within each group.
        var inCursor = inStart
        var incoming = [Int32](repeating: 0, count: kept)
        for slot in 0..<kept {
            let to = Int(targetOfSlot[slot])
            incoming[Int(inCursor[to])] = Int32(slot)
            inCursor[to] += 1
        }
        self.rowStart = start
        self.strongTarget = strongTarget
        self.incomingStart = inStart
        self.incoming = incoming
    }

    /// The position of a node in ``nodes``.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    func index(of id: ObjectID) -> Int? {
        nodeIndex.position(of: id)
    }

    /// The node with the given identity, if the snapshot has it.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    public func node(_ id: ObjectID) -> Node? {
        index(of: id).map { nodes[$0] }
    }

    /// The references that `id` holds, of every kind.
    ///
    /// - Complexity: O(out-degree), plus O(log *n*) when identities are sparse.
    public func references(from id: ObjectID) -> ArraySlice<Reference> {
        guard let index = index(of: id) else { return [] }
        return references[Int(rowStart[index])..<Int(rowStart[index + 1])]
    }

    /// The references that point at `id`, of every kind, grouped by holder.
    ///
    /// - Complexity: O(in-degree), plus O(log *n*) when identities are sparse.
    public func references(to id: ObjectID) -> [Reference] {
        guard let index = index(of: id) else { return [] }
        return incoming[Int(incomingStart[index])..<Int(incomingStart[index + 1])].map {
            references[Int($0)]
        }
    }

    /// The roots of the graph.
    public var roots: [Node] { nodes.filter(\.isRoot) }

    /// A snapshot with `extra` references added, such as references discovered by inspecting
    /// memory.
    ///
    /// - Complexity: O(*n* + *r*) (see ``init(nodes:references:)``).
    public func adding(_ extra: [Reference]) -> GraphSnapshot {
        GraphSnapshot(nodes: nodes, references: references + extra)
    }

    /// A snapshot with `extraNodes` and `extraReferences` added.
    ///
    /// - Complexity: O(*n* + *r*) (see ``init(nodes:references:)``).
    public func adding(nodes extraNodes: [Node], references extraReferences: [Reference])
        -> GraphSnapshot
    {
        GraphSnapshot(nodes: nodes + extraNodes, references: references + extraReferences)
    }
}
