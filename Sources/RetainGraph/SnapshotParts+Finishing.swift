import StackTraces

extension SnapshotParts {
    /// Sorts the collected columns into a snapshot: nodes by identity (the first of nodes
    /// sharing one wins), references by holder, strong ones first, each group in the order
    /// added; references naming an unknown node are dropped.
    ///
    /// - Complexity: O(*n* + *r*) for dense identities (a live graph's), O(*n* log *n* + *r*)
    ///   otherwise.
    consuming func finish() -> GraphSnapshot {
        if let placedRows, let nodeIndex { return finishPlaced(placedRows, nodeIndex: nodeIndex) }
        let (index, order) = NodeIndex.build(ids: ids)
        // Node number (identity rank) of each node as added; -1 for a dropped duplicate.
        var numberOf = [Int32](repeating: -1, count: ids.count)
        for (number, position) in order.enumerated() { numberOf[position] = Int32(number) }
        var nodeBuilder = builder
        let hasDuplicates = order.count != ids.count
        if hasDuplicates {
            // Rare (synthetic graphs only): re-add the kept nodes in identity order.
            nodeBuilder = CompactGraph.Builder(
                expectedNodes: order.count, expectedEdges: froms.count)
            nodeBuilder.strings = builder.strings
            for position in order { nodeBuilder.copyNode(position, from: builder) }
        }
        builder = CompactGraph.Builder()
        var nodeRootKinds: [UInt32: RootKind] = [:]
        for (position, kind) in rootKinds where numberOf[position] >= 0 {
            nodeRootKinds[UInt32(numberOf[position])] = kind
            // Roots are named by provisional number: the added position, or the rank.
            let provisional = hasDuplicates ? UInt32(numberOf[position]) : UInt32(position)
            nodeBuilder.addRoot(provisional, name: kind.description)
        }
        let (nodeTraces, nodeTimers, nodeNotes) = sparseNodeData {
            numberOf[$0] >= 0 ? UInt32(numberOf[$0]) : nil
        }
        // Ends by provisional number; `UInt32.max` (dropped by the builder) when unknown.
        func provisional(_ id: ObjectID) -> UInt32 {
            guard let number = index.position(of: id) else { return .max }
            return UInt32(hasDuplicates ? number : order[number])
        }
        let sources: [UInt32]
        let targets: [UInt32]
        if froms.isEmpty {
            // Positions in the order added: provisional numbers already, unless duplicates
            // were dropped (never in a live graph's parts), when they become ranks.
            func number(_ position: UInt32) -> UInt32 {
                guard hasDuplicates else { return position }
                return UInt32(bitPattern: numberOf[Int(position)])
            }
            sources = hasDuplicates ? sourcePositions.map(number) : sourcePositions
            targets = hasDuplicates ? targetPositions.map(number) : targetPositions
        } else {
            sources = froms.map(provisional)
            targets = tos.map(provisional)
        }
        sourcePositions = []
        targetPositions = []
        nodeBuilder.appendEdges(
            sources: sources, targets: targets, flags: edgeFlags, labels: edgeRoles,
            tags: (0..<UInt32(sources.count)).map { $0 + 1 })
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
            graph: tagged.droppingEdgeTags(), nodeIndex: index, roles: roles,
            rootKinds: nodeRootKinds, nodeTraces: nodeTraces, nodeTimers: nodeTimers,
            nodeNotes: nodeNotes, referenceIDs: identities, referenceTraces: tracesByEdge)
    }

    /// Finishes parts whose nodes are numbered in identity order and whose references are
    /// placed in rows already (a live graph's): the columns become the graph as they are.
    private consuming func finishPlaced(_ rows: PlacedRows, nodeIndex: NodeIndex)
        -> GraphSnapshot
    {
        var nodeRootKinds: [UInt32: RootKind] = [:]
        var rootName: [CompactGraph.NodeID: UInt32] = [:]
        for (number, kind) in rootKinds {
            nodeRootKinds[UInt32(number)] = kind
            rootName[UInt32(number)] = builder.intern(kind.description)
        }
        let sortedRoots = rootName.keys.sorted()
        let (nodeTraces, nodeTimers, nodeNotes) = sparseNodeData { UInt32($0) }
        let graph = CompactGraph(
            kinds: builder.kinds, typeNames: builder.typeNames, labels: builder.labels,
            addresses: builder.addresses, keys: builder.keys, numberOfAdded: [],
            rootNodes: sortedRoots, rootNames: sortedRoots.map { rootName[$0] ?? 0 },
            outStart: rows.outStart, strongOutEnd: rows.strongOutEnd, targets: rows.targets,
            edgeFlags: rows.flags, edgeLabels: rows.roles, edgeTags: [],
            inEdgeIndex: CompactGraph.InEdgeIndex(), strings: builder.strings)
        return GraphSnapshot(
            graph: graph, nodeIndex: nodeIndex, roles: roles, rootKinds: nodeRootKinds,
            nodeTraces: nodeTraces, nodeTimers: nodeTimers, nodeNotes: nodeNotes,
            referenceIDs: referenceIDs, referenceTraces: referenceTraces)
    }
}

extension SnapshotParts {
    /// The traces, timers and notes collected, keyed by node number.
    ///
    /// - Parameter number: The number of the node added at a position, `nil` for a node dropped.
    func sparseNodeData(_ number: (Int) -> UInt32?) -> (
        traces: [UInt32: StackTrace], timers: [UInt32: TimerInfo], notes: [UInt32: String]
    ) {
        func keyed<Value>(_ entries: [(position: Int, value: Value)]) -> [UInt32: Value] {
            var result: [UInt32: Value] = [:]
            for (position, value) in entries {
                if let node = number(position) { result[node] = value }
            }
            return result
        }
        return (
            keyed(traces.map { ($0.position, $0.trace) }),
            keyed(timers.map { ($0.position, $0.timer) }),
            keyed(notes.map { ($0.position, $0.note) })
        )
    }

    /// Numbers the nodes collected so far in identity order, moving their columns and sparse
    /// data to their numbers, and keeps the identity index (for parts whose references are
    /// then placed by number; identities must be distinct, as a live graph's are).
    ///
    /// - Returns: For each node as added, its number; `nil` when the nodes were in identity
    ///   order already (every number is the position).
    mutating func numberNodesByIdentity() -> [UInt32]? {
        let (index, order) = NodeIndex.build(ids: ids)
        nodeIndex = index
        let isInOrder = order.withUnsafeBufferPointer { order in
            order.indices.allSatisfy { order[$0] == $0 }
        }
        if isInOrder { return nil }
        var numberOf = [UInt32](repeating: 0, count: ids.count)
        for (number, position) in order.enumerated() { numberOf[position] = UInt32(number) }
        func moved<Value>(_ values: [Value]) -> [Value] { order.map { values[$0] } }
        ids = moved(ids)
        builder.kinds = moved(builder.kinds)
        builder.typeNames = moved(builder.typeNames)
        builder.labels = moved(builder.labels)
        builder.addresses = moved(builder.addresses)
        builder.keys = moved(builder.keys)
        rootKinds = rootKinds.map { (Int(numberOf[$0.position]), $0.kind) }
        traces = traces.map { (Int(numberOf[$0.position]), $0.trace) }
        timers = timers.map { (Int(numberOf[$0.position]), $0.timer) }
        notes = notes.map { (Int(numberOf[$0.position]), $0.note) }
        return numberOf
    }
}

extension CompactGraph.Builder {
    /// Adds a copy of node `position` of `other`, whose strings this builder shares.
    mutating func copyNode(_ position: Int, from other: CompactGraph.Builder) {
        addNode(
            kind: other.kinds[position], typeNameNumber: other.typeNames[position],
            labelNumber: other.labels[position], address: other.addresses[position],
            key: other.keys[position])
    }
}

extension CompactGraph.Builder {
    /// Appends edges given as whole columns (flags as the graph stores them).
    mutating func appendEdges(
        sources newSources: [UInt32], targets newTargets: [UInt32], flags: [UInt8],
        labels: [UInt32], tags: [UInt32]
    ) {
        // Into a builder with no edge yet, the columns are taken as they are (no copy).
        if edgeTags.count < targets.count {
            edgeTags.append(contentsOf: repeatElement(0, count: targets.count - edgeTags.count))
        }
        sources.adoptOrAppend(newSources, count: newSources.count)
        targets.adoptOrAppend(newTargets, count: newTargets.count)
        edgeFlags.adoptOrAppend(flags, count: flags.count)
        edgeLabels.adoptOrAppend(labels, count: labels.count)
        edgeTags.adoptOrAppend(tags, count: tags.count)
    }
}
