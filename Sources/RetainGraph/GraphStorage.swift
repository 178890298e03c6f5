import Locking
import StackTraces

/// A recorded node, as the live graph keeps it.
///
/// A class rather than a struct: a record holds an object pin, an existential metatype and
/// several optionals, and copying such a value (every dictionary iteration in `prune()` and
/// `nodeValues()`) went through its value witness: about half of `snapshot()`'s time. A class
/// reference copies with one retain, and a class can release the pin in its `deinit`. Records
/// are only ever touched under the graph's lock.
final class NodeRecord {
    /// How a node's life is decided.
    enum Lifetime {
        /// Alive while the pinned object is.
        case object
        /// Alive while the anchor node is.
        case anchored(ObjectID)
        /// Alive for the process (roots without an object).
        case immortal
        /// Alive until removed by whoever registered it: an instrumented timer's or proxy's
        /// tracker, which the object owns and whose `deinit` removes the node before the
        /// object's memory is freed. The graph keeps no reference to such an object, not even a
        /// pin.
        case managed
    }

    /// The object of an ``Lifetime/object`` node, pinned (see ``ObjectPin``: not a weak
    /// reference, which would give the object a side table and slow down its every retain and
    /// release); `nil` for other nodes.
    let pin: ObjectPin?
    let key: ObjectKey?
    let lifetime: Lifetime
    let type: Any.Type?
    let typeName: String?
    var label: String?
    var kind: NodeKind
    let address: UInt?
    let trace: StackTrace?
    var timer: TimerInfo?
    /// The first slot of the list of references that point at this node (the reverse index),
    /// or ``GraphStorage/noSlot``.
    var firstIncoming: UInt32 = GraphStorage.noSlot
    /// Marks of a scoped search (see `GraphStorage.scopedValues`): the search's epoch once the
    /// node is known alive, selected, or reached by the holder search. Cheaper than sets of
    /// identities: a search touches each record it visits anyway.
    var liveMark: UInt32 = 0
    var selectedMark: UInt32 = 0
    var reachedMark: UInt32 = 0

    /// Whether the node's registrant removes it (``Lifetime/managed``).
    var isManaged: Bool {
        if case .managed = lifetime { return true }
        return false
    }

    init(
        object: AnyObject? = nil, key: ObjectKey?, lifetime: Lifetime, type: Any.Type?,
        typeName: String?, label: String?, kind: NodeKind, address: UInt?, trace: StackTrace?,
        timer: TimerInfo?
    ) {
        pin = object.map(ObjectPin.init)
        self.key = key
        self.lifetime = lifetime
        self.type = type
        self.typeName = typeName
        self.label = label
        self.kind = kind
        self.address = address
        self.trace = trace
        self.timer = timer
    }

    deinit { pin?.release() }

    /// The node's object, retained, if it is an object node and the object is alive.
    var object: AnyObject? { pin?.load() }
}

/// A recorded reference, as the live graph keeps it.
///
/// Fields are ordered largest first so that a ``GraphStorage/Slot`` (this record, optional,
/// a 32-bit generation and the two 32-bit links of the reverse index) packs into 56 bytes on
/// 64-bit platforms: the one-byte fields and the generation share a word. A test pins the size.
struct ReferenceRecord {
    var from: ObjectID
    var to: ObjectID
    var trace: StackTrace?
    var role: ReferenceRole
    var kind: ReferenceKind
    var isDiscovered: Bool
}

/// A node copied out of the live graph, before its type name is computed.
struct NodeEntry: @unchecked Sendable {
    var id: ObjectID
    var type: Any.Type?
    var typeName: String?
    var label: String?
    var kind: NodeKind
    var address: UInt?
    var trace: StackTrace?
    var timer: TimerInfo?
}

/// The state behind a ``LiveGraph``'s lock.
///
/// References live in a slab (an array of slots reused through a free list) addressed by
/// ``ReferenceID``, whose generation makes a stale identity harmless. References of a removed
/// node are not searched for at removal: they are swept in batches, so removal stays O(1)
/// amortised.
///
/// The slab doubles as a reverse index: the references that point at a node form a doubly
/// linked list through their slots (`previousIncoming`/`nextIncoming`), headed by the node's
/// record (``NodeRecord/firstIncoming``), so "who holds this node" costs O(in-degree) without a
/// snapshot. A list may still hold references whose holder was removed and not yet swept;
/// readers skip them.
struct GraphStorage {
    /// One reference's place in the slab; `record` is `nil` while the slot is free.
    struct Slot {
        var record: ReferenceRecord?
        var generation: UInt32 = 0
        /// The previous reference to the same node, or ``GraphStorage/noSlot`` at the head.
        var previousIncoming: UInt32 = GraphStorage.noSlot
        /// The next reference to the same node, or ``GraphStorage/noSlot``.
        var nextIncoming: UInt32 = GraphStorage.noSlot
    }

    /// The end of a reverse-index list.
    static let noSlot = UInt32.max

    var nodes: [ObjectID: NodeRecord] = [:]
    var idsByObject: [ObjectKey: ObjectID] = [:]
    var rootsByKind: [RootKind: ObjectID] = [:]
    var slots: [Slot] = []
    var freeSlots: [UInt32] = []
    var liveReferenceCount = 0
    var removalsSinceSweep = 0
    /// Hands out node identities; shared with the graph's timer trackers.
    let identities: IdentitySource
    /// The epoch of the last scoped search; node records carry marks from it.
    var searchEpoch: UInt32 = 0
    /// The node count at which the graph prunes dead objects' nodes by itself, with no reader
    /// (see ``pruneIfDue(parkingIn:)``): twice the count left by the last prune, and at least
    /// ``minimumPruneThreshold``.
    var pruneThreshold = GraphStorage.minimumPruneThreshold

    /// The smallest node count at which the graph prunes by itself.
    static let minimumPruneThreshold = 4_096

    /// Whether `id` is a recorded node. Unlike `nodes[id] != nil`, this copies no record (a
    /// record is a class, and copying a reference to it costs a retain and a release).
    @inline(__always)
    func has(_ id: ObjectID) -> Bool { nodes.index(forKey: id) != nil }

    init(identities: IdentitySource = IdentitySource()) {
        self.identities = identities
    }

    func makeID() -> ObjectID { identities.next() }

    // MARK: Nodes

    /// - Parameter isManaged: Whether the caller removes the node before `object` dies (see
    ///   ``NodeRecord/Lifetime/managed``); the graph then keeps no reference to `object`.
    mutating func register(
        _ object: AnyObject, type: Any.Type, kind: NodeKind, label: String?, trace: StackTrace?,
        isManaged: Bool = false
    ) -> ObjectID {
        let key = ObjectKey(object)
        if let existing = idsByObject[key], let record = nodes[existing] {
            // A pinned address is never reused, so a pin at `object`'s address pins `object`,
            // which the caller holds.
            if record.isManaged || record.pin != nil {
                if kind != .object, record.kind == .object { record.kind = kind }
                return existing
            }
            // Not reachable while every keyed node is pinned or managed (neither lets its
            // address be reused); kept so a stale key can never name the wrong object.
            removeNode(existing)
        }
        let id = makeID()
        nodes[id] = NodeRecord(
            object: isManaged ? nil : object, key: key, lifetime: isManaged ? .managed : .object,
            type: type, typeName: nil, label: label, kind: kind, address: key.address,
            trace: trace, timer: nil)
        idsByObject[key] = id
        return id
    }

    mutating func registerDetachedRoot(_ kind: RootKind, label: String?) -> ObjectID {
        if let existing = rootsByKind[kind], has(existing) { return existing }
        let id = makeID()
        nodes[id] = NodeRecord(
            key: nil, lifetime: .immortal, type: nil, typeName: Self.rootTypeName(kind),
            label: label,
            kind: .root(kind), address: nil, trace: nil, timer: nil)
        rootsByKind[kind] = id
        return id
    }

    mutating func registerAnchored(
        kind: NodeKind, typeName: String, label: String?, anchor: ObjectID, trace: StackTrace?
    ) -> ObjectID {
        guard has(anchor) else { return .disabled }
        let id = makeID()
        nodes[id] = NodeRecord(
            key: nil, lifetime: .anchored(anchor), type: nil, typeName: typeName, label: label,
            kind: kind,
            address: nil, trace: trace, timer: nil)
        return id
    }

    func liveID(of object: AnyObject) -> ObjectID? {
        guard let id = idsByObject[ObjectKey(object)], let record = nodes[id] else { return nil }
        // A managed node is removed before its object's memory can be reused.
        // A pinned node's pin is at `object`'s address; the caller holds `object`.
        return record.isManaged || record.pin?.holds(object) == true ? id : nil
    }

    /// Forgets every node and reference, but keeps the identity counter and the slots'
    /// generations, so identities handed out before stay unique and stale ``ReferenceID``s stay
    /// harmless.
    mutating func removeAll() {
        nodes = [:]
        idsByObject = [:]
        rootsByKind = [:]
        for index in slots.indices where slots[index].record != nil {
            slots[index].record = nil
            slots[index].generation &+= 1
            slots[index].previousIncoming = Self.noSlot
            slots[index].nextIncoming = Self.noSlot
            freeSlots.append(UInt32(index))
        }
        liveReferenceCount = 0
        removalsSinceSweep = 0
    }

    /// Removes a node; its references are swept in a batch once enough nodes were removed.
    ///
    /// Nodes anchored to it are removed at the next ``prune()``.
    mutating func removeNode(_ id: ObjectID, sweepingWhenDue: Bool = true) {
        guard let record = nodes.removeValue(forKey: id) else { return }
        // One hash lookup: take the key's entry out, and put it back in the rare case that it
        // already names a newer node (a dead object's address reused).
        if let key = record.key, let mapped = idsByObject.removeValue(forKey: key), mapped != id {
            idsByObject[key] = mapped
        }
        if case .root(let kind) = record.kind, rootsByKind[kind] == id { rootsByKind[kind] = nil }
        removalsSinceSweep += 1
        if sweepingWhenDue, removalsSinceSweep > max(64, nodes.count) { sweepReferences() }
    }

    static func rootTypeName(_ kind: RootKind) -> String {
        switch kind {
        case .runLoop: return "RunLoop"
        case .dispatchQueue: return "DispatchQueue"
        case .immortalType(let name): return name
        case .process: return "Process"
        case .custom(let name): return name
        case .heapHolder(let holder, _): return holder.rawValue
        }
    }
}
