import ObjectGraph

extension HeapSnapshot {
    /// The path from a holder to the object `id`, as the project's one path finder chooses it
    /// (``/ObjectGraph/CompactGraph/PathTree``).
    ///
    /// A named holder (a global variable, a task, a timer) is preferred to a thread's stack and
    /// to references nothing names, even when it is farther: an object a stack variable still
    /// holds is usually also held by what keeps it alive afterwards. A path through typed
    /// references is preferred to one through words read conservatively. Among paths of the
    /// same priority, the shortest wins.
    ///
    /// - Returns: The path, or nil when nothing found holds the object (only weak references, a
    ///   strong cycle nothing holds, or an object being deinitialised).
    /// - Complexity: The graph's one path search on the snapshot's first question, then the
    ///   length of the path.
    public func retentionPath(to id: HeapObjectID) -> RetentionPath? {
        retentionPath(to: id, in: graph.paths())
    }

    /// The path from a holder to `id` that passes through none of `ignored` (for example a
    /// collection of the caller's that holds the object only to ask about it).
    ///
    /// - Complexity: A path search of its own (O(*n* + *r*)): to ask about many objects, ask
    ///   ``paths(ignoring:)`` once and ``retentionPath(to:in:)`` for each.
    public func retentionPath(to id: HeapObjectID, ignoring ignored: Set<HeapObjectID>)
        -> RetentionPath?
    {
        retentionPath(to: id, in: paths(ignoring: ignored))
    }

    /// The graph's paths avoiding `ignored` objects, for many ``retentionPath(to:in:)``
    /// questions at the cost of one search.
    public func paths(ignoring ignored: Set<HeapObjectID>) -> CompactGraph.PathTree {
        ignored.isEmpty
            ? graph.paths() : graph.paths(excluding: ignored.map { UInt32($0.rawValue) })
    }

    /// The path to `id` in `tree` (from ``paths(ignoring:)`` or the graph's `paths()`).
    public func retentionPath(to id: HeapObjectID, in tree: CompactGraph.PathTree)
        -> RetentionPath?
    {
        guard contains(id), let steps = tree.path(to: CompactGraph.NodeID(id.rawValue)),
            let first = steps.first, !isObject(first.from)
        else { return nil }
        var objects = [self[HeapObjectID(rawValue: Int32(first.to))]]
        var references: [HeapReference] = []
        for step in steps.dropFirst() {
            references.append(reference(step))
            objects.append(self[HeapObjectID(rawValue: Int32(step.to))])
        }
        return RetentionPath(
            holder: holder(at: first.from, of: Int(first.to)), objects: objects,
            references: references)
    }

    /// A strong cycle through `id`, as references (each to the next, the last back to `id`'s
    /// first holder), if it is on one.
    public func strongCycle(through id: HeapObjectID) -> [HeapReference]? {
        guard contains(id) else { return nil }
        return graph.cycle(through: CompactGraph.NodeID(id.rawValue))?.map(reference)
    }

    /// The references `id` holds.
    public func references(from id: HeapObjectID) -> [HeapReference] {
        guard contains(id) else { return [] }
        return graph.outgoing(from: CompactGraph.NodeID(id.rawValue)).map(reference)
    }

    /// The references to `id` held by other heap objects (not by holders outside the heap).
    public func references(to id: HeapObjectID) -> [HeapReference] {
        guard contains(id) else { return [] }
        return graph.incoming(to: CompactGraph.NodeID(id.rawValue)).filter { isObject($0.from) }
            .map(reference)
    }

    /// What holds `id` from outside the Swift heap (global variables, a named holder, thread
    /// stacks, unattributed references), in the order the path finder prefers them: by path
    /// priority, then those that say what holds before the references nothing names, then by
    /// description (never by where the reader found them).
    ///
    /// - Complexity: O(*h* log *h*) for *h* holders, plus building the graph's in-edge rows
    ///   once.
    public func holders(of id: HeapObjectID) -> [HeapHolder] {
        guard contains(id) else { return [] }
        let keyed = graph.incoming(to: CompactGraph.NodeID(id.rawValue))
            .filter { !isObject($0.from) }
            .map { step in
                let kind = graph.rootKind(of: step.from)
                return (
                    node: step.from, priority: kind?.pathPriority ?? .unattributed,
                    anonymous: !(kind?.namesItsHolder ?? false),
                    description: kind?.description ?? ""
                )
            }
        return keyed.sorted {
            if $0.priority != $1.priority { return $0.priority < $1.priority }
            if $0.anonymous != $1.anonymous { return !$0.anonymous }
            if $0.description != $1.description { return $0.description < $1.description }
            return $0.node < $1.node
        }
        .map { holder(at: $0.node, of: Int(id.rawValue)) }
    }

    /// Whether a path of the graph's path tree passes through a word that holds nothing: a word
    /// of a task's memory, or one read conservatively (a closure context's undecoded bytes),
    /// equal to the address of an object whose strong count, as read, its other references
    /// already explain.
    ///
    /// Such a word is a copy malloc left in the block from an earlier use (a local of a
    /// suspended frame, or a capture, would have raised the count), and the path names a holder
    /// that does not hold: a leaked cycle it reaches is still a cycle nothing holds. A snapshot
    /// that read no counts (a saved file) cannot tell, and believes its words.
    ///
    /// - Parameter steps: A path from ``paths(ignoring:)`` (or the graph's `paths()`).
    /// - Complexity: The in-edges of each object the path reaches through such a word.
    package func passesThroughStaleWord(_ steps: [CompactGraph.Step]) -> Bool {
        guard !retainCounts.isEmpty else { return false }
        func isUncertain(_ flags: UInt8) -> Bool {
            CompactGraph.isLastResort(flags) || Ownership(byte: flags) == .conservative
        }
        return steps.contains { step in
            guard isUncertain(graph.edgeFlags[Int(step.edge)]), isObject(step.to) else {
                return false
            }
            let object = Int(step.to)
            guard object < retainCounts.count, retainCounts[object] != .max,
                object >= outsideCounts.count || outsideCounts[object] == 0
            else { return false }
            let explained = graph.incoming(to: step.to).count {
                let flags = graph.edgeFlags[Int($0.edge)]
                return CompactGraph.isRetaining(flags) && !isUncertain(flags)
            }
            return Int(retainCounts[object]) == explained
        }
    }

    /// The reference a step of the graph stands for.
    func reference(_ step: CompactGraph.Step) -> HeapReference {
        HeapReference(
            from: HeapObjectID(rawValue: Int32(step.from)),
            to: HeapObjectID(rawValue: Int32(step.to)),
            ownership: graph.ownership(ofEdge: step.edge), role: graph.role(ofEdge: step.edge))
    }

    /// The holder node `node` says holds object `object`: unattributed references carry the
    /// object's own count.
    package func holder(at node: CompactGraph.NodeID, of object: Int) -> HeapHolder {
        guard case .heapHolder(let holder)? = graph.rootKind(of: node) else {
            return .outside(UnattributedReferences(stacksWereRead: false))
        }
        guard case .outside(var references) = holder else { return holder }
        references.count = object < outsideCounts.count ? Int(outsideCounts[object]) : nil
        return .outside(references)
    }
}

/// A path of strong references from a holder outside the heap to an object, as a
/// ``HeapSnapshot`` found it.
public struct RetentionPath: Sendable {
    /// What holds the first object.
    public let holder: HeapHolder
    /// The objects from the first held one to the target, in order.
    public let objects: [HeapObject]
    /// The references between consecutive objects (one fewer than `objects`).
    public let references: [HeapReference]

    /// The target: the last object.
    public var target: HeapObject? { objects.last }

    /// The path on one line: `holder ⇒ Timer ⇒ (captures Owner) Owner`.
    public var description: String {
        var text = holder.description
        for (index, object) in objects.enumerated() {
            text += " ⇒ "
            if index > 0 { text += "(\(references[index - 1].label)) " }
            text += object.typeName
        }
        return text
    }

    /// The path as a person reads it, one object per line, the holder first:
    ///
    /// ```text
    /// held by: global variable App.cache : [App.Entry]
    /// ┬ [App.Entry] storage at 0x7f…
    /// ├─ element of [Entry] ⇒ App.Entry at 0x7f…
    /// ╰→ .session ⇒ App.Session at 0x7f…
    /// ```
    ///
    /// - Parameter limit: The most references shown; the middle of a longer path is elided.
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
