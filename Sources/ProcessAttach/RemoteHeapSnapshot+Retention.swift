extension RemoteHeapSnapshot {
    /// The path of strong references from the holder that best explains why `id` is alive.
    ///
    /// A named holder (a global variable; a `Task`, a `Foundation.Timer` or a block libdispatch
    /// keeps) is preferred to a thread's stack or registers, and those to references nothing
    /// names, even when farther: an object a request handler's stack still holds is usually
    /// also held by what keeps it alive afterwards. Among holders of the same rank the nearest
    /// wins. This is the census's rule (`HeapSnapshot.retentionPath`), with threads added.
    ///
    /// - Returns: The path, or nil when nothing holds the object through strong references
    ///   (it may be kept by a strong cycle nothing holds: see ``strongCycle(through:)``).
    /// - Complexity: A breadth-first walk over the object's strong holders, O(*n* + *r*) at
    ///   worst.
    public func retentionPath(to id: RemoteObjectID) -> RemoteRetentionPath? {
        let target = id.rawValue
        guard target >= 0, Int(target) < objectCount else { return nil }
        // Breadth-first over strong holders; `towards[n]` is the object n holds on its way to
        // the target (through edge `edges[n]`), -1 while unseen.
        var towards = [Int32](repeating: -1, count: objectCount)
        var edges = [UInt32](repeating: 0, count: objectCount)
        towards[Int(target)] = target
        var level = [target]
        var best: (node: Int32, rank: UInt8)?
        while !level.isEmpty {
            for node in level {
                let rank = holderRanks[Int(node)]
                if rank <= 1 { return path(from: node, towards: towards, edges: edges, to: target) }
                if rank != .max, rank < best?.rank ?? .max { best = (node, rank) }
            }
            var next: [Int32] = []
            for node in level {
                forEachStrongHolder(of: node) { holder, edge in
                    guard towards[Int(holder)] < 0 else { return }
                    towards[Int(holder)] = node
                    edges[Int(holder)] = edge
                    next.append(holder)
                }
            }
            level = next
        }
        return best.map { path(from: $0.node, towards: towards, edges: edges, to: target) }
    }

    private func path(from root: Int32, towards: [Int32], edges: [UInt32], to target: Int32)
        -> RemoteRetentionPath
    {
        var objects = [self[RemoteObjectID(rawValue: root)]]
        var references: [RemoteReference] = []
        var node = root
        while node != target {
            let next = towards[Int(node)]
            references.append(reference(step(edge: edges[Int(node)], from: node, to: next)))
            objects.append(self[RemoteObjectID(rawValue: next)])
            node = next
        }
        return RemoteRetentionPath(
            holder: holders(of: RemoteObjectID(rawValue: root)).first, objects: objects,
            references: references)
    }

    /// One shortest cycle of strong references through `id`, from `id` back to it, or nil.
    ///
    /// - Complexity: O(*n* + *r*) at worst.
    public func strongCycle(through id: RemoteObjectID) -> [RemoteReference]? {
        guard id.rawValue >= 0, Int(id.rawValue) < objectCount else { return nil }
        return strongCycle(through: id.rawValue)?.map(reference)
    }

    /// The references `id` holds, strong ones first.
    public func references(from id: RemoteObjectID) -> [RemoteReference] {
        guard id.rawValue >= 0, Int(id.rawValue) < objectCount else { return [] }
        return outgoingSteps(of: id.rawValue).map(reference)
    }

    /// The references to `id` that other objects hold, strong ones first.
    public func references(to id: RemoteObjectID) -> [RemoteReference] {
        guard id.rawValue >= 0, Int(id.rawValue) < objectCount else { return [] }
        return incomingSteps(to: id.rawValue).map(reference)
    }

    private func reference(_ step: GraphStep) -> RemoteReference {
        RemoteReference(
            from: RemoteObjectID(rawValue: step.from), to: RemoteObjectID(rawValue: step.to),
            ownership: step.ownership, label: step.label)
    }
}

/// A path of strong references from a holder to an object, as
/// ``RemoteHeapSnapshot/retentionPath(to:)`` found it.
public struct RemoteRetentionPath: Sendable {
    /// What holds the first object.
    public let holder: RemoteHolder?
    /// The objects from the first held one to the target, in order.
    public let objects: [RemoteObject]
    /// The references between consecutive objects (one fewer than `objects`).
    public let references: [RemoteReference]

    /// The target: the last object.
    public var target: RemoteObject? { objects.last }

    /// The path on one line: `holder ⇒ Task ⇒ (captures Owner) App.Owner`.
    public var description: String {
        var text = holder?.description ?? "nothing"
        for (index, object) in objects.enumerated() {
            text += " ⇒ "
            if index > 0 { text += "(\(references[index - 1].label)) " }
            text += object.typeName
        }
        return text
    }

    /// The path as reports print it, one reference per line, at most `limit` references (the
    /// middle of a longer path is elided):
    ///
    /// ```text
    /// held by: a Task (the concurrency runtime holds it while it runs or sleeps)
    /// ┬ Task at 0x7f3c2c001230
    /// ├─ runs (read conservatively) ⇒ closure context at 0x7f3c2c0014a0
    /// ╰→ captures TaskRefresher ⇒ App.TaskRefresher at 0x55d0c1f0a2b0
    /// ```
    public func lines(limit: Int = 24) -> [String] {
        var lines = ["held by: \(holder?.description ?? "nothing")"]
        let keep = max(limit, 2)
        for (index, object) in objects.enumerated() {
            let address = "0x" + String(object.address, radix: 16)
            if index == 0 {
                lines.append("┬ \(object.typeName) at \(address)")
                continue
            }
            if references.count > keep, index > keep / 2, index < objects.count - keep / 2 {
                if index == keep / 2 + 1 {
                    lines.append("⋮ \(references.count - keep) more references")
                }
                continue
            }
            let arrow = index == objects.count - 1 ? "╰→" : "├─"
            lines.append(
                "\(arrow) \(references[index - 1].label) ⇒ \(object.typeName) at \(address)")
        }
        return lines
    }
}
