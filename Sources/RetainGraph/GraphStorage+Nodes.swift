import StackTraces

extension GraphStorage {
    /// - Parameter isManaged: Whether the caller removes the node before `object` dies (see
    ///   ``NodeSlot/Lifetime/managed``); the graph then keeps no reference to `object`.
    mutating func register(
        _ object: AnyObject, type: Any.Type, kind: NodeKind, label: String?, trace: StackTrace?,
        isManaged: Bool = false
    ) -> ObjectID {
        let address = UInt64(ObjectKey(object).address)
        if let existing = byAddress.find(address, in: nodes) {
            // Every node indexed by address is pinned or managed, and neither lets its address
            // be reused: the node is `object`'s, which the caller holds.
            if kind != .object, nodes[Int(existing)].kind == GraphTables.objectKind {
                nodes[Int(existing)].kind = tables.kindNumber(of: kind)
            }
            return ObjectID(rawValue: nodes[Int(existing)].id)
        }
        let id = makeID()
        if !isManaged { _ = ObjectPin(object) }  // released by `removeNode(at:)`
        _ = addNode(
            id: id, address: address, lifetime: isManaged ? .managed : .object,
            type: tables.typeNumber(of: type), kind: kind, label: label, trace: trace)
        return id
    }

    mutating func registerDetachedRoot(_ kind: RootKind, label: String?) -> ObjectID {
        if let existing = rootsByKind[kind], has(existing) { return existing }
        let id = makeID()
        _ = addNode(
            id: id, address: 0, lifetime: .immortal,
            type: tables.typeNumber(named: Self.rootTypeName(kind)), kind: .root(kind),
            label: label, trace: nil)
        rootsByKind[kind] = id
        return id
    }

    mutating func registerAnchored(
        kind: NodeKind, typeName: String, label: String?, anchor: ObjectID, trace: StackTrace?
    ) -> ObjectID {
        guard has(anchor) else { return .disabled }
        let id = makeID()
        let slot = addNode(
            id: id, address: 0, lifetime: .anchored, type: tables.typeNumber(named: typeName),
            kind: kind, label: label, trace: trace)
        anchors[slot] = anchor
        return id
    }

    func liveID(of object: AnyObject) -> ObjectID? {
        // A managed node is removed before its object's memory can be reused, and a pinned
        // node's pin keeps its address from reuse: a node at `object`'s address (which the
        // caller holds) is `object`'s.
        guard let slot = byAddress.find(UInt64(ObjectKey(object).address), in: nodes) else {
            return nil
        }
        return ObjectID(rawValue: nodes[Int(slot)].id)
    }

    /// Sets (or clears) the label of node `id`, if recorded.
    mutating func setLabel(_ label: String?, for id: ObjectID) {
        guard let slot = slot(of: id) else { return }
        labels[slot] = label
        if label != nil {
            nodes[Int(slot)].info |= NodeSlot.hasLabel
        } else {
            nodes[Int(slot)].info &= ~NodeSlot.hasLabel
        }
    }

    /// Sets (or clears) the timer information of node `id`, if recorded.
    mutating func setTimer(_ timer: TimerInfo?, for id: ObjectID) {
        guard let slot = slot(of: id) else { return }
        timers[slot] = timer
        if timer != nil {
            nodes[Int(slot)].info |= NodeSlot.hasTimer
        } else {
            nodes[Int(slot)].info &= ~NodeSlot.hasTimer
        }
    }

    /// Updates the timer information of node `id` in place, if it has some.
    mutating func updateTimer(for id: ObjectID, _ update: (inout TimerInfo) -> Void) {
        guard let slot = slot(of: id), var info = timers[slot] else { return }
        update(&info)
        timers[slot] = info
    }

    /// Whether the object of node `slot` (an object node) has not begun deinitialising, read
    /// without retaining it (`swift_isDeallocating`): no strong reference is made, so none can
    /// be the last one released under the graph's lock, and a snapshot costs no retain and
    /// release per node.
    @inline(__always)
    func objectIsAlive(_ node: NodeSlot) -> Bool {
        guard let object = node.pinnedObject else { return false }
        return ObjectPin(pinnedAt: object).isAlive
    }

    static func rootTypeName(_ kind: RootKind) -> String {
        switch kind {
        case .runLoop: return "RunLoop"
        case .dispatchQueue: return "DispatchQueue"
        case .immortalType(let name): return name
        case .process: return "Process"
        case .custom(let name): return name
        case .heapHolder(let holder): return holder.kind.rawValue
        }
    }
}
