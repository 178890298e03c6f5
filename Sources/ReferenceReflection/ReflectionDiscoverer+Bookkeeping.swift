import RetainGraph

extension ReflectionDiscoverer {
    /// Drops what the walk found inside the library's own recording machinery: an
    /// instrumented timer's `tracker` and any reference to a `LiveGraph` (whose storage refers
    /// weakly to every recorded object), and a timer's pointer back to the run loop or queue
    /// that schedules it (recorded the other way round, as the root's edge). What only those
    /// references reached is dropped too.
    ///
    /// - Parameters:
    ///   - result: A walk.
    ///   - declared: The snapshot the walk will be added to.
    /// - Returns: The walk without those references.
    static func withoutBookkeeping(_ result: WalkResult, declared: GraphSnapshot) -> WalkResult {
        let graphNodes = Set(
            result.nodes.filter { $0.typeName == String(reflecting: LiveGraph.self) }.map(\.id))
        func isBookkeeping(_ reference: Reference) -> Bool {
            if case .storedProperty(let name) = reference.role,
                name == "tracker" || name.hasPrefix("tracker.")
            {
                return true
            }
            return declared.node(reference.to)?.isRoot ?? false
                || graphNodes.contains(reference.to)
        }
        let kept = collapsingLockBoxes(
            result.references.filter { !isBookkeeping($0) }, nodes: result.nodes)
        var outgoing: [ObjectID: [Reference]] = [:]
        for reference in kept { outgoing[reference.from, default: []].append(reference) }
        var reached = Set(result.rootIDs)
        var queue = result.rootIDs
        while let id = queue.popLast() {
            for reference in outgoing[id] ?? [] where reached.insert(reference.to).inserted {
                queue.append(reference.to)
            }
        }
        return WalkResult(
            nodes: result.nodes.filter { reached.contains($0.id) },
            references: kept.filter { reached.contains($0.from) },
            diagnostics: result.diagnostics, rootIDs: result.rootIDs,
            objectsRead: result.objectsRead, isComplete: result.isComplete)
    }

    /// Replaces each path through a library lock box (`Locking.LockStorage<…>`, the buffer
    /// behind a `Locked` value: the thread-safe state of an instrumented timer) by one
    /// reference that skips it, so reports read `DispatchTimer ⇒ .state.action ⇒ closure`
    /// rather than naming the box. A path through a box back to its holder is dropped.
    ///
    /// - Parameters:
    ///   - references: Discovered references.
    ///   - nodes: The discovered nodes, to recognise the boxes by type name.
    /// - Returns: The references with the boxes contracted away.
    static func collapsingLockBoxes(_ references: [Reference], nodes: [Node]) -> [Reference] {
        let boxPrefixes = ["Locking.LockStorage<", "Locking.Locked<"]
        let boxes = Set(
            nodes.filter { node in boxPrefixes.contains { node.typeName.hasPrefix($0) } }.map(\.id))
        guard !boxes.isEmpty else { return references }
        var leaving: [ObjectID: [Reference]] = [:]
        for reference in references where boxes.contains(reference.from) {
            leaving[reference.from, default: []].append(reference)
        }
        var result: [Reference] = []
        for reference in references where !boxes.contains(reference.from) {
            guard boxes.contains(reference.to) else {
                result.append(reference)
                continue
            }
            // A box that leads back to its own holder is the timer's bookkeeping: a scheduled
            // run-loop timer's lock box holds the timer (the run loop holding it), which the
            // declared `run loop ⇒ timer` reference already says.
            for inner in leaving[reference.to] ?? []
            where !boxes.contains(inner.to) && inner.to != reference.from {
                result.append(
                    Reference(
                        from: reference.from, to: inner.to,
                        kind: reference.kind == .strong ? inner.kind : reference.kind,
                        role: .storedProperty(name: joined(reference.role, inner.role)),
                        isDiscovered: true))
            }
        }
        return result
    }

    private static func joined(_ outer: ReferenceRole, _ inner: ReferenceRole) -> String {
        var head = outer.detail ?? outer.name
        var tail = inner.detail ?? inner.name
        // `Locked` is a handle whose `storage` is the box; the box keeps the value in its
        // `header` (`value` before `Locked` became a handle).
        if head.hasSuffix(".storage") { head.removeLast(".storage".count) }
        for prefix in ["header.", "value."] where tail.hasPrefix(prefix) {
            tail.removeFirst(prefix.count)
        }
        if tail == "header" || tail == "value" { return head }
        return inner.name == "capture" ? "\(head) captures \(tail)" : "\(head).\(tail)"
    }
}
