/// A reference graph stored in flat arrays: millions of nodes, no allocation per node. The one
/// representation every view of the heap in RetainGraph is built on.
///
/// The live graph's snapshots, the reflection walk's discoveries, a heap census and a process
/// read from outside all add their nodes and edges to one ``Builder`` and read the result
/// through this type: components, prioritized root paths, cycles and "who holds it" work the
/// same on all of them.
///
/// Nodes are dense numbers (`0..<nodeCount`). Each has a ``NodeKind``, an interned type name,
/// an interned label, an optional address, a size in bytes and a caller's key (such as an
/// `ObjectID`'s raw value). Roots carry a ``RootKind``. Edges are stored in compressed sparse
/// rows by holder (out-edges, the retaining ones first); the rows by target (in-edges) are
/// built the first time a question needs them. Each edge has an ``Ownership``, a typed
/// ``ReferenceRole`` (interned) and a ``ReferenceOrigin``.
///
/// ```swift
/// var builder = CompactGraph.Builder()
/// let queue = builder.addNode(kind: .root, typeName: "main queue")
/// let owner = builder.addNode(kind: .object, typeName: "App.Owner", size: 48)
/// builder.addRoot(queue, kind: .dispatchQueue(label: "main"))
/// builder.addEdge(from: queue, to: owner, ownership: .strong, role: .storedProperty(name: "handler"))
/// let graph = builder.build()
/// let path = graph.paths().path(to: graph.node(added: owner))
/// ```
///
/// Node and edge numbers are 32-bit: a graph holds fewer than 2³² − 2 of each. Accessors take
/// numbers the graph gave out (below ``nodeCount`` and ``edgeCount``), like array subscripts.
///
/// Memory: 21 bytes per node, plus 4 when nodes were renumbered, and 4 for labels, 8 for keys
/// and 4 for sizes once some node has one (a graph of a heap's objects has no keys, and labels
/// only from its first labelled node on: its holders, added after the objects); 9 bytes per
/// edge (plus 4 per edge when edge tags are given), plus the distinct strings and roles; the
/// in-edge rows add 8 bytes per node and 8 per edge once a "who holds it" question has built
/// them.
public struct CompactGraph: Sendable {
    /// A node's number: `0..<nodeCount`.
    public typealias NodeID = UInt32
    /// An edge's position in the out-edge arrays: `0..<edgeCount`.
    public typealias EdgeID = UInt32

    // Nodes, by number.
    package let kinds: [NodeKind]
    package let typeNames: [UInt32]
    /// The label numbers of the nodes from ``labelStart`` on (node `labelStart + i` has
    /// `labels[i]`; the nodes before have none); empty when no node has a label. Read with
    /// ``labelNumber(of:)``, or ``everyLabel`` for one per node.
    package let labels: [UInt32]
    /// The first node ``labels`` holds a label for.
    package let labelStart: Int
    package let addresses: [UInt]
    /// Each node's key; empty when no node has a key.
    package let keys: [UInt64]
    /// Each node's size in bytes; empty when no size was given.
    package let sizes: [UInt32]
    /// For each node as added to the builder, its number in the graph; empty when every node
    /// kept its number.
    package let numberOfAdded: [NodeID]
    /// Roots by ascending number, with their kinds.
    package let rootNodes: [NodeID]
    package let rootKinds: [RootKind]

    // Out-edges, grouped by holder; in each group the retaining edges come first.
    package let outStart: [UInt32]
    package let strongOutEnd: [UInt32]
    package let targets: [NodeID]
    /// Bits 0–2: the ``Ownership`` (its ``Ownership/byte``); bit 4: a last resort for the path
    /// finder (and retaining only what nothing else reaches); bit 5: low priority for the path
    /// finder; bits 6–7: the ``ReferenceOrigin`` (bit 7 discovered, bit 6 found in the heap).
    package let edgeFlags: [UInt8]
    package let edgeRoles: [UInt32]
    /// A caller's number per edge (empty when none was given).
    package let edgeTags: [UInt32]

    /// In-edges, grouped by target, retaining ones first: built on first use.
    package let inEdgeIndex = Computed<InEdgeRows>()
    /// Root paths, found once per graph on first use.
    package let pathIndex = Computed<PathTree>()

    /// The type names and labels, by number.
    public let strings: InternedStrings
    /// The roles of the edges, by number.
    public let roles: InternedRoles

    package init(
        kinds: [NodeKind], typeNames: [UInt32], labels: [UInt32], labelStart: Int = 0,
        addresses: [UInt], keys: [UInt64], sizes: [UInt32], numberOfAdded: [NodeID],
        rootNodes: [NodeID], rootKinds: [RootKind], outStart: [UInt32], strongOutEnd: [UInt32],
        targets: [NodeID], edgeFlags: [UInt8], edgeRoles: [UInt32], edgeTags: [UInt32],
        strings: InternedStrings, roles: InternedRoles
    ) {
        self.kinds = kinds
        self.typeNames = typeNames
        // Optional columns: empty, or one value per node (zeros for the nodes a caller's
        // column stopped short of).
        var labels = labels
        var keys = keys
        var sizes = sizes
        let labelStart = labels.isEmpty ? 0 : min(max(labelStart, 0), kinds.count)
        labels.padded(to: kinds.count - labelStart)
        keys.padded(to: kinds.count)
        sizes.padded(to: kinds.count)
        self.labels = labels
        self.labelStart = labelStart
        self.addresses = addresses
        self.keys = keys
        self.sizes = sizes
        self.numberOfAdded = numberOfAdded
        self.rootNodes = rootNodes
        self.rootKinds = rootKinds
        self.outStart = outStart
        self.strongOutEnd = strongOutEnd
        self.targets = targets
        self.edgeFlags = edgeFlags
        self.edgeRoles = edgeRoles
        self.edgeTags = edgeTags
        self.strings = strings
        self.roles = roles
    }

    /// The number of nodes.
    public var nodeCount: Int { kinds.count }
    /// The number of edges.
    public var edgeCount: Int { targets.count }

    /// The number a node got in the graph, given the number
    /// ``Builder/addNode(kind:typeNameNumber:labelNumber:address:key:size:)`` returned for it.
    ///
    /// - Complexity: O(1).
    public func node(added: NodeID) -> NodeID {
        numberOfAdded.isEmpty ? added : numberOfAdded[Int(added)]
    }

    /// The same graph without edge tags.
    package func droppingEdgeTags() -> CompactGraph {
        guard !edgeTags.isEmpty else { return self }
        return CompactGraph(
            kinds: kinds, typeNames: typeNames, labels: labels, labelStart: labelStart,
            addresses: addresses, keys: keys, sizes: sizes, numberOfAdded: numberOfAdded,
            rootNodes: rootNodes, rootKinds: rootKinds, outStart: outStart,
            strongOutEnd: strongOutEnd,
            targets: targets, edgeFlags: edgeFlags, edgeRoles: edgeRoles, edgeTags: [],
            strings: strings, roles: roles)
    }
}

extension CompactGraph {
    /// What `node` stands for.
    public func kind(of node: NodeID) -> NodeKind { kinds[Int(node)] }
    /// The interned number of `node`'s type name.
    public func typeNameNumber(of node: NodeID) -> UInt32 { typeNames[Int(node)] }
    /// `node`'s type name.
    public func typeName(of node: NodeID) -> String { strings[typeNames[Int(node)]] }
    /// `node`'s label, or `nil` when it has none.
    public func label(of node: NodeID) -> String? {
        let number = labelNumber(of: node)
        return number == 0 ? nil : strings[number]
    }
    /// The interned number of `node`'s label (`0` when it has none).
    public func labelNumber(of node: NodeID) -> UInt32 {
        let row = Int(node) &- labelStart
        return row >= 0 && row < labels.count ? labels[row] : 0
    }
    /// Every node's label number, `0` for the nodes that have none: one per node, or empty
    /// when no node has a label.
    package var everyLabel: [UInt32] {
        labels.isEmpty || labelStart == 0
            ? labels : [UInt32](repeating: 0, count: labelStart) + labels
    }
    /// `node`'s address, or `nil` when none was given.
    public func address(of node: NodeID) -> UInt? {
        let address = addresses[Int(node)]
        return address == 0 ? nil : address
    }
    /// The key the caller gave `node` (`0` when none).
    public func key(of node: NodeID) -> UInt64 { keys.isEmpty ? 0 : keys[Int(node)] }
    /// `node`'s size in bytes (`0` when none was given).
    public func size(of node: NodeID) -> Int { sizes.isEmpty ? 0 : Int(sizes[Int(node)]) }

    /// The roots, ascending, each with its kind.
    ///
    /// - Complexity: O(*roots*).
    public var roots: [(node: NodeID, kind: RootKind)] {
        Array(zip(rootNodes, rootKinds))
    }

    /// Whether `node` is a root.
    ///
    /// - Complexity: O(log *roots*).
    public func isRoot(_ node: NodeID) -> Bool { rootPosition(of: node) != nil }

    /// The kind of root `node`, or `nil` when it is not a root.
    ///
    /// - Complexity: O(log *roots*).
    public func rootKind(of node: NodeID) -> RootKind? {
        rootPosition(of: node).map { rootKinds[$0] }
    }

    /// The name of root `node` (its kind's description), or `nil` when it is not a root.
    ///
    /// - Complexity: O(log *roots*).
    public func rootName(of node: NodeID) -> String? { rootKind(of: node)?.description }

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
