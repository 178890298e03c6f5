extension GraphStorage {
    /// Copies every node and reference into `parts`, as flat columns: no ``Node`` or
    /// ``Reference`` value, names interned (a type's name is computed once per type).
    ///
    /// Call it right after ``prune(parkingIn:)``, which guarantees that both ends of each
    /// reference are recorded nodes.
    ///
    /// - Complexity: O(*n* + *r*), one hash lookup per node (its type) and about one per
    ///   reference (its role; runs of the same role are compared, not hashed).
    /// - Parameter notes: Notes on root objects by address (``RootNotes``), read before the lock.
    func collectSnapshot(notes: [UInt: String] = [:]) -> SnapshotParts {
        var parts = SnapshotParts(
            expectedNodes: nodes.count, expectedReferences: liveReferenceCount)
        for (id, record) in nodes {
            let typeNumber =
                record.typeName.map { parts.builder.intern($0) }
                ?? parts.typeNumber(of: record.type)
            var note: String?
            if !notes.isEmpty, record.kind.isRoot, let address = record.address {
                note = notes[address]
            }
            parts.addNode(
                id: id, kind: record.kind, typeNumber: typeNumber, label: record.label,
                address: record.address, trace: record.trace, timer: record.timer, note: note)
        }
        slots.withUnsafeBufferPointer { slots in
            guard let base = slots.baseAddress else { return }
            for index in slots.indices {
                // Field by field through the slot's address: copying the whole optional
                // record would retain and release its role's string and its trace.
                let slot = base + index
                guard let from = slot.pointee.record?.from, let to = slot.pointee.record?.to,
                    let kind = slot.pointee.record?.kind,
                    let role = slot.pointee.record?.role,
                    let isDiscovered = slot.pointee.record?.isDiscovered
                else { continue }
                parts.addReference(
                    id: ReferenceID(slot: UInt32(index), generation: slot.pointee.generation),
                    from: from, to: to, kind: kind, role: role,
                    trace: slot.pointee.record?.trace, isDiscovered: isDiscovered)
            }
        }
        return parts
    }
}
