/// A reference graph stored in flat arrays: millions of nodes, no allocation per node.
///
/// Nodes are dense numbers (`0..<nodeCount`), renumbered when the graph is built so that nodes
/// reached one after the other from the roots sit next to each other in memory. Each node has a
/// ``NodeKind``, an interned type name, an interned label, an optional address and a caller's
/// key (such as an ``ObjectID``'s raw value). Edges are stored in compressed sparse rows by
/// holder (out-edges, strong ones first); the rows by target (in-edges, strong ones first) are
/// built the first time a question needs them. Both "what does X hold" and "who holds X" then
/// cost O(degree) with no hashing. Each edge has an
/// ``EdgeKind``, an interned label (a property name, `captures self`) and a "discovered" flag.
///
/// Build one with ``Builder``; analyse it with ``strongComponents()``, ``rootPaths()``,
/// ``strongPathFromRoot(to:)`` and ``cycle(through:components:)``.
///
/// ```swift
/// var builder = CompactGraph.Builder()
/// let queue = builder.addNode(kind: .root, typeName: "main queue")
/// let owner = builder.addNode(kind: .object, typeName: "App.Owner")
/// builder.addRoot(queue, name: "dispatch queue \"main\"")
/// builder.addEdge(from: queue, to: owner, kind: .strong, label: "handler")
/// let graph = builder.build()
/// let path = graph.strongPathFromRoot(to: graph.node(added: owner))
/// ```
///
/// Node and edge numbers are 32-bit: a graph holds fewer than 2³² − 2 of each. Accessors take
/// numbers the graph gave out (below ``nodeCount`` and ``edgeCount``), like array subscripts.
///
/// Memory: 37 bytes per node and 9 bytes per edge (plus 4 per edge when edge tags are given),
/// plus the distinct strings; the in-edge rows add 8 bytes per node and 8 per edge once a
/// "who holds it" question has built them.
public struct CompactGraph: Sendable {
    /// A node's number: `0..<nodeCount`.
    public typealias NodeID = UInt32
    /// An edge's position in the out-edge arrays: `0..<edgeCount`.
    public typealias EdgeID = UInt32

    // Nodes, by number.
    let kinds: [NodeKind]
    let typeNames: [UInt32]
    let labels: [UInt32]
    let addresses: [UInt]
    let keys: [UInt64]
    /// For each node as added to the builder, its number in the graph; empty when every node
    /// kept its number.
    let numberOfAdded: [NodeID]
    /// Roots by ascending number, with their names.
    let rootNodes: [NodeID]
    let rootNames: [UInt32]

    // Out-edges, grouped by holder; in each group the strong edges come first.
    let outStart: [UInt32]
    let strongOutEnd: [UInt32]
    let targets: [NodeID]
    /// Bits 0–5: the ``EdgeKind``; bit 6: found in the heap (by a census); bit 7: discovered.
    let edgeFlags: [UInt8]
    let edgeLabels: [UInt32]
    /// A caller's number per edge (empty when none was given).
    let edgeTags: [UInt32]

    /// In-edges, grouped by target, strong ones first: built on first use.
    let inEdgeIndex: InEdgeIndex

    /// The type names, labels and root names, by number.
    public let strings: InternedStrings

    /// The number of nodes.
    public var nodeCount: Int { kinds.count }
    /// The number of edges.
    public var edgeCount: Int { targets.count }

    /// The number a node got in the graph, given the number ``Builder/addNode(kind:typeName:label:address:key:)``
    /// returned for it.
    ///
    /// - Complexity: O(1).
    public func node(added: NodeID) -> NodeID {
        numberOfAdded.isEmpty ? added : numberOfAdded[Int(added)]
    }

    /// The same graph without edge tags.
    func droppingEdgeTags() -> CompactGraph {
        guard !edgeTags.isEmpty else { return self }
        return CompactGraph(
            kinds: kinds, typeNames: typeNames, labels: labels, addresses: addresses, keys: keys,
            numberOfAdded: numberOfAdded, rootNodes: rootNodes, rootNames: rootNames,
            outStart: outStart, strongOutEnd: strongOutEnd, targets: targets,
            edgeFlags: edgeFlags, edgeLabels: edgeLabels, edgeTags: [],
            inEdgeIndex: inEdgeIndex, strings: strings)
    }

    /// What `node` stands for.
    public func kind(of node: NodeID) -> NodeKind { kinds[Int(node)] }
    /// The interned number of `node`'s type name.
    public func typeNameNumber(of node: NodeID) -> UInt32 { typeNames[Int(node)] }
    /// `node`'s type name.
    public func typeName(of node: NodeID) -> String { strings[typeNames[Int(node)]] }
    /// `node`'s label, or `nil` when it has none.
    public func label(of node: NodeID) -> String? {
        let number = labels[Int(node)]
        return number == 0 ? nil : strings[number]
    }
    /// `node`'s address, or `nil` when none was given.
    public func address(of node: NodeID) -> UInt? {
        let address = addresses[Int(node)]
        return address == 0 ? nil : address
    }
    /// The key the caller gave `node` (`0` when none).
    public func key(of node: NodeID) -> UInt64 { keys[Int(node)] }

    /// The roots, ascending, each with its name.
    ///
    /// - Complexity: O(*roots*).
    public var roots: [(node: NodeID, name: String)] {
        zip(rootNodes, rootNames).map { ($0, strings[$1]) }
    }

    /// Whether `node` is a root.
    ///
    /// - Complexity: O(log *roots*).
    public func isRoot(_ node: NodeID) -> Bool { rootPosition(of: node) != nil }

    /// The name of root `node`, or `nil` when it is not a root.
    ///
    /// - Complexity: O(log *roots*).
    public func rootName(of node: NodeID) -> String? {
        rootPosition(of: node).map { strings[rootNames[$0]] }
    }

    private func rootPosition(of node: NodeID) -> Int? {
        var low = 0
        var high = rootNodes.count
        while low < high {
            let middle = (low + high) / 2
            if rootNodes[middle] < node { low = middle + 1 } else { high = middle }
        }
        return low < rootNodes.count && rootNodes[low] == node ? low : nil
    }
}

extension CompactGraph {
    /// The positions of `node`'s out-edges, strong ones first.
    ///
    /// - Complexity: O(1).
    public func outEdges(of node: NodeID) -> Range<Int> {
        Int(outStart[Int(node)])..<Int(outStart[Int(node) + 1])
    }

    /// The positions of `node`'s strong out-edges.
    ///
    /// - Complexity: O(1).
    public func strongOutEdges(of node: NodeID) -> Range<Int> {
        Int(outStart[Int(node)])..<Int(strongOutEnd[Int(node)])
    }

    /// The node `edge` points at.
    public func target(of edge: EdgeID) -> NodeID { targets[Int(edge)] }
    /// How strongly `edge` holds its target.
    public func kind(ofEdge edge: EdgeID) -> EdgeKind {
        EdgeKind(rawValue: edgeFlags[Int(edge)] & 0x3F) ?? .strong
    }
    /// Whether `edge` was discovered by inspecting memory.
    public func isDiscovered(_ edge: EdgeID) -> Bool { edgeFlags[Int(edge)] & 0x80 != 0 }
    /// Whether `edge` was found by a heap census (reading the whole heap).
    public func isFoundInHeap(_ edge: EdgeID) -> Bool { edgeFlags[Int(edge)] & 0x40 != 0 }
    /// The interned number of `edge`'s label.
    public func labelNumber(ofEdge edge: EdgeID) -> UInt32 { edgeLabels[Int(edge)] }
    /// `edge`'s label (`""` when none).
    public func label(ofEdge edge: EdgeID) -> String { strings[edgeLabels[Int(edge)]] }
    /// The caller's tag of `edge` (`0` when none were given).
    public func tag(ofEdge edge: EdgeID) -> UInt32 {
        edgeTags.isEmpty ? 0 : edgeTags[Int(edge)]
    }

    /// The holder of `edge`.
    ///
    /// - Complexity: O(log *n*) (a binary search of the row starts).
    public func source(of edge: EdgeID) -> NodeID {
        var low = 0
        var high = kinds.count - 1
        // The last row whose start is <= edge.
        while low < high {
            let middle = (low + high + 1) / 2
            if outStart[middle] <= edge { low = middle } else { high = middle - 1 }
        }
        return NodeID(low)
    }

    /// The edges that point at `node`, strong ones first, as steps from each holder.
    ///
    /// - Complexity: O(in-degree).
    public func incoming(to node: NodeID) -> [Step] {
        let rows = inEdgeRows
        return (Int(rows.inStart[Int(node)])..<Int(rows.inStart[Int(node) + 1])).map {
            Step(from: rows.inSources[$0], edge: rows.inEdges[$0], to: node)
        }
    }

    /// The edges `node` holds, strong ones first, as steps.
    ///
    /// - Complexity: O(out-degree).
    public func outgoing(from node: NodeID) -> [Step] {
        outEdges(of: node).map { Step(from: node, edge: EdgeID($0), to: targets[$0]) }
    }

    /// Bytes held by the graph's arrays (not counting the interned strings), with the in-edge
    /// index if a question has built it (8 bytes per node and 8 per edge).
    ///
    /// - Complexity: O(1).
    public var arrayBytes: Int {
        let perNode =
            kinds.count * (1 + 4 + 4 + MemoryLayout<UInt>.size + 8 + 4) + outStart.count * 4
            + strongOutEnd.count * 4
        let perEdge = targets.count * (4 + 1 + 4) + edgeTags.count * 4
        return perNode + perEdge + rootNodes.count * 8 + (inEdgeIndex.builtRows?.bytes ?? 0)
    }
}
