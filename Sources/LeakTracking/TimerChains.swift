import RetainGraph

/// Questions about timers around a watched object: which timers call it, and whether only a
/// pending one-shot timer keeps it.
enum TimerChains {
    /// The longest chain, in references, from a timer to the object it calls: timer ⇒ wrapper
    /// ⇒ proxy → owner.
    static let maximumHops = 3

    /// Timers that call `id` through their target, action closure or proxy, within
    /// ``maximumHops`` references whose last one does not retain `id`.
    ///
    /// Those are the timers that can outlive `id` and keep firing at it once it is dead: a
    /// chain ending in a strong reference would have kept `id` alive instead.
    ///
    /// - Complexity: O(in-degree³), the holders read from the snapshot's incoming references.
    static func upstreamTimers(of id: ObjectID, in snapshot: GraphSnapshot) -> [ObjectID] {
        var found = Set<ObjectID>()
        // `chain` runs from `node` to `id`.
        func visit(_ node: ObjectID, chain: [Reference]) {
            if let first = chain.first, let last = chain.last, !last.ownership.retainsTarget,
                first.role.isCalling, let holder = snapshot.node(node), isTimer(holder)
            {
                found.insert(node)
            }
            guard chain.count < maximumHops else { return }
            for reference in snapshot.references(to: node)
            where !reference.role.isScheduling && reference.from != id
                && !chain.contains(where: { $0.from == reference.from })
            {
                visit(reference.from, chain: [reference] + chain)
            }
        }
        visit(id, chain: [])
        return found.sorted()
    }

    /// The one-shot timer whose fire would release `id`, if every strong path and cycle that
    /// keeps `id` runs through scheduled one-shot timers.
    ///
    /// Firing is simulated by dropping, for every scheduled one-shot timer, the root's
    /// reference to it and its target and action references; if `id` is then held by nothing,
    /// the latest-firing of those timers on its path or cycle is returned.
    ///
    /// - Complexity: O(length of `id`'s path and cycle) when no scheduled one-shot timer is on
    ///   them (a leak check's common case, once per leaking watch); O((*n* + *r*) log *n*)
    ///   otherwise.
    static func releasingOneShot(of id: ObjectID, in analysis: RetentionAnalysis) -> ObjectID? {
        let snapshot = analysis.snapshot
        let retention = analysis.retention(of: id)
        let shown = (retention.rootPath ?? []) + (retention.cycle ?? [])
        guard !shown.isEmpty else { return nil }
        func isPendingOneShot(_ node: ObjectID) -> Bool {
            guard let timer = snapshot.node(node)?.timer else { return false }
            return timer.isScheduled && !timer.repeats
        }
        let involved = Set(shown.flatMap { [$0.from, $0.to] }.filter(isPendingOneShot))
        guard !involved.isEmpty else { return nil }
        var pending = Set<ObjectID>()
        for node in snapshot.nodes where node.kind == .timer && isPendingOneShot(node.id) {
            pending.insert(node.id)
        }
        let remaining = snapshot.references.filter { reference in
            if pending.contains(reference.to), reference.role.isScheduling { return false }
            // Firing invalidates the timer, which releases its action: declared calling edges,
            // and whatever reflection discovered inside the timer (its action's captures).
            if pending.contains(reference.from),
                reference.role.isCalling || reference.isDiscovered
            {
                return false
            }
            return true
        }
        let fired = GraphSnapshot(nodes: snapshot.nodes, references: remaining).analyze()
        guard case .unexplained = fired.retention(of: id) else { return nil }
        return involved.max { left, right in
            let a = snapshot.node(left)?.timer?.nextFireDate ?? 0
            let b = snapshot.node(right)?.timer?.nextFireDate ?? 0
            return a < b
        }
    }

    /// Zombie candidates among `timers`: still scheduled, repeating, never stopping by
    /// themselves.
    static func zombies(among timers: [ObjectID], in snapshot: GraphSnapshot) -> [ObjectID] {
        timers.filter { id in
            guard let timer = snapshot.node(id)?.timer else { return false }
            return timer.isScheduled && timer.repeats && !timer.stopsWhenTargetDies
        }
    }

    static func isTimer(_ node: Node) -> Bool {
        node.kind == .timer || KnownType(typeName: node.typeName)?.isTimer == true
    }
}
