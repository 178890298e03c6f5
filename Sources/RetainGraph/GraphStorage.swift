import StackTraces

/// A recorded node, as the live graph keeps it: one 32-byte row of the node table (a test pins
/// the size).
///
/// Everything most nodes have is here; what few nodes have (a label, a creation trace, timer
/// information, an anchor) sits in sparse side tables keyed by slot, flagged in ``info``.
struct NodeSlot {
    /// The node's identity (``ObjectID/rawValue``); 0 while the slot is free.
    var id: UInt64 = 0
    /// The object's address, for object and managed nodes (pinned for object nodes, see
    /// ``ObjectPin``); 0 for other nodes.
    var address: UInt64 = 0
    /// The node's type, a number in ``GraphTables/types``.
    var type: UInt32 = 0
    /// The kind number (``GraphTables/kinds``, bits 0–23), the lifetime (bits 24–26) and the
    /// side-table flags (bits 27–29).
    var info: UInt32 = 0
    /// The first slot of the list of references that point at this node (the reverse index),
    /// or ``GraphStorage/noSlot``.
    var firstIncoming: UInt32 = GraphStorage.noSlot
    /// A scoped search's marks: its epoch (bits 3–31) and live, selected, reached (bits 0–2).
    var mark: UInt32 = 0

    /// How a node's life is decided.
    enum Lifetime: UInt32 {
        /// A free slot, or a removed node waiting for the sweep of its references.
        case free
        /// Alive while the pinned object is.
        case object
        /// Alive while the anchor node is.
        case anchored
        /// Alive for the process (roots without an object).
        case immortal
        /// Alive until removed by whoever registered it: an instrumented timer's or proxy's
        /// tracker, which the object owns and whose `deinit` removes the node before the
        /// object's memory is freed. The graph keeps no reference to such an object, not even
        /// a pin.
        case managed
    }

    static let kindMask: UInt32 = 0x00FF_FFFF
    static let hasLabel: UInt32 = 1 << 27
    static let hasTrace: UInt32 = 1 << 28
    static let hasTimer: UInt32 = 1 << 29
    static let sparseFlags = hasLabel | hasTrace | hasTimer

    var kind: UInt32 {
        get { info & Self.kindMask }
        set { info = (info & ~Self.kindMask) | newValue }
    }

    var lifetime: Lifetime { Lifetime(rawValue: (info >> 24) & 7) ?? .free }

    var isLive: Bool { (info >> 24) & 7 != 0 }

    /// The pinned object's address, for an object node.
    var pinnedObject: UnsafeMutableRawPointer? {
        lifetime == .object ? UnsafeMutableRawPointer(bitPattern: UInt(address)) : nil
    }
}

/// The state behind a ``LiveGraph``'s lock, in columns.
///
/// Nodes are rows of a table (``NodeSlot``) addressed by a dense slot, reused through a free
/// list once the references of the node that had it are swept. Two open-addressing indexes
/// find a slot by identity and by object address (``SlotIndex``).
///
/// References live in a slab (an array of 24-byte ``Slot``s reused through a free list)
/// addressed by ``ReferenceID``, whose generation makes a stale identity harmless. A reference
/// names its ends by node slot and its role by number (roles are interned when recorded).
/// References of a removed node are not searched for at removal: they are swept in batches,
/// so removal stays O(1) amortised, and the removed node's slot is reused only after the sweep.
///
/// The slab doubles as a reverse index: the references that point at a node form a doubly
/// linked list through their slots (`previousIncoming`/`nextIncoming`), headed by the node's
/// ``NodeSlot/firstIncoming``, so "who holds this node" costs O(in-degree) without a snapshot.
/// A list may still hold references whose holder was removed and not yet swept; readers skip
/// them.
struct GraphStorage {
    /// The end of a reverse-index list, and the holder of a free reference slot.
    static let noSlot = UInt32.max

    var nodes = ChunkedArray<NodeSlot>()
    var freeNodes: [UInt32] = []
    /// Slots of removed nodes, free once the references that name them are swept.
    var removedNodes: [UInt32] = []
    var nodeCount = 0
    var byID = SlotIndex(byAddress: false)
    var byAddress = SlotIndex(byAddress: true)
    var labels: [UInt32: String] = [:]
    var traces: [UInt32: StackTrace] = [:]
    var timers: [UInt32: TimerInfo] = [:]
    var anchors: [UInt32: ObjectID] = [:]
    var rootsByKind: [RootKind: ObjectID] = [:]
    var tables = GraphTables()

    var slots = ChunkedArray<Slot>()
    var freeSlots: [UInt32] = []
    var referenceTraces: [UInt32: StackTrace] = [:]
    var liveReferenceCount = 0
    var removalsSinceSweep = 0
    /// Hands out node identities; shared with the graph's timer trackers.
    let identities: IdentitySource
    /// The epoch of the last scoped search; node marks carry it.
    var searchEpoch: UInt32 = 0
    /// The node count at which the graph prunes dead objects' nodes by itself, with no reader
    /// (see ``pruneIfDue(parkingIn:)``): twice the count left by the last prune, and at least
    /// ``minimumPruneThreshold``.
    var pruneThreshold = GraphStorage.minimumPruneThreshold

    /// The smallest node count at which the graph prunes by itself.
    static let minimumPruneThreshold = 4_096

    init(identities: IdentitySource = IdentitySource()) {
        self.identities = identities
    }

    func makeID() -> ObjectID { identities.next() }

    /// The slot of node `id`, if recorded.
    @inline(__always)
    func slot(of id: ObjectID) -> UInt32? { byID.find(id.rawValue, in: nodes) }

    /// Whether `id` is a recorded node.
    @inline(__always)
    func has(_ id: ObjectID) -> Bool { slot(of: id) != nil }

    /// Stores a new node and indexes it.
    mutating func addNode(
        id: ObjectID, address: UInt64, lifetime: NodeSlot.Lifetime, type: UInt32,
        kind: NodeKind, label: String?, trace: StackTrace?, timer: TimerInfo? = nil
    ) -> UInt32 {
        let slot: UInt32
        if let free = freeNodes.popLast() {
            slot = free
        } else {
            slot = UInt32(nodes.count)
            nodes.append(NodeSlot())
        }
        var info = tables.kindNumber(of: kind) | lifetime.rawValue << 24
        if let label {
            labels[slot] = label
            info |= NodeSlot.hasLabel
        }
        if let trace {
            traces[slot] = trace
            info |= NodeSlot.hasTrace
        }
        if let timer {
            timers[slot] = timer
            info |= NodeSlot.hasTimer
        }
        nodes[Int(slot)] = NodeSlot(
            id: id.rawValue, address: address, type: type, info: info,
            firstIncoming: Self.noSlot, mark: 0)
        byID.insert(slot, in: nodes)
        if address != 0 { byAddress.insert(slot, in: nodes) }
        nodeCount += 1
        return slot
    }

    /// Removes the node in `slot`: unindexes it, releases its pin and its side-table entries.
    /// Its references stay until the next sweep, and so does the slot.
    mutating func removeNode(at slot: UInt32) {
        let node = nodes[Int(slot)]
        guard node.isLive else { return }
        byID.remove(slot, in: nodes)
        if node.address != 0 { byAddress.remove(slot, in: nodes) }
        if let object = node.pinnedObject { ObjectPin(pinnedAt: object).release() }
        if node.info & NodeSlot.hasLabel != 0 { labels[slot] = nil }
        if node.info & NodeSlot.hasTrace != 0 { traces[slot] = nil }
        if node.info & NodeSlot.hasTimer != 0 { timers[slot] = nil }
        if node.lifetime == .anchored { anchors[slot] = nil }
        if node.kind >= 4, case .root(let kind) = tables.kinds[Int(node.kind)],
            rootsByKind[kind]?.rawValue == node.id
        {
            rootsByKind[kind] = nil
        }
        nodes[Int(slot)] = NodeSlot()
        removedNodes.append(slot)
        nodeCount -= 1
        removalsSinceSweep += 1
    }

    /// Removes a node; its references are swept in a batch once enough nodes were removed.
    ///
    /// Nodes anchored to it are removed at the next ``prune(parkingIn:)``.
    mutating func removeNode(_ id: ObjectID, sweepingWhenDue: Bool = true) {
        guard let slot = slot(of: id) else { return }
        removeNode(at: slot)
        if sweepingWhenDue, removalsSinceSweep > max(64, nodeCount) { sweepReferences() }
    }

    /// Forgets every node and reference, but keeps the identity counter and the slots'
    /// generations, so identities handed out before stay unique and stale ``ReferenceID``s stay
    /// harmless (and the interned tables, search epoch and prune threshold). Releases every pin.
    mutating func removeAll() {
        for node in nodes {
            if let object = node.pinnedObject { ObjectPin(pinnedAt: object).release() }
        }
        for index in slots.indices where slots[index].from != Self.noSlot {
            slots[index].free()
            freeSlots.append(UInt32(index))
        }
        var empty = GraphStorage(identities: identities)
        empty.tables = tables
        empty.searchEpoch = searchEpoch
        empty.pruneThreshold = pruneThreshold
        empty.slots = slots
        empty.freeSlots = freeSlots
        self = empty
    }
}
