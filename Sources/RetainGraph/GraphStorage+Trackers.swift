extension GraphStorage {
    /// Registers the node of a tracker that the graph has not recorded yet (a new timer, or one
    /// whose node went with ``removeAll()``), under the identity the tracker was given, and
    /// marks everything it holds as to be applied.
    ///
    /// The journal's drain registers every queued tracker before applying any, so that a
    /// timer's edge to another tracked object (a proxy) finds that object's managed node.
    mutating func registerIfNew(_ tracker: TimerTracker, isRecording: Bool) {
        guard isRecording, !has(tracker.id) else { return }
        let registration = tracker.registration
        guard let key = registration.key else { return }  // not attached (a misuse)
        let address = UInt64(key.address)
        if let existing = byAddress.find(address, in: nodes) {
            // A dead object's node at the same address, not pruned yet.
            removeNode(at: existing)
        }
        _ = addNode(
            id: tracker.id, address: address, lifetime: .managed,
            type: tables.typeNumber(of: registration.type),
            kind: registration.kind, label: registration.label, trace: registration.trace,
            timer: tracker.wanted.info)
        tracker.isRecorded.store(true, ordering: .releasing)
        tracker.applied = TimerTracker.Applied()
        tracker.wanted.changes = .all
    }

    /// Brings the graph in line with what `tracker`'s timer holds now (see ``TimerTracker``):
    /// replaces the root edges, the calling edges (targets, the closure node and its capture)
    /// and the timer information that changed since the last time.
    ///
    /// Called by the journal's drain, with the graph's and the journal's locks held, after
    /// ``registerIfNew(_:isRecording:)``.
    ///
    /// - Parameters:
    ///   - isRecording: Whether the graph records. When it does not, edges are only removed.
    ///   - survivors: Where strong references made by loads are parked.
    mutating func apply(
        _ tracker: TimerTracker, isRecording: Bool, parkingIn survivors: inout [AnyObject]
    ) {
        let changes = tracker.wanted.changes
        tracker.wanted.changes = []
        let id = tracker.id
        guard has(id) else { return }  // not registered: the graph does not record
        if changes.contains(.info) { setTimer(tracker.wanted.info, for: id) }
        if changes.contains(.roots) {
            tracker.applied.rootEdges.removeAll { removeReference($0) }
            if isRecording {
                tracker.wanted.roots.forEachElement { edge in
                    guard let object = edge.root.object else { return }  // the root died
                    survivors.append(object)
                    let root = registerRoot(for: object, kind: edge.root.kind)
                    add(from: root, to: id, .strong, edge.role, into: &tracker.applied.rootEdges)
                }
            }
        }
        if changes.contains(.calls) {
            tracker.applied.callEdges.removeAll { removeReference($0) }
            removeNode(tracker.applied.closure)
            tracker.applied.closure = .disabled
            guard isRecording else { return }
            tracker.wanted.calls.forEachElement { edge in
                let target: ObjectID
                if let root = edge.root {
                    target = registerDetachedRoot(root, label: nil)
                } else {
                    guard let object = edge.object?.load() else { return }
                    survivors.append(object)
                    target = registerObject(object)
                }
                add(from: id, to: target, edge.kind, edge.role, into: &tracker.applied.callEdges)
            }
            if let capture = tracker.wanted.closure, let owner = capture.owner.load() {
                survivors.append(owner)
                let closure = registerAnchored(
                    kind: .closure, typeName: "closure", label: nil, anchor: id, trace: nil)
                tracker.applied.closure = closure
                add(
                    from: id, to: closure, .strong, .actionClosure, into: &tracker.applied.callEdges
                )
                add(
                    from: closure, to: registerObject(owner), capture.kind,
                    .capture(name: capture.name), into: &tracker.applied.callEdges)
            }
        }
    }

    /// Removes a tracker's timer node and its closure node.
    mutating func removeNodes(of tracker: TimerTracker) {
        removeNode(tracker.applied.closure)
        removeNode(tracker.id)
    }

    /// Registers a target or an owner as a plain object node, or finds its node.
    private mutating func registerObject(_ object: AnyObject) -> ObjectID {
        register(object, type: Swift.type(of: object), kind: .object, label: nil, trace: nil)
    }

    /// Registers the root `object` stands for, or finds it; `kind` names a new root.
    mutating func registerRoot(for object: AnyObject, kind: RootKind) -> ObjectID {
        let id = register(
            object, type: Swift.type(of: object), kind: .object, label: nil, trace: nil)
        if let slot = slot(of: id), nodes[Int(slot)].kind == GraphTables.objectKind {
            nodes[Int(slot)].kind = tables.kindNumber(of: .root(kind))
        }
        return id
    }

    private mutating func add(
        from: ObjectID, to: ObjectID, _ kind: Ownership, _ role: ReferenceRole,
        into list: inout ReferenceIDList
    ) {
        if let reference = addReference(
            from: from, to: to, ownership: kind, role: role, trace: nil, isDiscovered: false)
        {
            list.append(reference)
        }
    }
}
