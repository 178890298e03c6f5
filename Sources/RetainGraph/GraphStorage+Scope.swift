extension GraphStorage {
    /// The nodes and references a ``SnapshotScope`` selects, found through the reverse index.
    ///
    /// Only nodes reached by the search are checked for life; dead ones are removed on the spot
    /// (nodes anchored to them follow at the next prune).
    ///
    /// - Parameter survivors: Receives a strong reference to every living object looked at
    ///   (see ``isAlive(_:parkingIn:)``); the caller releases them after the graph's lock.
    /// - Complexity: O(*h* + *e*) for the *h* nodes selected and the *e* references into them
    ///   and into the nodes reached on the way.
    mutating func scopedValues(_ scope: SnapshotScope, parkingIn survivors: inout [AnyObject])
        -> (nodes: [NodeEntry], references: [Reference])
    {
        let epoch = nextSearchEpoch()
        var order: [(id: ObjectID, record: NodeRecord)] = []
        func select(_ id: ObjectID, _ record: NodeRecord) {
            guard record.selectedMark != epoch else { return }
            record.selectedMark = epoch
            order.append((id, record))
        }
        var frontier: [(id: ObjectID, record: NodeRecord)] = []
        for id in scope.nodes {
            guard let record = liveRecord(id, epoch: epoch, parkingIn: &survivors),
                record.reachedMark != epoch
            else { continue }
            record.reachedMark = epoch
            frontier.append((id, record))
            select(id, record)
        }

        // Every strong holder, transitively: a breadth-first search backwards over strong
        // references.
        if scope.includesStrongHolders {
            var head = 0
            while head < order.count {
                let target = order[head].record
                head += 1
                forEachLiveHolder(of: target, epoch: epoch, parkingIn: &survivors) {
                    reference, holder in
                    if reference.kind == .strong { select(reference.from, holder) }
                }
            }
        }

        // Holders of any kind, up to `holderDistance` references from the start nodes.
        for _ in 0..<scope.holderDistance where !frontier.isEmpty {
            var next: [(id: ObjectID, record: NodeRecord)] = []
            for (_, target) in frontier {
                forEachLiveHolder(of: target, epoch: epoch, parkingIn: &survivors) {
                    reference, holder in
                    guard holder.reachedMark != epoch else { return }
                    holder.reachedMark = epoch
                    next.append((reference.from, holder))
                    select(reference.from, holder)
                }
            }
            frontier = next
        }

        // Every reference between two selected nodes is a reference into a selected node.
        var selectedSlots: [Int] = []
        for (_, target) in order {
            var slot = target.firstIncoming
            while slot != Self.noSlot {
                let index = Int(slot)
                if let reference = slots[index].record,
                    nodes[reference.from]?.selectedMark == epoch
                {
                    selectedSlots.append(index)
                }
                slot = slots[index].nextIncoming
            }
        }
        // Slab order, as in a full snapshot, so that ties between equally short paths break
        // the same way.
        selectedSlots.sort()
        let references = selectedSlots.compactMap { index in
            slots[index].record.map { reference($0, slot: index) }
        }
        return (order.map { entry($0.id, $0.record) }, references)
    }

    /// A fresh epoch for a scoped search's marks; when the counter wraps, every mark is reset so
    /// that no stale mark can equal a new epoch.
    private mutating func nextSearchEpoch() -> UInt32 {
        if searchEpoch == .max {
            for record in nodes.values {
                record.liveMark = 0
                record.selectedMark = 0
                record.reachedMark = 0
            }
            searchEpoch = 0
        }
        searchEpoch += 1
        return searchEpoch
    }

    /// Calls `body` with each reference into `target` whose holder is a living node, and the
    /// holder's record.
    private mutating func forEachLiveHolder(
        of target: NodeRecord, epoch: UInt32, parkingIn survivors: inout [AnyObject],
        _ body: (ReferenceRecord, NodeRecord) -> Void
    ) {
        var slot = target.firstIncoming
        while slot != Self.noSlot {
            let index = Int(slot)
            // Read the link first. Removing a dead holder leaves its references in their slots
            // (they are swept later), so the list stays intact while it is walked.
            slot = slots[index].nextIncoming
            guard let reference = slots[index].record,
                let holder = liveRecord(reference.from, epoch: epoch, parkingIn: &survivors)
            else { continue }
            body(reference, holder)
        }
    }

    /// The record of `id` if it is a recorded node whose object (or whose anchor's object) is
    /// alive; a node found dead is removed.
    private mutating func liveRecord(
        _ id: ObjectID, epoch: UInt32, parkingIn survivors: inout [AnyObject]
    ) -> NodeRecord? {
        guard let record = nodes[id] else { return nil }
        if record.liveMark == epoch { return record }
        let alive: Bool
        switch record.lifetime {
        case .immortal, .managed: alive = true
        case .object: alive = isAlive(record, parkingIn: &survivors)
        case .anchored(let anchor):
            alive = anchorIsLive(anchor, epoch: epoch, parkingIn: &survivors)
        }
        guard alive else {
            removeNode(id)
            return nil
        }
        record.liveMark = epoch
        return record
    }

    /// Whether the chain of anchors starting at `anchor` ends in a living node.
    private func anchorIsLive(
        _ anchor: ObjectID, epoch: UInt32, parkingIn survivors: inout [AnyObject]
    ) -> Bool {
        var current = anchor
        // An anchor cycle (the graph's API cannot make one) must not loop forever.
        for _ in 0...nodes.count {
            guard let record = nodes[current] else { return false }
            if record.liveMark == epoch { return true }
            switch record.lifetime {
            case .immortal, .managed: return true
            case .object: return isAlive(record, parkingIn: &survivors)
            case .anchored(let next): current = next
            }
        }
        return false
    }
}
