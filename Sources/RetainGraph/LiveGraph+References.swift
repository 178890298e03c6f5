import StackTraces

extension LiveGraph {
    /// Records that `from` holds `to`.
    ///
    /// - Parameters:
    ///   - from: The holder's identity.
    ///   - to: The held node's identity.
    ///   - ownership: How it is held.
    ///   - role: Why it is held.
    ///   - creationTrace: Where the reference was made, if captured.
    ///   - isDiscovered: Whether the reference was found by inspection rather than declared.
    /// - Returns: The reference's identity, for ``removeReference(_:)``; `nil` when the graph is
    ///   disabled or either node is unknown or removed.
    /// - Complexity: O(1) amortised.
    @discardableResult
    public func addReference(
        from: ObjectID, to: ObjectID, ownership: Ownership, role: ReferenceRole,
        creationTrace: StackTrace? = nil, isDiscovered: Bool = false
    ) -> ReferenceID? {
        guard isEnabled, from != .disabled, to != .disabled else { return nil }
        return withSyncedStorage { graph in
            graph.addReference(
                from: from, to: to, ownership: ownership, role: role, trace: creationTrace,
                isDiscovered: isDiscovered)
        }
    }

    /// Records that `from` holds `to` (the ownership vocabulary of earlier versions).
    @available(
        *, deprecated, renamed: "addReference(from:to:ownership:role:creationTrace:isDiscovered:)"
    )
    @discardableResult
    public func addReference(
        from: ObjectID, to: ObjectID, kind: Ownership, role: ReferenceRole,
        creationTrace: StackTrace? = nil, isDiscovered: Bool = false
    ) -> ReferenceID? {
        addReference(
            from: from, to: to, ownership: kind, role: role, creationTrace: creationTrace,
            isDiscovered: isDiscovered)
    }

    /// Records that object `holder` holds object `held`, registering either if needed.
    ///
    /// ```swift
    /// LiveGraph.shared.addReference(from: self, to: timer, ownership: .strong,
    ///                               role: .storedProperty(name: "timer"))
    /// ```
    ///
    /// - Returns: The reference's identity, or `nil` when the graph is disabled.
    /// - Complexity: O(1) amortised.
    @discardableResult
    public func addReference(
        from holder: AnyObject, to held: AnyObject, ownership: Ownership, role: ReferenceRole,
        creationTrace: StackTrace? = nil
    ) -> ReferenceID? {
        guard isEnabled else { return nil }
        let from = register(holder)
        let to = register(held)
        return addReference(
            from: from, to: to, ownership: ownership, role: role, creationTrace: creationTrace)
    }

    /// Records that object `holder` holds object `held` (the ownership vocabulary of earlier
    /// versions).
    @available(*, deprecated, renamed: "addReference(from:to:ownership:role:creationTrace:)")
    @discardableResult
    public func addReference(
        from holder: AnyObject, to held: AnyObject, kind: Ownership, role: ReferenceRole,
        creationTrace: StackTrace? = nil
    ) -> ReferenceID? {
        addReference(
            from: holder, to: held, ownership: kind, role: role, creationTrace: creationTrace)
    }

    /// Removes a recorded reference. Removing it twice, or after one of its nodes was removed,
    /// does nothing.
    ///
    /// - Complexity: O(1).
    public func removeReference(_ id: ReferenceID) {
        withSyncedStorage { graph in graph.removeReference(id) }
    }

    /// Removes every recorded reference that `from` holds in `role`, for example all
    /// `.scheduled` references of a timer when it is invalidated.
    ///
    /// - Complexity: O(*r*), where *r* is the number of live references.
    public func removeReferences(from: ObjectID, where matches: (Reference) -> Bool) {
        // Collect under the lock, decide outside it: `matches` is caller code.
        let candidates = withSyncedStorage { graph in graph.references(from: from) }
        let doomed = candidates.filter(matches).compactMap(\.id)
        guard !doomed.isEmpty else { return }
        withSyncedStorage { graph in
            for id in doomed { graph.removeReference(id) }
        }
    }

    /// The number of living nodes and references, after pruning dead objects.
    ///
    /// - Complexity: O(*n* + *r*).
    public func counts() -> (nodes: Int, references: Int) {
        withLockParkingLoads { graph, survivors in
            graph.prune(parkingIn: &survivors)
            return (graph.nodeCount, graph.liveReferenceCount)
        }
    }

    /// Forgets every node and reference. Meant for tests that share ``shared``.
    ///
    /// Identities stay unique across the call: objects registered afterwards get new
    /// ``ObjectID``s, and ``ReferenceID``s handed out before it remove nothing.
    ///
    /// - Complexity: O(*n* + *r*).
    public func removeAll() {
        withSyncedStorage { graph in graph.removeAll() }
    }

    /// Takes an immutable copy of the living graph for analysis.
    ///
    /// Dead objects (and nodes anchored to them) are pruned first, with their references.
    ///
    /// To explain a few objects in a large graph, ``snapshot(_:)`` with a ``SnapshotScope``
    /// copies only the part that can hold them.
    ///
    /// - Complexity: O(*n* + *r*) for *n* nodes and *r* references. The lock is held while the
    ///   nodes are copied and numbered and the references placed into rows (two passes over
    ///   them, about 90 ms for a million nodes and two million references); the sparse data
    ///   (roots, traces, timers) is indexed after it is released.
    public func snapshot() -> GraphSnapshot {
        let notes = RootNotes.current()
        let parts = withLockParkingLoads { graph, survivors in
            graph.prune(parkingIn: &survivors)
            return graph.collectSnapshot(notes: notes)
        }
        return parts.finish()
    }

    /// Takes an immutable copy of the part of the living graph that `scope` asks for: by
    /// default, everything that can keep the scope's nodes alive.
    ///
    /// The copy costs time in the size of that part, not of the graph: explaining one leaked
    /// object among a million recorded ones reads only its holders. Dead objects met on the way
    /// are pruned, with their references.
    ///
    /// ```swift
    /// let snapshot = graph.snapshot(.retention(of: [ownerID]))
    /// let retention = snapshot.analyze().retention(of: ownerID)  // as in a full snapshot
    /// ```
    ///
    /// For the scope's nodes, the analyses of a scoped snapshot (``RetentionAnalysis``: the
    /// shortest strong path from a root, the cycle, the fingerprint) give the same answers as
    /// a full ``snapshot()`` would, because every node on a strong path or cycle that reaches a
    /// node is one of its strong holders.
    ///
    /// - Parameter scope: The nodes to start from and how far to follow their holders. Unknown
    ///   and dead nodes are ignored.
    /// - Complexity: O(*h* + *e*) for the *h* nodes copied and the *e* references into them,
    ///   all under the graph's lock.
    public func snapshot(_ scope: SnapshotScope) -> GraphSnapshot {
        snapshot(scope, adding: GraphSnapshot.Builder())
    }

    /// Takes an immutable copy of the part of the living graph that `scope` asks for, with
    /// what `additions` collected (a leak check's discoveries) added: one compact graph, built
    /// once.
    ///
    /// A leak check gathers what its discoverers find in one ``GraphSnapshot/Builder`` and
    /// asks for the retention of the watched objects and of every node the discoveries
    /// mention, so that a discovered reference from a recorded timer joins the timer's
    /// recorded holders:
    ///
    /// ```swift
    /// var additions = GraphSnapshot.Builder()
    /// discoverers.discoverReferences(into: &additions, for: request)
    /// let snapshot = graph.snapshot(
    ///     .retention(of: watched + additions.mentionedIDs), adding: additions)
    /// ```
    ///
    /// Nodes the graph records keep their recorded data; an added reference that repeats a
    /// recorded one (same ends, ownership and role) is dropped.
    ///
    /// - Parameters:
    ///   - scope: The nodes to start from and how far to follow their holders.
    ///   - additions: Nodes and references to add.
    /// - Complexity: O(*h* + *e*) under the graph's lock (see ``snapshot(_:)``), then
    ///   O((*h* + *e*) + *a*) for the *a* additions after it.
    public func snapshot(_ scope: SnapshotScope, adding additions: GraphSnapshot.Builder)
        -> GraphSnapshot
    {
        let notes = RootNotes.current()
        var parts = withLockParkingLoads { graph, survivors in
            graph.collectScopedSnapshot(scope, notes: notes, parkingIn: &survivors)
        }
        parts.merge(additions)
        return parts.finish()
    }

    /// Runs `body` under the graph's lock, after applying the timer trackers' queued changes
    /// (see `TimerTracker`): every read and write of the graph goes through here or
    /// ``withLockParkingLoads(_:)``, so that none sees the graph without a timer's latest state.
    func withSyncedStorage<Result>(_ body: (inout GraphStorage) -> Result) -> Result {
        withLockParkingLoads { graph, _ in body(&graph) }
    }

    /// Removes a dead tracker's timer node and its closure node, without draining the journal
    /// (called from the tracker's `deinit`).
    func removeTrackedNodes(of tracker: TimerTracker) {
        storage.withLock { graph in graph.removeNodes(of: tracker) }
    }

    /// Runs `body` under the graph's lock, after draining the trackers' journal, with an array
    /// for the strong references its loads make (see `GraphStorage.prune(parkingIn:)`),
    /// and releases them only after the lock is released, so that no `deinit` runs under it.
    ///
    /// Afterwards, when the graph has doubled since it was last pruned, dead objects' nodes are
    /// pruned (see `GraphStorage.pruneIfDue(parkingIn:)`): the bound on a graph nobody reads.
    private func withLockParkingLoads<Result>(
        _ body: (inout GraphStorage, inout [AnyObject]) -> Result
    ) -> Result {
        var survivors: [AnyObject] = []
        var drained: [TimerTracker] = []
        let isRecording = isEnabled
        let result = storage.withLock { graph in
            journal.drain(
                into: &graph, isRecording: isRecording, parkingIn: &survivors,
                releasing: &drained)
            let result = body(&graph, &survivors)
            graph.pruneIfDue(parkingIn: &survivors)
            return result
        }
        survivors.removeAll()  // the last references to objects that died meanwhile go here
        drained.removeAll()  // and the trackers of timers that died
        return result
    }
}
