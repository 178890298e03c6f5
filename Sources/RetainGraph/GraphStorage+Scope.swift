extension GraphStorage {
    /// The marks of a scoped search (bits of ``NodeSlot/mark``).
    private enum Mark: UInt32 {
        case live = 1
        case selected = 2
        case reached = 4
    }

    /// Copies the part of the graph that `scope` selects into snapshot parts, as columns (as
    /// ``collectSnapshot(notes:)`` does for the whole graph, with no value or string copied per
    /// node): the nodes in the order the search selected them, the references between them in
    /// slab order.
    ///
    /// - Parameters:
    ///   - scope: The nodes to start from and how far to follow their holders.
    ///   - notes: Notes on root objects by address (``RootNotes``), read before the lock.
    ///   - survivors: As for ``prune(parkingIn:)``.
    /// - Complexity: O(*h* + *e*) for the *h* nodes selected and the *e* references into them
    ///   and into the nodes reached on the way.
    mutating func collectScopedSnapshot(
        _ scope: SnapshotScope, notes: [UInt: String], parkingIn survivors: inout [AnyObject]
    ) -> GraphSnapshot.Builder {
        let (rows, references) = scopedSelection(scope, parkingIn: &survivors)
        var parts = GraphSnapshot.Builder(expectedNodes: 0, expectedReferences: references.count)
        collectNodes(rows: rows, into: &parts, notes: notes)
        // Each selected row's position is kept in its search mark while the references are
        // copied (the search is over), then every mark written is reset to 0, which no search
        // epoch ever is: the marks cost no map from rows to positions.
        for (position, row) in rows.enumerated() { nodes[Int(row)].mark = UInt32(position) }
        // Builder role numbers of the roles met, interned on first use.
        var roleNumbers = [UInt32](repeating: .max, count: tables.roles.count)
        for index in references {
            let slot = slots[index]
            var role = roleNumbers[Int(slot.role)]
            if role == .max {
                role = parts.builder.intern(tables.roles[slot.role])
                roleNumbers[Int(slot.role)] = role
            }
            if slot.meta & Slot.hasTrace != 0 {
                parts.referenceTraces[parts.referenceIDs.count] = referenceTraces[UInt32(index)]
            }
            parts.builder.sources.append(nodes[Int(slot.from)].mark)
            parts.builder.targets.append(nodes[Int(slot.to)].mark)
            parts.builder.edgeFlags.append(slot.edgeFlags)
            parts.builder.edgeRoles.append(role)
            parts.referenceIDs.append(ReferenceID(slot: UInt32(index), generation: slot.generation))
        }
        for row in rows { nodes[Int(row)].mark = 0 }
        if removalsSinceSweep > max(64, nodeCount) { sweepReferences() }
        return parts
    }

    /// The nodes and references a ``SnapshotScope`` selects, found through the reverse index.
    ///
    /// Only nodes reached by the search are checked for life; dead ones are removed on the spot
    /// (nodes anchored to them follow at the next prune).
    ///
    /// - Parameter survivors: As for ``prune(parkingIn:)``.
    /// - Returns: The selected node rows, in the order selected, and the slots of the
    ///   references between them, ascending.
    /// - Complexity: O(*h* + *e*) for the *h* nodes selected and the *e* references into them
    ///   and into the nodes reached on the way.
    private mutating func scopedSelection(
        _ scope: SnapshotScope, parkingIn survivors: inout [AnyObject]
    ) -> (rows: [UInt32], references: [Int]) {
        let epoch = nextSearchEpoch()
        var order: [UInt32] = []
        var frontier: [UInt32] = []
        var holders: [(Int, UInt32)] = []
        for id in scope.nodes {
            guard let slot = slot(of: id), isLive(slot, epoch: epoch),
                !isMarked(slot, .reached, epoch)
            else { continue }
            mark(slot, .reached, epoch)
            frontier.append(slot)
            select(slot, epoch, into: &order)
        }

        // Every strong holder, transitively: a breadth-first search backwards over strong
        // references.
        if scope.includesStrongHolders {
            var head = 0
            while head < order.count {
                let target = order[head]
                head += 1
                liveHolders(of: target, epoch: epoch, into: &holders)
                for (reference, holder) in holders
                where slots[reference].isRetaining {
                    select(holder, epoch, into: &order)
                }
            }
        }

        // Holders of any kind, up to `holderDistance` references from the start nodes.
        for _ in 0..<scope.holderDistance where !frontier.isEmpty {
            var next: [UInt32] = []
            for target in frontier {
                liveHolders(of: target, epoch: epoch, into: &holders)
                for (_, holder) in holders
                where !isMarked(holder, .reached, epoch) {
                    mark(holder, .reached, epoch)
                    next.append(holder)
                    select(holder, epoch, into: &order)
                }
            }
            frontier = next
        }

        // Every reference between two selected nodes is a reference into a selected node.
        var selectedSlots: [Int] = []
        for target in order {
            var slot = nodes[Int(target)].firstIncoming
            while slot != Self.noSlot {
                let index = Int(slot)
                let from = slots[index].from
                if from != Self.noSlot, nodes[Int(from)].isLive,
                    isMarked(from, .selected, epoch)
                {
                    selectedSlots.append(index)
                }
                slot = slots[index].nextIncoming
            }
        }
        // Slab order, as in a full snapshot, so that ties between equally short paths break
        // the same way.
        selectedSlots.sort()
        return (order, selectedSlots)
    }

    @inline(__always)
    private func isMarked(_ slot: UInt32, _ mark: Mark, _ epoch: UInt32) -> Bool {
        let value = nodes[Int(slot)].mark
        return value >> 3 == epoch && value & mark.rawValue != 0
    }

    @inline(__always)
    private mutating func mark(_ slot: UInt32, _ mark: Mark, _ epoch: UInt32) {
        let value = nodes[Int(slot)].mark
        nodes[Int(slot)].mark = (value >> 3 == epoch ? value : epoch << 3) | mark.rawValue
    }

    private mutating func select(_ slot: UInt32, _ epoch: UInt32, into order: inout [UInt32]) {
        guard !isMarked(slot, .selected, epoch) else { return }
        mark(slot, .selected, epoch)
        order.append(slot)
    }

    /// A fresh epoch for a scoped search's marks; when the counter wraps (29 bits), every mark
    /// is reset so that no stale mark can equal a new epoch.
    private mutating func nextSearchEpoch() -> UInt32 {
        if searchEpoch >= (1 << 29) - 1 {
            for index in nodes.indices { nodes[index].mark = 0 }
            searchEpoch = 0
        }
        searchEpoch += 1
        return searchEpoch
    }

    /// The references into `target` whose holder is a living node, with the holder's slot.
    ///
    /// - Parameter result: Emptied, then filled (one buffer serves a whole search: no
    ///   allocation per node).
    private mutating func liveHolders(
        of target: UInt32, epoch: UInt32, into result: inout [(Int, UInt32)]
    ) {
        result.removeAll(keepingCapacity: true)
        var slot = nodes[Int(target)].firstIncoming
        while slot != Self.noSlot {
            let index = Int(slot)
            // Read the link first. Removing a dead holder leaves its references in their slots
            // (they are swept later), so the list stays intact while it is walked.
            slot = slots[index].nextIncoming
            let from = slots[index].from
            guard from != Self.noSlot, isLive(from, epoch: epoch) else { continue }
            result.append((index, from))
        }
    }

    /// Whether node `slot` is recorded and its object (or its anchor's object) is alive; a node
    /// found dead is removed (its references and slot wait for the next sweep).
    private mutating func isLive(_ slot: UInt32, epoch: UInt32) -> Bool {
        guard nodes[Int(slot)].isLive else { return false }
        if isMarked(slot, .live, epoch) { return true }
        guard chainIsLive(from: slot, epoch: epoch) else {
            removeNode(at: slot)
            return false
        }
        mark(slot, .live, epoch)
        return true
    }

    /// Whether node `slot`, or the chain of anchors starting at it, ends in a living node.
    private func chainIsLive(from start: UInt32, epoch: UInt32) -> Bool {
        var slot = start
        // An anchor cycle (the graph's API cannot make one) must not loop forever.
        for _ in 0...nodeCount {
            if isMarked(slot, .live, epoch) { return true }
            let node = nodes[Int(slot)]
            switch node.lifetime {
            case .free: return false
            case .immortal, .managed: return true
            case .object: return objectIsAlive(node)
            case .anchored:
                guard let anchor = anchors[slot], let next = self.slot(of: anchor) else {
                    return false
                }
                slot = next
            }
        }
        return false
    }
}
