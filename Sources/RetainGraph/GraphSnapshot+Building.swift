import StackTraces

extension GraphSnapshot.Builder {
    /// Sorts the collected columns into a snapshot (see ``build()``).
    ///
    /// - Complexity: O(*n* + *r*) for dense identities (a live graph's), O(*n* log *n* + *r*)
    ///   otherwise.
    consuming func finish() -> GraphSnapshot {
        if let placedRows, let nodeIndex { return finishPlaced(placedRows, nodeIndex: nodeIndex) }
        let (index, order) = NodeIndex.build(keys: builder.everyKey)
        // Node number (identity rank) of each node as added; -1 for a dropped duplicate.
        var numberOf = [Int32](repeating: -1, count: builder.nodeCount)
        for (number, position) in order.enumerated() { numberOf[position] = Int32(number) }
        var nodeBuilder = builder
        let hasDuplicates = order.count != builder.nodeCount
        if hasDuplicates {
            // Re-add the kept nodes in identity order (synthetic graphs, and discoveries that
            // name nodes the live graph has).
            nodeBuilder = CompactGraph.Builder(expectedNodes: order.count, expectedEdges: 0)
            nodeBuilder.strings = builder.strings
            nodeBuilder.roles = builder.roles
            for position in order { nodeBuilder.copyNode(position, from: builder) }
        }
        let nodeExtras = numberedExtras { numberOf[$0] >= 0 ? UInt32(numberOf[$0]) : nil }
        // Ends by provisional number; `UInt32.max` (dropped by the builder) when unknown.
        func provisional(_ id: ObjectID) -> UInt32 {
            guard let number = index.position(of: id) else { return .max }
            return UInt32(hasDuplicates ? number : order[number])
        }
        // Positions in the order added are provisional numbers already, unless duplicates were
        // dropped, when they become ranks.
        func rank(_ position: UInt32) -> UInt32 { UInt32(bitPattern: numberOf[Int(position)]) }
        if !froms.isEmpty {
            nodeBuilder.sources = froms.map(provisional)
            nodeBuilder.targets = tos.map(provisional)
        } else if hasDuplicates {
            nodeBuilder.sources = builder.sources.map(rank)
            nodeBuilder.targets = builder.targets.map(rank)
        }
        if hasDuplicates {
            nodeBuilder.rootNodes = builder.rootNodes.map(rank)
            nodeBuilder.rootKinds = builder.rootKinds
            nodeBuilder.edgeFlags = builder.edgeFlags
            nodeBuilder.edgeRoles = builder.edgeRoles
        }
        nodeBuilder.edgeTags = (0..<UInt32(nodeBuilder.edgeFlags.count)).map { $0 + 1 }
        builder = CompactGraph.Builder()
        froms = []
        tos = []
        // Nodes added in identity order already (a live graph whose rows were not reused) keep
        // their columns as they are: no permutation.
        let isInOrder =
            hasDuplicates
            || numberOf.withUnsafeBufferPointer { numbers in
                numbers.indices.allSatisfy { numbers[$0] == Int32(truncatingIfNeeded: $0) }
            }
        let tagged = nodeBuilder.build(
            numbering: isInOrder ? nil : numberOf.map { UInt32(bitPattern: $0) })
        // Reference identities and traces by edge; the tags that linked them are dropped.
        var edgeOfInput = [Int](repeating: -1, count: referenceIDs.count)
        var identities = [ReferenceID](
            repeating: ReferenceID(slot: GraphStorage.noSlot, generation: 0),
            count: tagged.edgeCount)
        for edge in 0..<tagged.edgeCount {
            let input = Int(tagged.tag(ofEdge: UInt32(edge))) - 1
            guard input >= 0, input < referenceIDs.count else { continue }
            identities[edge] = referenceIDs[input]
            edgeOfInput[input] = edge
        }
        var tracesByEdge: [Int: StackTrace] = [:]
        for (input, trace) in referenceTraces where edgeOfInput[input] >= 0 {
            tracesByEdge[edgeOfInput[input]] = trace
        }
        return GraphSnapshot(
            graph: tagged.droppingEdgeTags(), nodeIndex: index, nodeExtras: nodeExtras,
            referenceIDs: identities, referenceTraces: tracesByEdge)
    }

    /// Finishes parts whose nodes are numbered in identity order and whose references are
    /// placed in rows already (a live graph's): the columns become the graph as they are.
    private consuming func finishPlaced(_ rows: PlacedRows, nodeIndex: NodeIndex)
        -> GraphSnapshot
    {
        var rootKind: [CompactGraph.NodeID: RootKind] = [:]
        for (number, kind) in zip(builder.rootNodes, builder.rootKinds)
        where rootKind[number] == nil {
            rootKind[number] = kind
        }
        let sortedRoots = rootKind.keys.sorted()
        let graph = CompactGraph(
            kinds: builder.kinds, typeNames: builder.typeNames, labels: builder.labels,
            labelStart: builder.labelStart, addresses: builder.addresses, keys: builder.keys,
            sizes: builder.sizes,
            numberOfAdded: [], rootNodes: sortedRoots,
            rootKinds: sortedRoots.map { rootKind[$0] ?? .process }, outStart: rows.outStart,
            strongOutEnd: rows.strongOutEnd, targets: builder.targets, edgeFlags: builder.edgeFlags,
            edgeRoles: builder.edgeRoles, edgeTags: [], strings: builder.strings,
            roles: builder.roles)
        return GraphSnapshot(
            graph: graph, nodeIndex: nodeIndex, nodeExtras: numberedExtras { UInt32($0) },
            referenceIDs: referenceIDs, referenceTraces: referenceTraces)
    }
}

extension GraphSnapshot.Builder {
    /// The traces, timers and notes collected, keyed by node number.
    ///
    /// - Parameter number: The number of the node added at a position, `nil` for a node dropped.
    func numberedExtras(_ number: (Int) -> UInt32?) -> [UInt32: NodeExtras] {
        var result: [UInt32: NodeExtras] = [:]
        for (position, value) in extras {
            if let node = number(position) { result[node] = value }
        }
        return result
    }

    /// Numbers the nodes collected so far in identity order, moving their columns and sparse
    /// data to their numbers, and keeps the identity index (for parts whose references are
    /// then placed by number; identities must be distinct, as a live graph's are).
    ///
    /// - Returns: For each node as added, its number; `nil` when the nodes were in identity
    ///   order already (every number is the position).
    mutating func numberNodesByIdentity() -> [UInt32]? {
        let (index, order) = NodeIndex.build(keys: builder.everyKey)
        nodeIndex = index
        let isInOrder = order.withUnsafeBufferPointer { order in
            order.indices.allSatisfy { order[$0] == $0 }
        }
        if isInOrder { return nil }
        var numberOf = [UInt32](repeating: 0, count: builder.nodeCount)
        for (number, position) in order.enumerated() { numberOf[position] = UInt32(number) }
        func moved<Value>(_ values: [Value]) -> [Value] { order.map { values[$0] } }
        builder.kinds = moved(builder.kinds)
        builder.typeNames = moved(builder.typeNames)
        builder.addresses = moved(builder.addresses)
        // Optional columns: empty, or one value per node.
        if !builder.labels.isEmpty {
            builder.labels = moved(builder.everyLabel)
            builder.labelStart = 0
        }
        if !builder.keys.isEmpty { builder.keys = moved(builder.keys) }
        if !builder.sizes.isEmpty { builder.sizes = moved(builder.sizes) }
        builder.rootNodes = builder.rootNodes.map { numberOf[Int($0)] }
        extras = Dictionary(uniqueKeysWithValues: extras.map { (Int(numberOf[$0.key]), $0.value) })
        return numberOf
    }
}
