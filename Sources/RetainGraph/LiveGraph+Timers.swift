import StackTraces

extension LiveGraph {
    /// Runs `body` with the graph's lock held, so that an instrumented timer records one event
    /// (creation, scheduling, invalidation) with a single lock round-trip.
    ///
    /// `body` must be library code that only records: it must not call into the graph's public
    /// methods (the lock is not recursive) nor user code. It is not generic, so a call from
    /// another module costs no generic dispatch; pass results out through captured variables.
    ///
    /// ```swift
    /// var edge: ReferenceID?
    /// graph.withTimerBatch { batch in
    ///     let root = batch.registerRoot(for: runLoop) { .runLoop(thread: "main") }
    ///     edge = batch.addReference(from: root, to: timerID, kind: .strong,
    ///                               role: .scheduled(mode: "kCFRunLoopDefaultMode"))
    /// }
    /// ```
    ///
    /// - Parameter body: The recording; it gets a batch valid only for the call.
    /// - Complexity: One lock round-trip plus what `body` does.
    package func withTimerBatch(_ body: (inout TimerGraphBatch) -> Void) {
        let isRecording = isEnabled
        storage.withLock { graph in
            withUnsafeMutablePointer(to: &graph) { pointer in
                var batch = TimerGraphBatch(graph: pointer, isRecording: isRecording)
                body(&batch)
            }
        }
    }
}

/// The graph operations an instrumented timer needs, on a graph whose lock is held: see
/// ``LiveGraph/withTimerBatch(_:)``.
///
/// While the graph is disabled, registrations return ``ObjectID/disabled`` and no reference is
/// added (as with ``LiveGraph``'s own methods); removals and timer-information updates still
/// apply, so a timer tracked before the switch cleans up after itself.
package struct TimerGraphBatch: ~Copyable {
    private let graph: UnsafeMutablePointer<GraphStorage>
    private let isRecording: Bool

    fileprivate init(graph: UnsafeMutablePointer<GraphStorage>, isRecording: Bool) {
        self.graph = graph
        self.isRecording = isRecording
    }

    /// Records an object (a timer, a proxy, a target or an owner), or returns the identity it
    /// already has; see ``LiveGraph/register(_:kind:label:creationTrace:)``.
    ///
    /// - Parameters:
    ///   - timer: Timer information to set on a new node (ignored when `nil`).
    ///   - isManaged: Whether the caller removes the node (with ``removeNode(_:)``) before
    ///     `object` dies, as a tracker owned by its timer does from its `deinit`. The graph then
    ///     keeps no reference to `object`, not even a weak one.
    package mutating func register(
        _ object: AnyObject, kind: NodeKind = .object, label: String? = nil,
        creationTrace: StackTrace? = nil, timer: TimerInfo? = nil, isManaged: Bool = false
    ) -> ObjectID {
        guard isRecording else { return .disabled }
        let type: Any.Type = Swift.type(of: object)
        let id = graph.pointee.register(
            object, type: type, kind: kind, label: label, trace: creationTrace,
            isManaged: isManaged)
        if let timer { graph.pointee.nodes[id]?.timer = timer }
        return id
    }

    /// Records the root that `object` (a `RunLoop`, a `DispatchQueue`) stands for, or returns
    /// the identity it already has: `kind` is evaluated only when the root is new, so a root's
    /// name is built once per object, not once per timer.
    package mutating func registerRoot(for object: AnyObject, kind: () -> RootKind) -> ObjectID {
        guard isRecording else { return .disabled }
        let type: Any.Type = Swift.type(of: object)
        let id = graph.pointee.register(object, type: type, kind: .object, label: nil, trace: nil)
        if let record = graph.pointee.nodes[id], case .object = record.kind {
            record.kind = .root(kind())
        }
        return id
    }

    /// Records a root without an object (a type used as a target), or returns its identity.
    package mutating func registerRoot(_ kind: RootKind) -> ObjectID {
        guard isRecording else { return .disabled }
        return graph.pointee.registerDetachedRoot(kind, label: nil)
    }

    /// Records a node that lives as long as `anchor` (a timer's action closure).
    package mutating func registerAnchored(kind: NodeKind, typeName: String, anchor: ObjectID)
        -> ObjectID
    {
        guard isRecording, anchor != .disabled else { return .disabled }
        return graph.pointee.registerAnchored(
            kind: kind, typeName: typeName, label: nil, anchor: anchor, trace: nil)
    }

    /// Records that `from` holds `to`; `nil` when either is unknown or the graph is disabled.
    package mutating func addReference(
        from: ObjectID, to: ObjectID, kind: ReferenceKind, role: ReferenceRole
    ) -> ReferenceID? {
        guard isRecording, from != .disabled, to != .disabled else { return nil }
        return graph.pointee.addReference(
            ReferenceRecord(
                from: from, to: to, trace: nil, role: role, kind: kind, isDiscovered: false))
    }

    /// Removes a reference; stale identities do nothing.
    package mutating func removeReference(_ id: ReferenceID) {
        graph.pointee.removeReference(id)
    }

    /// Removes a node; its references are swept later.
    package mutating func removeNode(_ id: ObjectID) {
        guard id != .disabled else { return }
        graph.pointee.removeNode(id)
    }

    /// Updates a timer node's information in place; unknown nodes are ignored.
    package mutating func updateTimerInfo(for id: ObjectID, _ update: (inout TimerInfo) -> Void) {
        guard id != .disabled, let record = graph.pointee.nodes[id], var info = record.timer
        else { return }
        update(&info)
        record.timer = info
    }
}
