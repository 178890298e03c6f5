import ObjectGraph

extension RemoteHeapSnapshot {
    /// The path from the holder that best explains why `id` is alive, as the project's one
    /// path finder chooses it (``/ObjectGraph/CompactGraph/paths()``).
    ///
    /// A holder the census names (a global variable; a `Task`, a `Foundation.Timer` or a block
    /// libdispatch keeps) is preferred to a thread's stack, and a thread's stack to references
    /// nothing names, even when farther: an object a request handler's stack still holds is
    /// usually also held by what keeps it alive afterwards. A path through typed references is
    /// preferred to one through words read conservatively; among paths of the same priority,
    /// the shortest wins (then the holder found first: globals, named holders, threads).
    ///
    /// - Returns: The path, or nil when nothing holds the object through retaining references
    ///   (it may be kept by a cycle nothing holds: see ``strongCycle(through:)``).
    /// - Complexity: The graph's one path search on the snapshot's first question (O(*n* +
    ///   *r*), shared by every copy), then the length of the path.
    public func retentionPath(to id: RemoteObjectID) -> RemoteRetentionPath? {
        retentionPath(to: id, in: graph.paths())
    }

    /// The path to `id` in `tree` (the graph's paths, or paths that avoid some nodes:
    /// ``/ObjectGraph/CompactGraph/paths(excluding:)``).
    public func retentionPath(to id: RemoteObjectID, in tree: CompactGraph.PathTree)
        -> RemoteRetentionPath?
    {
        guard contains(id), let steps = tree.path(to: CompactGraph.NodeID(id.rawValue)),
            let first = steps.first, !isObject(first.from),
            let holder = graph.rootKind(of: first.from)
        else { return nil }
        var objects = [self[RemoteObjectID(rawValue: Int32(first.to))]]
        var references: [RemoteReference] = []
        for step in steps.dropFirst() {
            references.append(reference(step))
            objects.append(self[RemoteObjectID(rawValue: Int32(step.to))])
        }
        return RemoteRetentionPath(holder: holder, objects: objects, references: references)
    }

    /// One shortest cycle of retaining references through `id`, from `id` back to it, or nil.
    ///
    /// - Complexity: O(*n* + *r*) at worst (``/ObjectGraph/CompactGraph/cycle(through:components:)``).
    public func strongCycle(through id: RemoteObjectID) -> [RemoteReference]? {
        guard contains(id) else { return nil }
        return graph.cycle(through: CompactGraph.NodeID(id.rawValue))?.map(reference)
    }

    /// The references `id` holds, retaining ones first.
    public func references(from id: RemoteObjectID) -> [RemoteReference] {
        guard contains(id) else { return [] }
        return graph.outgoing(from: CompactGraph.NodeID(id.rawValue)).map(reference)
    }

    /// The references to `id` that other objects hold (not holders outside the heap),
    /// retaining ones first.
    public func references(to id: RemoteObjectID) -> [RemoteReference] {
        guard contains(id) else { return [] }
        return graph.incoming(to: CompactGraph.NodeID(id.rawValue)).filter { isObject($0.from) }
            .map(reference)
    }

    /// The reference a step of the graph stands for.
    func reference(_ step: CompactGraph.Step) -> RemoteReference {
        RemoteReference(
            from: RemoteObjectID(rawValue: Int32(step.from)),
            to: RemoteObjectID(rawValue: Int32(step.to)),
            ownership: graph.ownership(ofEdge: step.edge), role: graph.role(ofEdge: step.edge))
    }
}

/// A path of retaining references from a holder to an object, as
/// ``RemoteHeapSnapshot/retentionPath(to:)`` found it.
public struct RemoteRetentionPath: Sendable {
    /// What holds the first object: a global variable, a `Task`, a `Foundation.Timer`, a
    /// block libdispatch keeps, a thread's stack, or references nothing names
    /// (``/ObjectGraph/RootKind/heapHolder(_:description:)``).
    public let holder: RootKind
    /// The objects from the first held one to the target, in order.
    public let objects: [RemoteObject]
    /// The references between consecutive objects (one fewer than `objects`).
    public let references: [RemoteReference]

    /// The target: the last object.
    public var target: RemoteObject? { objects.last }

    /// The kind of holder, when the holder is one a heap census or an attach names.
    public var holderKind: HeapHolderKind? {
        if case .heapHolder(let kind, _) = holder { return kind }
        return nil
    }

    /// The path on one line: `holder ⇒ Task ⇒ (captures Owner) App.Owner`.
    public var description: String {
        var text = holder.description
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
    /// ├─ runs (conservative) ⇒ closure context (captures TaskRefresher) at 0x7f3c2c0014a0
    /// ╰→ captures TaskRefresher ⇒ App.TaskRefresher at 0x55d0c1f0a2b0
    /// ```
    public func lines(limit: Int = 24) -> [String] {
        var lines = ["held by: \(holder.description)"]
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
