/// An immutable copy of the retain graph, indexed for analysis.
///
/// Take one from a ``LiveGraph`` with ``LiveGraph/snapshot()``, or build one from nodes and
/// references for a synthetic graph. Analysis never touches the live graph, so it never blocks
/// recording.
///
/// Internally, references are stored by holder in compressed sparse rows, so walking a node's
/// outgoing references costs O(out-degree) with no hashing.
public struct GraphSnapshot: Sendable {
    /// Every node, sorted by identity.
    public let nodes: [Node]
    /// Every reference whose two ends are in ``nodes``, grouped by holder.
    public let references: [Reference]

    /// For each node index, where its outgoing references start in ``references``;
    /// `rowStart[n]` is `references.count`.
    let rowStart: [Int32]
    /// For each reference, the index of the node it points to.
    let targetIndex: [Int32]

    /// Creates a snapshot of the given nodes and references.
    ///
    /// References naming a node that is not in `nodes` are dropped; if two nodes share an
    /// identity, the first is kept.
    ///
    /// - Complexity: O(*n* log *n* + *r* log *n*) for *n* nodes and *r* references.
    public init(nodes: [Node], references: [Reference]) {
        var sorted = nodes
        if !zip(sorted, sorted.dropFirst()).allSatisfy({ $0.id <= $1.id }) {
            sorted.sort { $0.id < $1.id }
        }
        var unique: [Node] = []
        unique.reserveCapacity(sorted.count)
        for node in sorted where unique.last?.id != node.id { unique.append(node) }
        self.nodes = unique

        // Resolve ends, then counting-sort references by holder.
        let ids = unique.map(\.id)
        var fromIndex: [Int32] = []
        var toIndex: [Int32] = []
        var kept: [Reference] = []
        fromIndex.reserveCapacity(references.count)
        toIndex.reserveCapacity(references.count)
        kept.reserveCapacity(references.count)
        for reference in references {
            guard let from = Self.search(ids, reference.from),
                let to = Self.search(ids, reference.to)
            else { continue }
            fromIndex.append(Int32(from))
            toIndex.append(Int32(to))
            kept.append(reference)
        }
        var start = [Int32](repeating: 0, count: unique.count + 1)
        for from in fromIndex { start[Int(from) + 1] += 1 }
        for index in 0..<unique.count { start[index + 1] += start[index] }
        var cursor = start
        var order = [Int](repeating: 0, count: kept.count)
        for (position, from) in fromIndex.enumerated() {
            order[Int(cursor[Int(from)])] = position
            cursor[Int(from)] += 1
        }
        self.references = order.map { kept[$0] }
        self.targetIndex = order.map { toIndex[$0] }
        self.rowStart = start
    }

    private static func search(_ ids: [ObjectID], _ id: ObjectID) -> Int? {
        var low = 0
        var high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == id ? low : nil
    }

    /// The position of a node in ``nodes``.
    ///
    /// - Complexity: O(log *n*).
    func index(of id: ObjectID) -> Int? {
        var low = 0
        var high = nodes.count
        while low < high {
            let middle = (low + high) / 2
            if nodes[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < nodes.count && nodes[low].id == id ? low : nil
    }

    /// The node with the given identity, if the snapshot has it.
    ///
    /// - Complexity: O(log *n*).
    public func node(_ id: ObjectID) -> Node? {
        index(of: id).map { nodes[$0] }
    }

    /// The references that `id` holds, of every kind.
    ///
    /// - Complexity: O(log *n* + out-degree).
    public func references(from id: ObjectID) -> ArraySlice<Reference> {
        guard let index = index(of: id) else { return [] }
        return references[Int(rowStart[index])..<Int(rowStart[index + 1])]
    }

    /// The references that point at `id`, of every kind.
    ///
    /// - Complexity: O(*r*).
    public func references(to id: ObjectID) -> [Reference] {
        references.filter { $0.to == id }
    }

    /// The roots of the graph.
    public var roots: [Node] { nodes.filter(\.isRoot) }

    /// A snapshot with `extra` references added, such as references discovered by inspecting
    /// memory.
    ///
    /// - Complexity: O((*n* + *r*) log *n*).
    public func adding(_ extra: [Reference]) -> GraphSnapshot {
        GraphSnapshot(nodes: nodes, references: references + extra)
    }

    /// A snapshot with `extraNodes` and `extraReferences` added.
    ///
    /// - Complexity: O((*n* + *r*) log *n*).
    public func adding(nodes extraNodes: [Node], references extraReferences: [Reference])
        -> GraphSnapshot
    {
        GraphSnapshot(nodes: nodes + extraNodes, references: references + extraReferences)
    }
}
