import ObjectGraph
import RuntimeLayouts
import RetainGraphUtilities

extension EdgeColumns {
    /// Adds, beside every reference to a closure context that only forwards to another
    /// closure, a reference to the closure it forwards to, as the census and the reflection
    /// walk read it: a reabstraction thunk's context (its only capture a closure), and a
    /// context that names no capture and holds exactly one closure context (an async
    /// function's partial apply: a `Task` reads `runs ⇒ closure context (captures Owner)`, not
    /// `runs ⇒ closure context ⇒ captures a closure ⇒ …`). When the closure's only capture is
    /// its context, the reference becomes a capture of that object. The reference to the
    /// forwarding context stays (it keeps that context's memory, for retained sizes), marked
    /// low priority so that paths take the direct one.
    ///
    /// - Parameters:
    ///   - kinds: Each object's node kind.
    ///   - layoutOf: Each object's layout index.
    ///   - layouts: The layouts.
    ///   - builder: Where the new roles are interned.
    /// - Complexity: O(*r*) for *r* references.
    mutating func lookThroughForwardingContexts(
        kinds: [CompactGraph.NodeKind], layoutOf: [Int32], layouts: [RemoteLayout],
        builder: inout CompactGraph.Builder
    ) {
        // Each node's number of references and, for a node with one, its target.
        var outCount = [UInt8](repeating: 0, count: kinds.count)
        var onlyTarget = [UInt32](repeating: 0, count: kinds.count)
        for edge in sources.indices {
            let source = Int(sources[edge])
            if outCount[source] < 2 { outCount[source] += 1 }
            onlyTarget[source] = targets[edge]
        }
        // Per layout, once (not a copy of a layout per reference): 2 for a thunk's context,
        // 1 for a context that names no capture, 0 for the rest.
        let forwarding = layouts.map { layout -> UInt8 in
            guard layout.shape == .closureContext else { return 0 }
            return layout.isThunk ? 2 : layout.captures.isEmpty ? 1 : 0
        }
        func forwards(_ node: UInt32) -> Bool {
            let kind = forwarding[Int(layoutOf[Int(node)])]
            guard kind != 0, kinds[Int(node)] == .closure else { return false }
            return kind == 2
                || (outCount[Int(node)] == 1 && kinds[Int(onlyTarget[Int(node)])] == .closure)
        }
        var wrapped: [UInt32: UInt32] = [:]
        for edge in sources.indices where forwards(sources[edge]) {
            wrapped[sources[edge]] = targets[edge]
        }
        guard !wrapped.isEmpty else { return }
        var direct = EdgeColumns()
        for edge in targets.indices where wrapped[sources[edge]] == nil {
            var target = targets[edge]
            var hops = 0
            while let next = wrapped[target], hops < 8 {
                target = next
                hops += 1
            }
            guard hops > 0 else { continue }
            var role = roles[edge]
            if kinds[Int(target)] != .closure {
                let name = TypeNames.withoutModule(layouts[Int(layoutOf[Int(target)])].typeName)
                role = builder.intern(builder.roles[role].capturing(name))
            }
            direct.append(source: sources[edge], target: target, flags: flags[edge], role: role)
            flags[edge] = CompactGraph.lowPriority(flags[edge])
        }
        for index in direct.sources.indices {
            append(
                source: direct.sources[index], target: direct.targets[index],
                flags: direct.flags[index], role: direct.roles[index])
        }
    }
}

extension RemoteLayout {
    /// Whether this is a reabstraction thunk's context: a closure context whose only capture
    /// is another closure (the compiler makes one when a closure is stored generically, in an
    /// array or an `Any`). Paths look through it to the closure it wraps.
    var isThunk: Bool {
        shape == .closureContext && captures == ["closure"] && slots.count == 1
            && slots[0].isFunctionContext && dynamics.isEmpty && regions.isEmpty
            && conservativeFrom == nil
    }
}
