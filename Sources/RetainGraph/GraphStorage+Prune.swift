extension GraphStorage {
    /// Removes nodes whose object died, and nodes anchored (directly or transitively) to a node
    /// that died or was removed, then sweeps their references.
    ///
    /// Afterwards every recorded reference joins two recorded nodes.
    ///
    /// Liveness is read without retaining (``objectIsAlive(_:)``), so `survivors` receives
    /// nothing now; the parameter stays for the callers that park other loads.
    ///
    /// - Complexity: O(*n* + *r*), plus one pass over the anchored nodes per level of anchoring
    ///   removed (closures anchored to timers: one or two levels).
    mutating func prune(parkingIn survivors: inout [AnyObject]) {
        var doomed: [UInt32] = []
        nodes.forEachChunk { nodes, base in
            for offset in nodes.indices where nodes[offset].lifetime == .object {
                if !objectIsAlive(nodes[offset]) { doomed.append(UInt32(base + offset)) }
            }
        }
        doomed.append(contentsOf: orphanedAnchoredNodes())
        while !doomed.isEmpty {
            for slot in doomed { removeNode(at: slot) }
            doomed = orphanedAnchoredNodes()
        }
        if removalsSinceSweep > 0 || !removedNodes.isEmpty { sweepReferences() }
        pruneThreshold = max(Self.minimumPruneThreshold, 2 * nodeCount)
    }

    /// Anchored nodes whose anchor is gone.
    private func orphanedAnchoredNodes() -> [UInt32] {
        anchors.compactMap { slot, anchor in has(anchor) ? nil : slot }
    }

    /// Prunes when the node count reached ``pruneThreshold``: what bounds the memory of a graph
    /// that records and is never read.
    ///
    /// Dead objects cannot be counted as they die (the graph learns of a death only by reading
    /// a pinned object's counts), so the graph prunes when it has doubled since the last
    /// prune: a prune costs O(*n* + *r*) and comes after at least *n* / 2 new nodes, O(1)
    /// amortised per node, and the nodes kept (living or dead) never exceed twice the count
    /// the last prune left, or ``minimumPruneThreshold``, whichever is larger.
    ///
    /// - Parameter survivors: As for ``prune(parkingIn:)``.
    @inline(__always)
    mutating func pruneIfDue(parkingIn survivors: inout [AnyObject]) {
        if nodeCount >= pruneThreshold { prune(parkingIn: &survivors) }
    }
}
