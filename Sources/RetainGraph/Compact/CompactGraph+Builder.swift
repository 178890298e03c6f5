extension CompactGraph {
    /// Collects nodes and edges in any order, then sorts them into a ``CompactGraph``.
    ///
    /// Appending a node or an edge writes a few numbers to flat arrays: a heap scan can feed
    /// millions of edges without an allocation per edge. Edges may name nodes added later, as
    /// long as the nodes exist when ``build(numberingForLocality:)`` runs; edges naming a node
    /// that never existed are dropped.
    ///
    /// ```swift
    /// var builder = CompactGraph.Builder(expectedNodes: 2, expectedEdges: 2)
    /// let a = builder.addNode(kind: .object, typeName: "App.A")
    /// let b = builder.addNode(kind: .closure, typeName: "closure")
    /// builder.addEdge(from: a, to: b, kind: .strong, label: ".handler")
    /// builder.addEdge(from: b, to: a, kind: .strong, label: "captures self")
    /// let graph = builder.build()
    /// ```
    public struct Builder: Sendable {
        /// The strings interned so far; intern with ``intern(_:)``.
        public internal(set) var strings = InternedStrings()
        var kinds: [NodeKind] = []
        var typeNames: [UInt32] = []
        var labels: [UInt32] = []
        var addresses: [UInt] = []
        var keys: [UInt64] = []
        var rootNodes: [NodeID] = []
        var rootNames: [UInt32] = []
        var sources: [NodeID] = []
        var targets: [NodeID] = []
        var edgeFlags: [UInt8] = []
        var edgeLabels: [UInt32] = []
        var edgeTags: [UInt32] = []

        /// Creates an empty builder with room for the given numbers of nodes and edges.
        public init(expectedNodes: Int = 0, expectedEdges: Int = 0) {
            kinds.reserveCapacity(expectedNodes)
            typeNames.reserveCapacity(expectedNodes)
            labels.reserveCapacity(expectedNodes)
            addresses.reserveCapacity(expectedNodes)
            keys.reserveCapacity(expectedNodes)
            sources.reserveCapacity(expectedEdges)
            targets.reserveCapacity(expectedEdges)
            edgeFlags.reserveCapacity(expectedEdges)
            edgeLabels.reserveCapacity(expectedEdges)
        }

        /// The number of nodes added so far.
        public var nodeCount: Int { kinds.count }
        /// The number of edges added so far.
        public var edgeCount: Int { targets.count }

        /// The number of `string` in the graph's string table, adding it if new.
        ///
        /// Intern a type name or label once and pass its number to the `Number` variants of
        /// ``addNode(kind:typeNameNumber:labelNumber:address:key:)`` and
        /// ``addEdge(from:to:kind:labelNumber:discovered:tag:)`` to add without hashing.
        public mutating func intern(_ string: String) -> UInt32 { strings.intern(string) }

        /// Adds a node with interned strings.
        ///
        /// - Parameters:
        ///   - kind: What the node stands for.
        ///   - typeNameNumber: Its type name's number from ``intern(_:)``.
        ///   - labelNumber: Its label's number, `0` for none.
        ///   - address: Its address, `0` for none.
        ///   - key: The caller's identity for it (an ``ObjectID``'s raw value), `0` for none.
        /// - Returns: The node's provisional number; after ``build(numberingForLocality:)``, ask
        ///   ``CompactGraph/node(added:)`` for its number in the graph.
        /// - Complexity: Amortised O(1).
        @discardableResult
        public mutating func addNode(
            kind: NodeKind, typeNameNumber: UInt32, labelNumber: UInt32 = 0, address: UInt = 0,
            key: UInt64 = 0
        ) -> NodeID {
            kinds.append(kind)
            typeNames.append(typeNameNumber)
            labels.append(labelNumber)
            addresses.append(address)
            keys.append(key)
            return NodeID(kinds.count - 1)
        }

        /// Adds a node, interning its type name and label.
        ///
        /// - Returns: The node's provisional number (see
        ///   ``addNode(kind:typeNameNumber:labelNumber:address:key:)``).
        @discardableResult
        public mutating func addNode(
            kind: NodeKind, typeName: String, label: String? = nil, address: UInt = 0,
            key: UInt64 = 0
        ) -> NodeID {
            let type = strings.intern(typeName)
            let label = label.map { strings.intern($0) } ?? 0
            return addNode(
                kind: kind, typeNameNumber: type, labelNumber: label, address: address, key: key)
        }

        /// Makes the node `node` (a provisional number) a root named `name`.
        ///
        /// A node made a root twice keeps its first name.
        public mutating func addRoot(_ node: NodeID, name: String) {
            rootNodes.append(node)
            rootNames.append(strings.intern(name))
        }

        /// Adds an edge between two provisional node numbers, with an interned label.
        ///
        /// - Parameters:
        ///   - from: The holder.
        ///   - to: The held node.
        ///   - kind: How strongly `from` holds `to`.
        ///   - labelNumber: The label's number from ``intern(_:)``, `0` for none.
        ///   - discovered: Whether the edge was found by inspecting memory.
        ///   - tag: A number of the caller's (such as a slot in its own table of references);
        ///     the graph stores tags only when some edge has a non-zero one.
        /// - Complexity: Amortised O(1).
        public mutating func addEdge(
            from: NodeID, to: NodeID, kind: EdgeKind, labelNumber: UInt32 = 0,
            discovered: Bool = false, tag: UInt32 = 0
        ) {
            if tag != 0, edgeTags.count < targets.count {
                edgeTags.append(contentsOf: repeatElement(0, count: targets.count - edgeTags.count))
            }
            sources.append(from)
            targets.append(to)
            edgeFlags.append(kind.rawValue | (discovered ? 0x80 : 0))
            edgeLabels.append(labelNumber)
            if !edgeTags.isEmpty || tag != 0 { edgeTags.append(tag) }
        }

        /// Adds an edge, interning its label.
        public mutating func addEdge(
            from: NodeID, to: NodeID, kind: EdgeKind, label: String, discovered: Bool = false
        ) {
            addEdge(
                from: from, to: to, kind: kind, labelNumber: strings.intern(label),
                discovered: discovered)
        }

        /// Adds many edges given as parallel arrays, as a heap scan produces them.
        ///
        /// - Parameters:
        ///   - newSources: The holders (provisional numbers).
        ///   - newTargets: The held nodes.
        ///   - kinds: How strongly each holder holds its target.
        ///   - labelNumbers: Each edge's label number from ``intern(_:)``, `0` for none.
        ///   - discovered: Whether these edges were found by inspecting memory.
        /// Arrays of different lengths are cut to the shortest.
        ///
        /// - Complexity: O(*k*) for *k* edges.
        public mutating func addEdges(
            sources newSources: [NodeID], targets newTargets: [NodeID], kinds: [EdgeKind],
            labelNumbers: [UInt32], discovered: Bool = false
        ) {
            let count = min(newSources.count, newTargets.count, kinds.count, labelNumbers.count)
            if !edgeTags.isEmpty { edgeTags.append(contentsOf: repeatElement(0, count: count)) }
            sources.append(contentsOf: newSources.prefix(count))
            targets.append(contentsOf: newTargets.prefix(count))
            let flag: UInt8 = discovered ? 0x80 : 0
            edgeFlags.append(contentsOf: kinds.prefix(count).lazy.map { $0.rawValue | flag })
            edgeLabels.append(contentsOf: labelNumbers.prefix(count))
        }
    }
}
