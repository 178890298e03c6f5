extension CompactGraph {
    /// Collects nodes and edges in any order, then sorts them into a ``CompactGraph``: the one
    /// builder every source of references feeds.
    ///
    /// Appending a node or an edge writes a few numbers to flat arrays: a heap scan can feed
    /// millions of edges without an allocation per edge. Edges may name nodes added later, as
    /// long as the nodes exist when ``build(numberingForLocality:)`` runs; edges naming a node
    /// that never existed are dropped.
    ///
    /// ```swift
    /// var builder = CompactGraph.Builder(expectedNodes: 2, expectedEdges: 2)
    /// let a = builder.addNode(kind: .object, typeName: "App.A")
    /// let b = builder.addNode(kind: .closure, typeName: "closure context")
    /// builder.addEdge(from: a, to: b, ownership: .strong, role: .storedProperty(name: "handler"))
    /// builder.addEdge(from: b, to: a, ownership: .strong, role: .capture(name: "A"))
    /// let graph = builder.build()
    /// ```
    public struct Builder: Sendable {
        /// The strings interned so far; intern with ``intern(_:)-(String)``.
        public package(set) var strings = InternedStrings()
        /// The roles interned so far; intern with ``intern(_:)-(ReferenceRole)``.
        public package(set) var roles = InternedRoles()
        package var kinds: [NodeKind] = []
        package var typeNames: [UInt32] = []
        /// Label numbers; empty until a node is given a label, then one per node from
        /// ``labelStart`` on (read with ``label(at:)``): the nodes added before the first
        /// labelled one take no room (a heap's objects, before its labelled holders).
        package var labels: [UInt32] = []
        /// The node ``labels`` starts at.
        package var labelStart = 0
        package var addresses: [UInt] = []
        /// Keys; empty until a node is given a key, like ``labels`` (read with ``key(at:)``).
        package var keys: [UInt64] = []
        /// Sizes in bytes; empty until a node is given a size.
        package var sizes: [UInt32] = []
        package var rootNodes: [NodeID] = []
        package var rootKinds: [RootKind] = []
        package var sources: [NodeID] = []
        package var targets: [NodeID] = []
        package var edgeFlags: [UInt8] = []
        package var edgeRoles: [UInt32] = []
        package var edgeTags: [UInt32] = []

        /// Creates an empty builder with room for the given numbers of nodes and edges.
        public init(expectedNodes: Int = 0, expectedEdges: Int = 0) {
            kinds.reserveCapacity(expectedNodes)
            typeNames.reserveCapacity(expectedNodes)
            addresses.reserveCapacity(expectedNodes)
            sources.reserveCapacity(expectedEdges)
            targets.reserveCapacity(expectedEdges)
            edgeFlags.reserveCapacity(expectedEdges)
            edgeRoles.reserveCapacity(expectedEdges)
        }

        /// The number of nodes added so far.
        public var nodeCount: Int { kinds.count }
        /// The number of edges added so far.
        public var edgeCount: Int { targets.count }

        /// The label number of the node added at `position` (`0` for none).
        package func label(at position: Int) -> UInt32 {
            let row = position - labelStart
            return row >= 0 && row < labels.count ? labels[row] : 0
        }

        /// Every node's label number, `0` for the nodes given none: one per node, or empty
        /// while no node has a label.
        package var everyLabel: [UInt32] {
            guard !labels.isEmpty else { return [] }
            let before = [UInt32](repeating: 0, count: labelStart)
            let after = [UInt32](repeating: 0, count: kinds.count - labelStart - labels.count)
            return before + labels + after
        }

        /// Sets the label number of the node being added at `position` (past every labelled
        /// node: positions only grow).
        private mutating func setLabel(_ number: UInt32, at position: Int) {
            if labels.isEmpty {
                guard number != 0 else { return }
                labelStart = position
            }
            labels.setOptional(number, at: position - labelStart)
        }

        /// The key of the node added at `position` (`0` for none).
        package func key(at position: Int) -> UInt64 {
            position < keys.count ? keys[position] : 0
        }

        /// Every node's key, `0` for the nodes given none: one per node, even while ``keys``
        /// is empty.
        package var everyKey: [UInt64] {
            keys.count == kinds.count
                ? keys : keys + [UInt64](repeating: 0, count: kinds.count - keys.count)
        }

        /// The number of `string` in the graph's string table, adding it if new.
        ///
        /// Intern a type name or label once and pass its number to
        /// ``addNode(kind:typeNameNumber:labelNumber:address:key:size:)`` to add without
        /// hashing.
        public mutating func intern(_ string: String) -> UInt32 { strings.intern(string) }

        /// The number of `role` in the graph's role table, adding it if new.
        public mutating func intern(_ role: ReferenceRole) -> UInt32 { roles.intern(role) }

        /// Adds a node with interned strings.
        ///
        /// - Parameters:
        ///   - kind: What the node stands for.
        ///   - typeNameNumber: Its type name's number from ``intern(_:)-(String)``.
        ///   - labelNumber: Its label's number, `0` for none.
        ///   - address: Its address, `0` for none.
        ///   - key: The caller's identity for it (an `ObjectID`'s raw value), `0` for none.
        ///   - size: Its size in bytes, `0` for unknown.
        /// - Returns: The node's provisional number; after ``build(numberingForLocality:)``, ask
        ///   ``CompactGraph/node(added:)`` for its number in the graph.
        /// - Complexity: Amortised O(1).
        @discardableResult
        public mutating func addNode(
            kind: NodeKind, typeNameNumber: UInt32, labelNumber: UInt32 = 0, address: UInt = 0,
            key: UInt64 = 0, size: Int = 0
        ) -> NodeID {
            let position = kinds.count
            kinds.append(kind)
            typeNames.append(typeNameNumber)
            addresses.append(address)
            setLabel(labelNumber, at: position)
            keys.setOptional(key, at: position)
            sizes.setOptional(UInt32(clamping: size), at: position)
            return NodeID(position)
        }

        /// Adds a node, interning its type name and label.
        ///
        /// - Returns: The node's provisional number (see
        ///   ``addNode(kind:typeNameNumber:labelNumber:address:key:size:)``).
        @discardableResult
        public mutating func addNode(
            kind: NodeKind, typeName: String, label: String? = nil, address: UInt = 0,
            key: UInt64 = 0, size: Int = 0
        ) -> NodeID {
            let type = strings.intern(typeName)
            let label = label.map { strings.intern($0) } ?? 0
            return addNode(
                kind: kind, typeNameNumber: type, labelNumber: label, address: address, key: key,
                size: size)
        }

        /// Makes the node `node` (a provisional number) a root of the given kind.
        ///
        /// A node made a root twice keeps its first kind.
        public mutating func addRoot(_ node: NodeID, kind: RootKind) {
            rootNodes.append(node)
            rootKinds.append(kind)
        }

        /// Makes the node `node` a root of kind ``RootKind/custom(name:)``: a root you name.
        public mutating func addRoot(_ node: NodeID, name: String) {
            addRoot(node, kind: .custom(name: name))
        }

        /// Adds an edge between two provisional node numbers, with an interned role.
        ///
        /// - Parameters:
        ///   - from: The holder.
        ///   - to: The held node.
        ///   - ownership: How `from` holds `to`.
        ///   - roleNumber: The role's number from ``intern(_:)-(ReferenceRole)``; `0` for none.
        ///   - origin: Whether the edge was declared or found by reading memory.
        ///   - isLowPriority: Whether paths through it are explored after every other (see
        ///     ``CompactGraph/PathTree``); conservative edges always are.
        ///   - tag: A number of the caller's (such as a slot in its own table of references);
        ///     the graph stores tags only when some edge has a non-zero one.
        /// - Complexity: Amortised O(1).
        public mutating func addEdge(
            from: NodeID, to: NodeID, ownership: Ownership, roleNumber: UInt32 = 0,
            origin: ReferenceOrigin = .declared, isLowPriority: Bool = false, tag: UInt32 = 0
        ) {
            if tag != 0, edgeTags.count < targets.count {
                edgeTags.append(
                    contentsOf: Array(repeating: 0, count: targets.count - edgeTags.count))
            }
            sources.append(from)
            targets.append(to)
            edgeFlags.append(CompactGraph.flags(ownership, origin, lowPriority: isLowPriority))
            edgeRoles.append(roleNumber)
            if !edgeTags.isEmpty || tag != 0 { edgeTags.append(tag) }
        }

        /// Adds an edge, interning its role.
        public mutating func addEdge(
            from: NodeID, to: NodeID, ownership: Ownership, role: ReferenceRole,
            origin: ReferenceOrigin = .declared, isLowPriority: Bool = false
        ) {
            addEdge(
                from: from, to: to, ownership: ownership, roleNumber: roles.intern(role),
                origin: origin, isLowPriority: isLowPriority)
        }
    }
}
