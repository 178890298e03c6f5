extension GraphStorage {
    /// Copies every node and reference into `parts`, as flat columns: a loop over the node
    /// table and one over the reference slab, no hashing per node or reference (types, kinds
    /// and roles are numbers already; a type is named once per snapshot), no retain or
    /// release per node.
    ///
    /// Call it right after ``prune(parkingIn:)``, which guarantees that both ends of each
    /// reference are recorded nodes.
    ///
    /// - Complexity: O(*n* + *r*), plus a hash lookup per label, trace, timer and note.
    /// - Parameter notes: Notes on root objects by address (``RootNotes``), read before the lock.
    func collectSnapshot(notes: [UInt: String] = [:]) -> SnapshotParts {
        var parts = SnapshotParts(expectedNodes: nodeCount, expectedReferences: liveReferenceCount)
        // Builder string numbers of the graph's types and roles, filled as they are met.
        var typeStrings = [UInt32](repeating: .max, count: tables.types.count)
        var roleStrings = [UInt32](repeating: .max, count: tables.roles.count)
        // Each node slot's position in the snapshot (the order added).
        var positions = [UInt32](repeating: .max, count: nodes.count)
        nodes.forEachChunk { nodes, base in
            for offset in nodes.indices where nodes[offset].isLive {
                let node = nodes[offset]
                let slot = base + offset
                let position = parts.ids.count
                positions[slot] = UInt32(position)
                var typeString = typeStrings[Int(node.type)]
                if typeString == .max {
                    typeString = parts.builder.intern(tables.typeName(node.type))
                    typeStrings[Int(node.type)] = typeString
                }
                parts.ids.append(ObjectID(rawValue: node.id))
                let kind = node.kind
                let compactKind = kind < 4 ? CompactGraph.NodeKind(rawValue: UInt8(kind)) : nil
                parts.builder.addNode(
                    kind: compactKind ?? .root, typeNameNumber: typeString,
                    address: UInt(node.address), key: node.id)
                if kind >= 4, case .root(let rootKind) = tables.kinds[Int(kind)] {
                    parts.rootKinds.append((position, rootKind))
                    if !notes.isEmpty, node.address != 0, let note = notes[UInt(node.address)] {
                        parts.notes.append((position, note))
                    }
                }
            }
        }
        for (slot, label) in labels where positions[Int(slot)] != .max {
            parts.builder.labels[Int(positions[Int(slot)])] = parts.builder.intern(label)
        }
        for (slot, trace) in traces where positions[Int(slot)] != .max {
            parts.traces.append((Int(positions[Int(slot)]), trace))
        }
        for (slot, timer) in timers where positions[Int(slot)] != .max {
            parts.timers.append((Int(positions[Int(slot)]), timer))
        }
        slots.forEachChunk { slots, base in
            for offset in slots.indices where slots[offset].from != Self.noSlot {
                let slot = slots[offset]
                let index = base + offset
                let source = positions[Int(slot.from)]
                let target = positions[Int(slot.to)]
                guard source != .max, target != .max else { continue }
                var roleString = roleStrings[Int(slot.role)]
                if roleString == .max {
                    roleString = parts.internRole(tables.roles[Int(slot.role)])
                    roleStrings[Int(slot.role)] = roleString
                }
                if slot.meta & Slot.hasTrace != 0 {
                    parts.referenceTraces[parts.sourcePositions.count] =
                        referenceTraces[UInt32(index)]
                }
                parts.sourcePositions.append(source)
                parts.targetPositions.append(target)
                parts.edgeFlags.append(
                    UInt8(slot.meta & 3) | (slot.meta & Slot.discovered != 0 ? 0x80 : 0))
                parts.edgeRoles.append(roleString)
                parts.referenceIDs.append(
                    ReferenceID(slot: UInt32(index), generation: slot.generation))
            }
        }
        return parts
    }
}
