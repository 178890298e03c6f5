extension GraphStorage {
    /// Copies every node and reference into `parts`: node columns in identity order, and the
    /// references placed straight into the compact graph's rows (grouped by holder, strong ones
    /// first), with no column of references in between. One loop over the node table, two over
    /// the reference slab (count, then place), writing into arrays allocated at their final
    /// size. No hashing per node or reference (types, kinds and roles are numbers already; a
    /// type or role is named once per snapshot), no retain or release per node.
    ///
    /// Call it right after ``prune(parkingIn:)``, which guarantees that both ends of each
    /// reference are recorded nodes.
    ///
    /// - Complexity: O(*n* + *r*), plus a hash lookup per label, trace, timer and note.
    /// - Parameter notes: Notes on root objects by address (``RootNotes``), read before the lock.
    func collectSnapshot(notes: [UInt: String] = [:]) -> GraphSnapshot.Builder {
        var parts = GraphSnapshot.Builder(expectedNodes: 0, expectedReferences: 0)
        // Each node slot's position in the snapshot (the order added, then the node's number).
        var positions = [UInt32](repeating: .max, count: nodes.count)
        collectNodes(into: &parts, positions: &positions, notes: notes)
        if let numberOf = parts.numberNodesByIdentity() {
            for slot in positions.indices where positions[slot] != .max {
                positions[slot] = numberOf[Int(positions[slot])]
            }
        }
        placeReferences(into: &parts, numbers: positions)
        return parts
    }

    /// Writes the node columns of every live row into `parts`, in table order, and each row's
    /// position to `positions`.
    private func collectNodes(
        into parts: inout GraphSnapshot.Builder, positions: inout [UInt32], notes: [UInt: String]
    ) {
        let count = nodeCount
        collectNodeColumns(count: count, into: &parts, notes: notes) { add in
            positions.withUnsafeMutableBufferPointer { positions in
                var position: UInt32 = 0
                nodes.forEachChunk { nodes, base in
                    for offset in nodes.indices where nodes[offset].isLive {
                        guard position < count else { return }
                        positions[base + offset] = position
                        position += 1
                        add(UInt32(base + offset), nodes[offset])
                    }
                }
            }
        }
    }

    /// Writes the node columns of `rows` (all of them live) into `parts`, in their order.
    func collectNodes(
        rows: [UInt32], into parts: inout GraphSnapshot.Builder, notes: [UInt: String]
    ) {
        collectNodeColumns(count: rows.count, into: &parts, notes: notes) { add in
            for row in rows { add(row, nodes[Int(row)]) }
        }
    }

    /// Writes node columns, and what few nodes have, into `parts` for the nodes (slot and
    /// row) `forEachNode` hands to its argument, in that order (at most `count`, the columns'
    /// size).
    private func collectNodeColumns(
        count: Int, into parts: inout GraphSnapshot.Builder, notes: [UInt: String],
        _ forEachNode: ((UInt32, NodeSlot) -> Void) -> Void
    ) {
        // Builder string numbers of the graph's types, filled as they are met.
        var typeStrings = [UInt32](repeating: .max, count: tables.types.count)
        var kinds = [CompactGraph.NodeKind](repeating: .object, count: count)
        var types = [UInt32](repeating: 0, count: count)
        var addresses = [UInt](repeating: 0, count: count)
        var keys = [UInt64](repeating: 0, count: count)
        var position = 0
        parts.builder.labels = [UInt32](repeating: 0, count: count)
        kinds.withUnsafeMutableBufferPointer { kinds in
            types.withUnsafeMutableBufferPointer { types in
                addresses.withUnsafeMutableBufferPointer { addresses in
                    keys.withUnsafeMutableBufferPointer { keys in
                        forEachNode { slot, node in
                            guard position < count else { return }
                            var type = typeStrings[Int(node.type)]
                            if type == .max {
                                type = parts.builder.intern(tables.typeName(node.type))
                                typeStrings[Int(node.type)] = type
                            }
                            types[position] = type
                            addresses[position] = UInt(node.address)
                            keys[position] = node.id
                            let kind = node.kind
                            kinds[position] =
                                kind < 4
                                ? CompactGraph.NodeKind(rawValue: UInt8(kind)) ?? .object : .root
                            if kind >= 4 || node.info & NodeSlot.sparseFlags != 0 {
                                addSparseData(
                                    of: slot, node, at: position, to: &parts, notes: notes)
                            }
                            position += 1
                        }
                    }
                }
            }
        }
        if position < count {  // not reached: `count` counts the nodes handed over
            parts.builder.labels.removeLast(count - position)
            kinds.removeLast(count - position)
            types.removeLast(count - position)
            addresses.removeLast(count - position)
            keys.removeLast(count - position)
        }
        parts.builder.kinds = kinds
        parts.builder.typeNames = types
        parts.builder.addresses = addresses
        parts.builder.keys = keys
    }

    /// Copies what few nodes have (a root's kind and note, a label, a creation trace, timer
    /// information) from node `slot` to the node at `position` of `parts`.
    private func addSparseData(
        of slot: UInt32, _ node: NodeSlot, at position: Int,
        to parts: inout GraphSnapshot.Builder, notes: [UInt: String]
    ) {
        if node.kind >= 4, case .root(let rootKind) = tables.kinds[Int(node.kind)] {
            parts.builder.addRoot(UInt32(position), kind: rootKind)
            if !notes.isEmpty, node.address != 0, let note = notes[UInt(node.address)] {
                parts.extras[position, default: NodeExtras()].note = note
            }
        }
        if node.info & NodeSlot.hasLabel != 0, let label = labels[slot] {
            parts.builder.labels[position] = parts.builder.intern(label)
        }
        if node.info & NodeSlot.hasTrace != 0, let trace = traces[slot] {
            parts.extras[position, default: NodeExtras()].trace = trace
        }
        if node.info & NodeSlot.hasTimer != 0, let timer = timers[slot] {
            parts.extras[position, default: NodeExtras()].timer = timer
        }
    }

    /// Places every live reference in its holder's row of the compact graph, by counting sort
    /// over the slab: strong references first in each row, each part in slab order.
    ///
    /// - Parameter numbers: Each node slot's number in the snapshot (`UInt32.max` for none).
    private func placeReferences(into parts: inout GraphSnapshot.Builder, numbers: [UInt32]) {
        let roleNumbers = (0..<UInt32(tables.roles.count)).map {
            parts.builder.intern(tables.roles[$0])
        }
        let nodeCount = parts.builder.nodeCount
        var outStart = [UInt32](repeating: 0, count: nodeCount + 1)
        var strongEnd = [UInt32](repeating: 0, count: nodeCount)
        numbers.withUnsafeBufferPointer { numbers in
            outStart.withUnsafeMutableBufferPointer { start in
                strongEnd.withUnsafeMutableBufferPointer { strongEnd in
                    slots.forEachChunk { slots, _ in
                        for slot in slots where slot.from != Self.noSlot {
                            let source = Int(numbers[Int(slot.from)])
                            guard source != Int(UInt32.max), numbers[Int(slot.to)] != .max
                            else { continue }
                            start[source + 1] &+= 1
                            if slot.isRetaining { strongEnd[source] &+= 1 }
                        }
                    }
                    EdgePlacement.accumulateRows(start: start, strongEnd: strongEnd)
                }
            }
        }
        let count = Int(outStart[nodeCount])
        var targets = [UInt32](repeating: 0, count: count)
        var flags = [UInt8](repeating: 0, count: count)
        var roles = [UInt32](repeating: 0, count: count)
        var identities = [ReferenceID](
            repeating: ReferenceID(slot: Self.noSlot, generation: 0), count: count)
        var strongCursor = Array(outStart.prefix(nodeCount))
        var otherCursor = strongEnd
        numbers.withUnsafeBufferPointer { numbers in
            strongCursor.withUnsafeMutableBufferPointer { strongCursor in
                otherCursor.withUnsafeMutableBufferPointer { otherCursor in
                    targets.withUnsafeMutableBufferPointer { targets in
                        flags.withUnsafeMutableBufferPointer { flags in
                            roles.withUnsafeMutableBufferPointer { roles in
                                identities.withUnsafeMutableBufferPointer { identities in
                                    slots.forEachChunk { slots, base in
                                        for offset in slots.indices
                                        where slots[offset].from != Self.noSlot {
                                            let slot = slots[offset]
                                            let source = numbers[Int(slot.from)]
                                            let target = numbers[Int(slot.to)]
                                            guard source != .max, target != .max else { continue }
                                            let edge: Int
                                            if slot.isRetaining {
                                                edge = Int(strongCursor[Int(source)])
                                                strongCursor[Int(source)] &+= 1
                                            } else {
                                                edge = Int(otherCursor[Int(source)])
                                                otherCursor[Int(source)] &+= 1
                                            }
                                            let index = base + offset
                                            if slot.meta & Slot.hasTrace != 0 {
                                                parts.referenceTraces[edge] =
                                                    referenceTraces[UInt32(index)]
                                            }
                                            targets[edge] = target
                                            flags[edge] = slot.edgeFlags
                                            roles[edge] = roleNumbers[Int(slot.role)]
                                            identities[edge] = ReferenceID(
                                                slot: UInt32(index), generation: slot.generation)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        parts.placedRows = GraphSnapshot.Builder.PlacedRows(
            outStart: outStart, strongOutEnd: strongEnd)
        parts.builder.targets = targets
        parts.builder.edgeFlags = flags
        parts.builder.edgeRoles = roles
        parts.referenceIDs = identities
    }
}
