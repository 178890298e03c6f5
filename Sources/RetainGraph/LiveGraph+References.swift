import StackTraces

extension LiveGraph {
    /// Records that `from` holds `to`.
    ///
    /// - Parameters:
    ///   - from: The holder's identity.
    ///   - to: The held node's identity.
    ///   - kind: How strongly it is held.
    ///   - role: Why it is held.
    ///   - creationTrace: Where the reference was made, if captured.
    ///   - isDiscovered: Whether the reference was found by inspection rather than declared.
    /// - Returns: The reference's identity, for ``removeReference(_:)``; `nil` when the graph is
    ///   disabled or either node is unknown or removed.
    /// - Complexity: O(1) amortised.
    @discardableResult
    public func addReference(
        from: ObjectID, to: ObjectID, kind: ReferenceKind, role: ReferenceRole,
        creationTrace: StackTrace? = nil, isDiscovered: Bool = false
    ) -> ReferenceID? {
        guard isEnabled, from != .disabled, to != .disabled else { return nil }
        let record = ReferenceRecord(
            from: from, to: to, trace: creationTrace, role: role, kind: kind,
            isDiscovered: isDiscovered)
        return storage.withLock { graph in graph.addReference(record) }
    }

    /// Records that object `holder` holds object `held`, registering either if needed.
    ///
    /// ```swift
    /// LiveGraph.shared.addReference(from: self, to: timer, kind: .strong,
    ///                               role: .storedProperty(name: "timer"))
    /// ```
    ///
    /// - Returns: The reference's identity, or `nil` when the graph is disabled.
    /// - Complexity: O(1) amortised.
    @discardableResult
    public func addReference(
        from holder: AnyObject, to held: AnyObject, kind: ReferenceKind, role: ReferenceRole,
        creationTrace: StackTrace? = nil
    ) -> ReferenceID? {
        guard isEnabled else { return nil }
        let from = register(holder)
        let to = register(held)
        return addReference(
            from: from, to: to, kind: kind, role: role, creationTrace: creationTrace)
    }

    /// Removes a recorded reference. Removing it twice, or after one of its nodes was removed,
    /// does nothing.
    ///
    /// - Complexity: O(1).
    public func removeReference(_ id: ReferenceID) {
        storage.withLock { graph in graph.removeReference(id) }
    }

    /// Removes every recorded reference that `from` holds in `role`, for example all
    /// `.scheduled` references of a timer when it is invalidated.
    ///
    /// - Complexity: O(*r*), where *r* is the number of live references.
    public func removeReferences(from: ObjectID, where matches: (Reference) -> Bool) {
        // Collect under the lock, decide outside it: `matches` is caller code.
        let candidates = storage.withLock { graph in graph.references(from: from) }
        let doomed = candidates.filter(matches).compactMap(\.id)
        guard !doomed.isEmpty else { return }
        storage.withLock { graph in
            for id in doomed { graph.removeReference(id) }
        }
    }

    /// The number of living nodes and references, after pruning dead objects.
    ///
    /// - Complexity: O(*n* + *r*).
    public func counts() -> (nodes: Int, references: Int) {
        storage.withLock { graph in
            graph.prune()
            return (graph.nodes.count, graph.liveReferenceCount)
        }
    }

    /// Forgets every node and reference. Meant for tests that share ``shared``.
    ///
    /// Identities stay unique across the call: objects registered afterwards get new
    /// ``ObjectID``s, and ``ReferenceID``s handed out before it remove nothing.
    ///
    /// - Complexity: O(*n* + *r*).
    public func removeAll() {
        storage.withLock { graph in graph.removeAll() }
    }

    /// Takes an immutable copy of the living graph for analysis.
    ///
    /// Dead objects (and nodes anchored to them) are pruned first, with their references.
    ///
    /// - Complexity: O(*n* log *n* + *r*) for *n* nodes and *r* references; the lock is held for
    ///   the copy (O(*n* + *r*)), the sorting and indexing happen after it is released.
    public func snapshot() -> GraphSnapshot {
        let (rawNodes, rawReferences) = storage.withLock { graph in
            graph.prune()
            return (graph.nodeValues(), graph.referenceValues())
        }
        let computedNames = TypeNames.names(of: rawNodes.map { $0.typeName == nil ? $0.type : nil })
        let named = zip(rawNodes, computedNames).map { entry, computed in
            Node(
                id: entry.id, typeName: entry.typeName ?? computed,
                label: entry.label, kind: entry.kind, address: entry.address,
                creationTrace: entry.trace, timer: entry.timer)
        }
        return GraphSnapshot(nodes: named, references: rawReferences)
    }
}
