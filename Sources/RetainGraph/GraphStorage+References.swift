import Locking

extension GraphStorage {
    mutating func addReference(_ record: ReferenceRecord) -> ReferenceID? {
        guard has(record.from), let target = nodes[record.to] else { return nil }
        let slot: UInt32
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            // `noSlot` (UInt32.max) is the list terminator, so it is never a slot.
            guard slots.count < Int(Self.noSlot) else { return nil }
            slot = UInt32(slots.count)
            slots.append(Slot())
        }
        let index = Int(slot)
        slots[index].record = record
        // Push the reference onto the front of its target's list.
        let head = target.firstIncoming
        slots[index].previousIncoming = Self.noSlot
        slots[index].nextIncoming = head
        if head != Self.noSlot { slots[Int(head)].previousIncoming = slot }
        target.firstIncoming = slot
        liveReferenceCount += 1
        return ReferenceID(slot: slot, generation: slots[index].generation)
    }

    mutating func removeReference(_ id: ReferenceID) {
        let index = Int(id.slot)
        guard index < slots.count, slots[index].generation == id.generation,
            slots[index].record != nil
        else { return }
        clearSlot(index)
    }

    private mutating func clearSlot(_ index: Int) {
        // Unlink from the target's list. If the target was removed, its record (the list head)
        // is gone with it and only the neighbours are patched; they are being swept too.
        let previous = slots[index].previousIncoming
        let next = slots[index].nextIncoming
        if previous != Self.noSlot {
            slots[Int(previous)].nextIncoming = next
        } else if let to = slots[index].record?.to, let target = nodes[to],
            target.firstIncoming == UInt32(index)
        {
            target.firstIncoming = next
        }
        if next != Self.noSlot { slots[Int(next)].previousIncoming = previous }
        slots[index].previousIncoming = Self.noSlot
        slots[index].nextIncoming = Self.noSlot
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
    /// - Parameter survivors: Receives a strong reference to every living object looked at
    ///   (see ``isAlive(_:parkingIn:)``); the caller releases them after the graph's lock.
    /// - Complexity: O(*n* + *r*), plus one more pass over the nodes per level of anchoring
    ///   removed (closures anchored to timers: one or two levels).
    mutating func prune(parkingIn survivors: inout [AnyObject]) {
        survivors.reserveCapacity(survivors.count + nodes.count)
        var doomed: [ObjectID] = []
        for (id, record) in nodes {
            switch record.lifetime {
            case .object: if !isAlive(record, parkingIn: &survivors) { doomed.append(id) }
            case .anchored(let anchor): if !has(anchor) { doomed.append(id) }
            case .immortal, .managed: break
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
        pruneThreshold = max(Self.minimumPruneThreshold, 2 * nodes.count)
    }

    /// Prunes when the node count reached ``pruneThreshold``: what bounds the memory of a graph
    /// that records and is never read.
    ///
    /// Dead objects cannot be counted as they die (the graph learns of a death only by loading
    /// a pin), so the graph prunes when it has doubled since the last prune: a prune costs
    /// O(*n* + *r*) and comes after at least *n* / 2 new nodes, O(1) amortised per node, and
    /// the nodes kept (living or dead) never exceed twice the count the last prune left, or
    /// ``minimumPruneThreshold``, whichever is larger.
    ///
    /// - Parameter survivors: As for ``prune(parkingIn:)``.
    @inline(__always)
    mutating func pruneIfDue(parkingIn survivors: inout [AnyObject]) {
        if nodes.count >= pruneThreshold { prune(parkingIn: &survivors) }
    }

    /// Whether an object node's object is alive.
    ///
    /// Reads the pinned object's counts without retaining it (``ObjectPin/isAlive``): no
    /// strong reference is made, so none can be the last one released under the graph's lock
    /// (which would run the object's `deinit` there, and deadlock a `deinit` that calls into
    /// the graph), and a snapshot costs no retain and release per node. `survivors` receives
    /// nothing now; the parameter stays for the callers that still park other loads.
    @inline(__always)
    func isAlive(_ record: NodeRecord, parkingIn survivors: inout [AnyObject]) -> Bool {
        record.pin?.isAlive ?? false
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
        nodes.map { id, record in entry(id, record) }
    }

    func entry(_ id: ObjectID, _ record: NodeRecord) -> NodeEntry {
        NodeEntry(
            id: id, type: record.type, typeName: record.typeName, label: record.label,
            kind: record.kind, address: record.address, trace: record.trace,
            timer: record.timer)
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

    func reference(_ record: ReferenceRecord, slot: Int) -> Reference {
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
