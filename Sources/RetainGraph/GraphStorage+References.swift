import Locking

extension GraphStorage {
    mutating func addReference(_ record: ReferenceRecord) -> ReferenceID? {
        guard has(record.from), has(record.to) else { return nil }
        let slot: UInt32
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            guard slots.count < Int(UInt32.max) else { return nil }
            slot = UInt32(slots.count)
            slots.append(Slot())
        }
        slots[Int(slot)].record = record
        liveReferenceCount += 1
        return ReferenceID(slot: slot, generation: slots[Int(slot)].generation)
    }

    mutating func removeReference(_ id: ReferenceID) {
        let index = Int(id.slot)
        guard index < slots.count, slots[index].generation == id.generation,
            slots[index].record != nil
        else { return }
        clearSlot(index)
    }

    private mutating func clearSlot(_ index: Int) {
        slots[index].record = nil
        slots[index].generation &+= 1
        freeSlots.append(UInt32(index))
        liveReferenceCount -= 1
    }

    /// Drops references whose holder or held node is gone.
    mutating func sweepReferences() {
        removalsSinceSweep = 0
        for index in slots.indices {
            guard let record = slots[index].record else { continue }
            if !has(record.from) || !has(record.to) { clearSlot(index) }
        }
    }

    /// Removes nodes whose object died, and nodes anchored (directly or transitively) to a node
    /// that died or was removed, then sweeps their references.
    ///
    /// Afterwards every recorded reference joins two recorded nodes.
    ///
    /// - Complexity: O(*n* + *r*), plus one more pass over the nodes per level of anchoring
    ///   removed (closures anchored to timers: one or two levels).
    mutating func prune() {
        var doomed = nodes.compactMap { id, record -> ObjectID? in
            switch record.lifetime {
            case .object: return record.object == nil ? id : nil
            case .anchored(let anchor): return !has(anchor) ? id : nil
            case .immortal: return nil
            }
        }
        while !doomed.isEmpty {
            for id in doomed { removeNode(id, sweepingWhenDue: false) }
            doomed = nodes.compactMap { id, record -> ObjectID? in
                if case .anchored(let anchor) = record.lifetime, !has(anchor) { return id }
                return nil
            }
        }
        if removalsSinceSweep > 0 { sweepReferences() }
    }

    func references(from: ObjectID) -> [Reference] {
        var result: [Reference] = []
        for index in slots.indices {
            guard let record = slots[index].record, record.from == from,
                has(record.to)
            else { continue }
            result.append(reference(record, slot: index))
        }
        return result
    }

    func nodeValues() -> [NodeEntry] {
        nodes.map { id, record in
            NodeEntry(
                id: id, type: record.type, typeName: record.typeName, label: record.label,
                kind: record.kind, address: record.address, trace: record.trace,
                timer: record.timer)
        }
    }

    /// Every recorded reference. Call it right after ``prune()``, which guarantees that both
    /// ends of each are recorded nodes (so no lookup is needed here).
    func referenceValues() -> [Reference] {
        var result: [Reference] = []
        result.reserveCapacity(liveReferenceCount)
        for index in slots.indices {
            guard let record = slots[index].record else { continue }
            result.append(reference(record, slot: index))
        }
        return result
    }

    private func reference(_ record: ReferenceRecord, slot: Int) -> Reference {
        Reference(
            id: ReferenceID(slot: UInt32(slot), generation: slots[slot].generation),
            from: record.from, to: record.to, kind: record.kind, role: record.role,
            creationTrace: record.trace, isDiscovered: record.isDiscovered)
    }
}

/// Qualified type names, computed outside the graph's lock and cached per type.
enum TypeNames {
    private static let cache = Locked<[ObjectIdentifier: String]>([:])

    /// The names of many types, taking the shared cache's lock once per distinct type.
    static func names(of types: [Any.Type?]) -> [String] {
        var local: [ObjectIdentifier: String] = [:]
        return types.map { type in
            guard let type else { return "?" }
            let key = ObjectIdentifier(type)
            if let known = local[key] { return known }
            let name = name(of: type)
            local[key] = name
            return name
        }
    }

    static func name(of type: Any.Type?) -> String {
        guard let type else { return "?" }
        let key = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[key] }) { return known }
        let name = String(reflecting: type)
        cache.withLock { $0[key] = name }
        return name
    }
}
