import StackTraces

extension SnapshotParts {
    /// Sorts the collected columns into a snapshot: nodes by identity (the first of nodes
    /// sharing one wins), references by holder, strong ones first, each group in the order
    /// added; references naming an unknown node are dropped.
    ///
    /// - Complexity: O(*n* + *r*) for dense identities (a live graph's), O(*n* log *n* + *r*)
    ///   otherwise.
    consuming func finish() -> GraphSnapshot {
        let (index, order) = NodeIndex.build(ids: ids)
        var nodeTraces: [UInt32: StackTrace] = [:]
        var nodeTimers: [UInt32: TimerInfo] = [:]
        var nodeRootKinds: [UInt32: RootKind] = [:]
        for position in order {
            let node = builder.addNode(
                kind: kinds[position], typeNameNumber: typeNames[position],
                labelNumber: labels[position], address: addresses[position],
                key: ids[position].rawValue)
            if let rootKind = rootKinds[position] {
                nodeRootKinds[node] = rootKind
                builder.addRoot(node, name: rootKind.description)
            }
            if let trace = traces[position] { nodeTraces[node] = trace }
            if let timer = timers[position] { nodeTimers[node] = timer }
        }
        kinds = []
        typeNames = []
        labels = []
        addresses = []
        for position in froms.indices {
            guard let from = index.position(of: froms[position]),
                let to = index.position(of: tos[position])
            else { continue }
            builder.addEdge(
                from: UInt32(from), to: UInt32(to), kind: edgeKinds[position],
                labelNumber: edgeRoles[position], discovered: discovered[position],
                tag: UInt32(position + 1))
        }
        froms = []
        tos = []
        let graph = builder.build(numberingForLocality: false)
        return GraphSnapshot(
            graph: graph, nodeIndex: index, roles: roles, rootKinds: nodeRootKinds,
            nodeTraces: nodeTraces, nodeTimers: nodeTimers, referenceIDs: referenceIDs,
            referenceTraces: referenceTraces)
    }
}
