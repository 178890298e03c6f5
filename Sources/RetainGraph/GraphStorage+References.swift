import Locking
import StackTraces

extension GraphStorage {
    /// One reference's place in the slab: 24 bytes (a test pins the size).
    struct Slot {
        /// The holder's node slot, or ``GraphStorage/noSlot`` while the slot is free.
        var from: UInt32 = GraphStorage.noSlot
        /// The held node's slot.
        var to: UInt32 = GraphStorage.noSlot
        /// The role's number in ``GraphTables/roles``.
        var role: UInt32 = 0
        /// The ownership (bits 0–2, its ``/ObjectGraph/Ownership/byte``), discovered (bit 3),
        /// has a trace (bit 4) and the generation (bits 5–31).
        var meta: UInt32 = 0
        /// The previous reference to the same node, or ``GraphStorage/noSlot`` at the head.
        var previousIncoming: UInt32 = GraphStorage.noSlot
        /// The next reference to the same node, or ``GraphStorage/noSlot``.
        var nextIncoming: UInt32 = GraphStorage.noSlot

        static let discovered: UInt32 = 1 << 3
        static let hasTrace: UInt32 = 1 << 4
        static let generationShift: UInt32 = 5

        var generation: UInt32 { meta >> Self.generationShift }

        var ownership: Ownership { Ownership(byte: UInt8(meta & 7)) }

        /// Whether the reference keeps its target alive (strong or conservative).
        var isRetaining: Bool { meta & 7 < 2 }

        /// The compact graph's edge flags of this reference.
        var edgeFlags: UInt8 {
            CompactGraph.flags(ownership, meta & Self.discovered != 0 ? .reflection : .declared)
        }

        /// Frees the slot and bumps its generation (28 bits, wrapping).
        mutating func free() {
            from = GraphStorage.noSlot
            to = GraphStorage.noSlot
            previousIncoming = GraphStorage.noSlot
            nextIncoming = GraphStorage.noSlot
            meta = (generation &+ 1) << Self.generationShift
        }
    }

    mutating func addReference(
        from: ObjectID, to: ObjectID, ownership: Ownership, role: ReferenceRole,
        trace: StackTrace?, isDiscovered: Bool
    ) -> ReferenceID? {
        guard let source = slot(of: from), let target = slot(of: to) else { return nil }
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
        var meta = slots[index].generation << Slot.generationShift | UInt32(ownership.byte)
        if isDiscovered { meta |= Slot.discovered }
        if let trace {
            referenceTraces[slot] = trace
            meta |= Slot.hasTrace
        }
        // Push the reference onto the front of its target's list.
        let head = nodes[Int(target)].firstIncoming
        slots[index] = Slot(
            from: source, to: target, role: tables.roles.intern(role), meta: meta,
            previousIncoming: Self.noSlot, nextIncoming: head)
        if head != Self.noSlot { slots[Int(head)].previousIncoming = slot }
        nodes[Int(target)].firstIncoming = slot
        liveReferenceCount += 1
        return ReferenceID(slot: slot, generation: meta >> Slot.generationShift)
    }

    mutating func removeReference(_ id: ReferenceID) {
        let index = Int(id.slot)
        guard index < slots.count, slots[index].generation == id.generation,
            slots[index].from != Self.noSlot
        else { return }
        clearSlot(index)
    }

    private mutating func clearSlot(_ index: Int) {
        // Unlink from the target's list. If the target was removed, its head is patched
        // harmlessly: a removed node's slot is reset when reused.
        let previous = slots[index].previousIncoming
        let next = slots[index].nextIncoming
        if previous != Self.noSlot {
            slots[Int(previous)].nextIncoming = next
        } else {
            let target = Int(slots[index].to)
            if nodes[target].firstIncoming == UInt32(index) { nodes[target].firstIncoming = next }
        }
        if next != Self.noSlot { slots[Int(next)].previousIncoming = previous }
        if slots[index].meta & Slot.hasTrace != 0 { referenceTraces[UInt32(index)] = nil }
        slots[index].free()
        freeSlots.append(UInt32(index))
        liveReferenceCount -= 1
    }

    /// Drops references whose holder or held node is gone, then frees the removed nodes'
    /// slots (no reference names them any more).
    mutating func sweepReferences() {
        removalsSinceSweep = 0
        for index in slots.indices {
            let from = slots[index].from
            guard from != Self.noSlot else { continue }
            if !nodes[Int(from)].isLive || !nodes[Int(slots[index].to)].isLive {
                clearSlot(index)
            }
        }
        freeNodes.append(contentsOf: removedNodes)
        removedNodes.removeAll(keepingCapacity: true)
    }

    /// The references `from` holds, to recorded nodes.
    func references(from: ObjectID) -> [Reference] {
        guard let source = slot(of: from) else { return [] }
        var result: [Reference] = []
        for index in slots.indices where slots[index].from == source {
            guard nodes[Int(slots[index].to)].isLive else { continue }
            result.append(reference(at: index))
        }
        return result
    }

    /// Reference `index` of the slab, copied out.
    func reference(at index: Int) -> Reference {
        let slot = slots[index]
        return Reference(
            id: ReferenceID(slot: UInt32(index), generation: slot.generation),
            from: ObjectID(rawValue: nodes[Int(slot.from)].id),
            to: ObjectID(rawValue: nodes[Int(slot.to)].id), ownership: slot.ownership,
            role: tables.roles[slot.role],
            creationTrace: slot.meta & Slot.hasTrace != 0
                ? referenceTraces[UInt32(index)] : nil,
            origin: slot.meta & Slot.discovered != 0 ? .reflection : .declared)
    }
}

extension GraphStorage {
    // MARK: Pruning

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

/// Qualified type names, computed outside the graph's lock and cached per type.
enum TypeNameCache {
    private static let cache = Locked<[ObjectIdentifier: String]>([:])

    static func name(of type: Any.Type?) -> String {
        guard let type else { return "?" }
        let key = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[key] }) { return known }
        let name = String(reflecting: type)
        cache.withLock { $0[key] = name }
        return name
    }
}
