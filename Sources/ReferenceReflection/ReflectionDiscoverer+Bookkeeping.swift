import RetainGraph

extension ReflectionDiscoverer {
    /// Drops what the walk found inside the library's own recording machinery: a reference to
    /// an instrumented timer's tracker or to a `LiveGraph` (whose storage refers weakly to
    /// every recorded object), and a timer's pointer back to the run loop or queue that
    /// schedules it (a recorded root: the graph records it the other way round, as the root's
    /// reference). What only those references reached is dropped too; the storage of a lock
    /// (an instrumented timer's thread-safe state) is looked through.
    ///
    /// - Parameters:
    ///   - result: A walk.
    ///   - graph: The graph the walk's identities come from.
    /// - Returns: The walk without those references.
    static func withoutBookkeeping(_ result: WalkResult, graph: LiveGraph) -> WalkResult {
        let machinery: Set<String> = [
            String(reflecting: LiveGraph.self), String(reflecting: TimerTracker.self),
        ]
        let excluded = Set(result.nodes.filter { machinery.contains($0.typeName) }.map(\.id))
        func isBookkeeping(_ reference: Reference) -> Bool {
            excluded.contains(reference.to) || graph.isRoot(reference.to)
        }
        let kept = lookingThrough(
            result.lockStorages, in: result.references.filter { !isBookkeeping($0) })
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

    /// Replaces each path through a lock's storage by one reference that skips it (its role
    /// the two roles joined: `.state` then `.action` is `.state.action`), so reports read
    /// `DispatchTimer ⇒ .state.action ⇒ closure` rather than naming the storage. A path through
    /// a storage back to its holder is dropped.
    ///
    /// - Parameters:
    ///   - storages: The nodes that are a lock's storage.
    ///   - references: Discovered references.
    /// - Returns: The references with the storages contracted away.
    static func lookingThrough(_ storages: Set<ObjectID>, in references: [Reference])
        -> [Reference]
    {
        guard !storages.isEmpty else { return references }
        var leaving: [ObjectID: [Reference]] = [:]
        for reference in references where storages.contains(reference.from) {
            leaving[reference.from, default: []].append(reference)
        }
        var result: [Reference] = []
        for reference in references where !storages.contains(reference.from) {
            guard storages.contains(reference.to) else {
                result.append(reference)
                continue
            }
            // A storage that leads back to its own holder is the timer's bookkeeping: a
            // scheduled run-loop timer's state holds the timer (the run loop holding it), which
            // the declared `run loop ⇒ timer` reference already says.
            for inner in leaving[reference.to] ?? []
            where !storages.contains(inner.to) && inner.to != reference.from {
                result.append(
                    Reference(
                        from: reference.from, to: inner.to,
                        ownership: reference.ownership == .strong
                            ? inner.ownership : reference.ownership,
                        role: reference.role.joined(with: inner.role), origin: .reflection))
            }
        }
        return result
    }
}
