extension GraphStorage {
    /// Copies every node and reference into `parts`, as flat columns: no ``Node`` or
    /// ``Reference`` value, names interned (a type's name is computed once per type).
    ///
    /// Call it right after ``prune(parkingIn:)``, which guarantees that both ends of each
    /// reference are recorded nodes.
    ///
    /// - Complexity: O(*n* + *r*), one hash lookup per node (its type) and about one per
    ///   reference (its role; runs of the same role are compared, not hashed).
    func collectSnapshot() -> SnapshotParts {
        var parts = SnapshotParts(
            expectedNodes: nodes.count, expectedReferences: liveReferenceCount)
        for (id, record) in nodes {
            let typeNumber =
                record.typeName.map { parts.builder.intern($0) }
                ?? parts.typeNumber(of: record.type)
            parts.addNode(
                id: id, kind: record.kind, typeNumber: typeNumber, label: record.label,
                address: record.address, trace: record.trace, timer: record.timer)
        }
        slots.withUnsafeBufferPointer { slots in
            for index in slots.indices {
                guard let record = slots[index].record else { continue }
                parts.addReference(
                    id: ReferenceID(slot: UInt32(index), generation: slots[index].generation),
                    from: record.from, to: record.to, kind: record.kind, role: record.role,
                    trace: record.trace, isDiscovered: record.isDiscovered)
            }
        }
        return parts
    }
}
