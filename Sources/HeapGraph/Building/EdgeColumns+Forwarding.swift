import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

extension EdgeColumns {
    /// Adds, beside every reference to a closure context that only forwards to another
    /// closure, a reference to the closure it forwards to, as the reflection walk reads it: a
    /// reabstraction thunk's context (``/RuntimeLayouts/CompiledLayout/isThunk``: a closure
    /// stored in an array reads `element of [() -> ()] ⇒ closure context (captures Owner)`),
    /// and a context the compiler made that names no capture and holds exactly one closure
    /// context (an async function's partial apply: a `Task` reads `runs ⇒ closure context
    /// (captures Owner)`, not `runs ⇒ closure context ⇒ captures a closure ⇒ …`). When the
    /// closure's only capture is its context, the reference becomes a capture of the object.
    /// The reference to the forwarding context stays (it keeps that context's memory, for
    /// retained sizes), marked low priority so that paths take the direct one.
    ///
    /// - Returns: Each forwarding context's node, with the node of the closure context it
    ///   forwards to in the end (through thunks of thunks); and each reference to a forwarding
    ///   context, with the direct reference added beside it. Both empty when there is none.
    /// - Complexity: O(*r*) for *r* references.
    @discardableResult
    mutating func lookThroughForwardingContexts(
        typeIndex: [Int32], layouts: [CompiledLayout], kinds: [CompactGraph.NodeKind],
        typeNames: [String], builder: inout CompactGraph.Builder
    ) -> (forwardedTo: [UInt32: UInt32], directEdges: [Int: Int]) {
        // Each node's number of references and, for a node with one, its target.
        var outCount = [UInt8](repeating: 0, count: kinds.count)
        var onlyTarget = [UInt32](repeating: 0, count: kinds.count)
        for edge in sources.indices {
            let source = Int(sources[edge])
            if outCount[source] < 2 { outCount[source] += 1 }
            onlyTarget[source] = targets[edge]
        }
        // Per type, once: reading a layout's properties copies it (its arrays retained).
        let thunkTypes = layouts.map(\.isThunk)
        let capturelessTypes = layouts.map { $0.kind == .closureContext && $0.captures.isEmpty }
        func forwards(_ node: UInt32) -> Bool {
            let type = Int(typeIndex[Int(node)])
            guard type < thunkTypes.count, kinds[Int(node)] == .closure else { return false }
            if thunkTypes[type] { return true }
            return capturelessTypes[type] && outCount[Int(node)] == 1
                && kinds[Int(onlyTarget[Int(node)])] == .closure
        }
        var wrapped: [UInt32: UInt32] = [:]
        for edge in sources.indices where forwards(sources[edge]) {
            wrapped[sources[edge]] = targets[edge]
        }
        guard !wrapped.isEmpty else { return ([:], [:]) }
        var direct = EdgeColumns()
        var directEdges: [Int: Int] = [:]
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
                let name = TypeNames.withoutModule(typeNames[Int(typeIndex[Int(target)])])
                role = builder.intern(builder.roles[role].capturing(name))
            }
            directEdges[edge] = sources.count + direct.sources.count
            direct.append(source: sources[edge], target: target, flags: flags[edge], role: role)
            flags[edge] = CompactGraph.lowPriority(flags[edge])
        }
        for index in direct.sources.indices {
            append(
                source: direct.sources[index], target: direct.targets[index],
                flags: direct.flags[index], role: direct.roles[index])
        }
        var forwardedTo: [UInt32: UInt32] = [:]
        for context in wrapped.keys {
            var target = context
            var hops = 0
            while let next = wrapped[target], hops < 8 {
                target = next
                hops += 1
            }
            if kinds[Int(target)] == .closure, wrapped[target] == nil {
                forwardedTo[context] = target
            }
        }
        return (forwardedTo, directEdges)
    }
}
