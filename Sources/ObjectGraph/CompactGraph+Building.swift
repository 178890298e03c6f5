extension CompactGraph.Builder {
    /// Sorts the nodes and edges into a graph.
    ///
    /// With `numberingForLocality`, nodes are renumbered in breadth-first order from the roots
    /// (then from each node no root reaches, in the order they were added), over edges of every
    /// kind: nodes that a traversal visits one after the other end up next to each other in
    /// memory, which is what makes the analysis of a million-node graph fast. Edges are placed
    /// by counting sort, strong edges first in each node's group; the in-edge index is built
    /// from the out-edges, in holder order, the first time a question needs it. Edges naming a node that does not exist are
    /// dropped; a node made a root twice keeps its first name.
    ///
    /// - Parameter numberingForLocality: Whether to renumber nodes in traversal order; without
    ///   it, nodes keep the order they were added in.
    /// - Returns: The graph. Map a provisional number to the graph's with
    ///   ``CompactGraph/node(added:)``.
    /// - Complexity: O(*n* + *e*) time. Without renumbering, the edges are placed in their own
    ///   columns: no memory per edge beyond the builder's while building. With it, they are
    ///   scattered into new columns (9 bytes an edge), beside the locality numbering's scratch
    ///   memory (4 bytes an edge and 12 a node).
    public consuming func build(numberingForLocality: Bool = true) -> CompactGraph {
        let number = numberingForLocality ? localityNumbering() : nil
        return build(numbering: number)
    }

    /// Sorts the nodes and edges into a graph, node `k` (as added) getting number
    /// `numbering[k]`, or keeping its number when `numbering` is `nil`.
    ///
    /// - Precondition: `numbering` is a permutation of `0..<nodeCount`.
    /// - Complexity: O(*n* + *e*).
    package consuming func build(numbering: [CompactGraph.NodeID]?) -> CompactGraph {
        let nodeCount = kinds.count
        let isIdentity = numbering == nil
        // Empty for the identity: the placement reads it as such (4 bytes a node less at the
        // build's peak, where the builder's edges and the graph's are both held).
        let number = numbering ?? []

        // Nodes, permuted into their new numbers (moved as they are when the numbering is the
        // identity).
        func take<Value>(_ column: inout [Value], filler: Value) -> [Value] {
            defer { column = [] }
            return isIdentity || column.isEmpty
                ? column : Self.permuted(column, by: number, filler: filler)
        }
        // Optional columns, empty or one value per node (the caller's may have set them short).
        sizes.padded(to: nodeCount)
        labels.padded(to: nodeCount - labelStart)
        keys.padded(to: nodeCount)
        // Renumbered nodes need one label each: the nodes before the first labelled one get
        // zeros.
        if !isIdentity, labelStart > 0 {
            labels = everyLabel
            labelStart = 0
        }
        let newKinds = take(&kinds, filler: .object)
        let newTypeNames = take(&typeNames, filler: 0)
        let newLabels = take(&labels, filler: 0)
        let newAddresses = take(&addresses, filler: 0)
        let newKeys = take(&keys, filler: 0)
        let newSizes = take(&sizes, filler: 0)

        // Roots: renumbered, first kind wins, ascending.
        var rootKind: [CompactGraph.NodeID: RootKind] = [:]
        for (node, kind) in zip(rootNodes, rootKinds) where Int(node) < nodeCount {
            let renumbered = isIdentity ? node : number[Int(node)]
            if rootKind[renumbered] == nil { rootKind[renumbered] = kind }
        }
        let sortedRoots = rootKind.keys.sorted()

        // Out-edges: count per holder (and strong ones apart), then place.
        var outStart = [UInt32](repeating: 0, count: nodeCount + 1)
        var strongOutEnd = [UInt32](repeating: 0, count: nodeCount)
        if !edgeTags.isEmpty, edgeTags.count < targets.count {
            edgeTags.append(contentsOf: Array(repeating: 0, count: targets.count - edgeTags.count))
        }
        // Columns of one length (a caller's may differ: the shortest wins, as when added).
        // (Only when they differ: a removal, even of nothing, copies a column another value
        // still holds.)
        let edgeCount = min(sources.count, targets.count, edgeFlags.count, edgeRoles.count)
        if sources.count > edgeCount { sources.removeLast(sources.count - edgeCount) }
        if targets.count > edgeCount { targets.removeLast(targets.count - edgeCount) }
        if edgeFlags.count > edgeCount { edgeFlags.removeLast(edgeFlags.count - edgeCount) }
        if edgeRoles.count > edgeCount { edgeRoles.removeLast(edgeRoles.count - edgeCount) }
        if edgeTags.count > edgeCount { edgeTags.removeLast(edgeTags.count - edgeCount) }
        let kept = number.withUnsafeBufferPointer { number in
            sources.withUnsafeBufferPointer { sources in
                targets.withUnsafeBufferPointer { targets in
                    edgeFlags.withUnsafeBufferPointer { flags in
                        outStart.withUnsafeMutableBufferPointer { start in
                            strongOutEnd.withUnsafeMutableBufferPointer { strongEnd in
                                EdgePlacement.countRows(
                                    sources: sources, targets: targets, flags: flags,
                                    number: number, start: start, strongEnd: strongEnd)
                            }
                        }
                    }
                }
            }
        }
        let placed =
            isIdentity
            ? placedInOwnColumns(kept: kept, start: &outStart, strongEnd: &strongOutEnd)
            : scatteredIntoNewColumns(
                kept: kept, number: number, start: outStart, strongEnd: strongOutEnd)
        return CompactGraph(
            kinds: newKinds, typeNames: newTypeNames, labels: newLabels, labelStart: labelStart,
            addresses: newAddresses, keys: newKeys, sizes: newSizes,
            numberOfAdded: isIdentity ? [] : number,
            rootNodes: sortedRoots, rootKinds: sortedRoots.map { rootKind[$0] ?? .process },
            outStart: outStart, strongOutEnd: strongOutEnd, targets: placed.targets,
            edgeFlags: placed.flags, edgeRoles: placed.roles, edgeTags: placed.tags,
            strings: strings, roles: roles)
    }

    /// The edge columns, taken out of the builder, each edge moved to its place in its
    /// holder's row (rows counted in `start` and `strongEnd`, which serve as cursors and hold
    /// the rows again on return), the `kept` ones first: for nodes that kept their numbers (a
    /// heap's readers), whose edges are mostly where they belong already (read holder by
    /// holder).
    private mutating func placedInOwnColumns(
        kept: Int, start: inout [UInt32], strongEnd: inout [UInt32]
    ) -> (targets: [UInt32], flags: [UInt8], roles: [UInt32], tags: [UInt32]) {
        sources.withUnsafeMutableBufferPointer { sources in
            targets.withUnsafeMutableBufferPointer { targets in
                edgeFlags.withUnsafeMutableBufferPointer { flags in
                    edgeRoles.withUnsafeMutableBufferPointer { roles in
                        edgeTags.withUnsafeMutableBufferPointer { tags in
                            start.withUnsafeMutableBufferPointer { start in
                                strongEnd.withUnsafeMutableBufferPointer { strongEnd in
                                    EdgePlacement.placeInPlace(
                                        sources: sources, targets: targets, flags: flags,
                                        roles: roles, tags: tags, start: start,
                                        strongEnd: strongEnd)
                                }
                            }
                        }
                    }
                }
            }
        }
        // The columns are the graph's now, the dropped edges cut off their ends.
        var placed = (targets: targets, flags: edgeFlags, roles: edgeRoles, tags: edgeTags)
        (sources, targets, edgeFlags, edgeRoles, edgeTags) = ([], [], [], [], [])
        if placed.targets.count > kept {
            placed.targets.removeLast(placed.targets.count - kept)
            placed.flags.removeLast(placed.flags.count - kept)
            placed.roles.removeLast(placed.roles.count - kept)
            if !placed.tags.isEmpty { placed.tags.removeLast(placed.tags.count - kept) }
        }
        return placed
    }

    /// The `kept` edges scattered into new columns at their places in the renumbered rows: for
    /// a renumbered graph, whose edges all move to random places (see
    /// ``EdgePlacement/placeOutEdges(sources:targets:flags:roles:tags:outTargets:outFlags:outRoles:outTags:)``).
    private mutating func scatteredIntoNewColumns(
        kept: Int, number: [CompactGraph.NodeID], start: [UInt32], strongEnd: [UInt32]
    ) -> (targets: [UInt32], flags: [UInt8], roles: [UInt32], tags: [UInt32]) {
        var outTargets = [CompactGraph.NodeID](repeating: 0, count: kept)
        var outFlags = [UInt8](repeating: 0, count: kept)
        var outRoles = [UInt32](repeating: 0, count: kept)
        var outTags = [UInt32](repeating: 0, count: edgeTags.isEmpty ? 0 : kept)
        EdgePlacement(number: number, start: start, strongEnd: strongEnd).placeOutEdges(
            sources: sources, targets: targets, flags: edgeFlags, roles: edgeRoles,
            tags: edgeTags, outTargets: &outTargets, outFlags: &outFlags, outRoles: &outRoles,
            outTags: &outTags)
        (sources, targets, edgeFlags, edgeRoles, edgeTags) = ([], [], [], [], [])
        return (outTargets, outFlags, outRoles, outTags)
    }

    /// `values` moved to the positions `number` gives.
    private static func permuted<Value>(
        _ values: [Value], by number: [CompactGraph.NodeID], filler: Value
    ) -> [Value] {
        var result = [Value](repeating: filler, count: values.count)
        for position in values.indices { result[Int(number[position])] = values[position] }
        return result
    }

    /// For each node, its number in breadth-first order from the roots over edges of every
    /// kind, then from each unreached node in the order added.
    ///
    /// - Complexity: O(*n* + *e*) time; 4 bytes per edge and 12 per node of scratch memory.
    private func localityNumbering() -> [CompactGraph.NodeID] {
        let nodeCount = kinds.count
        var start = [UInt32](repeating: 0, count: nodeCount + 1)
        for edge in sources.indices
        where Int(sources[edge]) < nodeCount && Int(targets[edge]) < nodeCount {
            start[Int(sources[edge]) + 1] &+= 1
        }
        for node in 0..<nodeCount { start[node + 1] &+= start[node] }
        var cursor = start
        var adjacent = [UInt32](repeating: 0, count: Int(start[nodeCount]))
        for edge in sources.indices
        where Int(sources[edge]) < nodeCount && Int(targets[edge]) < nodeCount {
            let from = Int(sources[edge])
            adjacent[Int(cursor[from])] = targets[edge]
            cursor[from] &+= 1
        }
        cursor = []

        let unnumbered = CompactGraph.NodeID.max
        var number = [CompactGraph.NodeID](repeating: unnumbered, count: nodeCount)
        var queue = [CompactGraph.NodeID](repeating: 0, count: nodeCount)
        var tail = 0
        var head = 0
        // All roots first (one breadth-first search from all of them), then each node no
        // earlier search reached, in the order added.
        for root in rootNodes where Int(root) < nodeCount && number[Int(root)] == unnumbered {
            number[Int(root)] = CompactGraph.NodeID(tail)
            queue[tail] = root
            tail += 1
        }
        var nextUnreached = 0
        while true {
            if head == tail {
                while nextUnreached < nodeCount, number[nextUnreached] != unnumbered {
                    nextUnreached += 1
                }
                guard nextUnreached < nodeCount else { return number }
                number[nextUnreached] = CompactGraph.NodeID(tail)
                queue[tail] = CompactGraph.NodeID(nextUnreached)
                tail += 1
            }
            let node = Int(queue[head])
            head += 1
            for slot in Int(start[node])..<Int(start[node + 1]) {
                let next = Int(adjacent[slot])
                if number[next] == unnumbered {
                    number[next] = CompactGraph.NodeID(tail)
                    queue[tail] = CompactGraph.NodeID(next)
                    tail += 1
                }
            }
        }
    }
}
