import ObjectGraph
import RuntimeLayouts
import RetainGraphUtilities

extension HeapSnapshot {
    /// Builds a snapshot from a scan: keeps the objects the scan read and the references
    /// between them (roles renumbered into the graph's, block captures and closures whose
    /// context is their only capture named after their target), decodes the copied dynamic
    /// values, finds the global variables that hold objects, computes each object's references
    /// from outside the heap, and adds one holder node per global and per kind of outside
    /// holder: the graph's roots.
    ///
    /// - Complexity: O(*n* + *r*) for *n* objects and *r* references, plus one pass over the
    ///   writable data of every loaded image.
    init(scan: RawHeap, layouts: [CompiledLayout], roles: InternedRoles) {
        let columns = scan.columns
        let count = columns.objectCount
        let addresses = columns.addressArray()
        let retainCounts = columns.retainCountArray()
        let index = AddressIndex(addresses)
        var builder = CompactGraph.Builder()

        // Types: the layouts, then three kinds of objects without one.
        let unknownType = Int32(layouts.count)
        let taskType = unknownType + 1
        let blockType = unknownType + 2
        let typeNames =
            layouts.map(\.typeName) + [
                "object (layout not compiled when scanned)", "Task", "block",
            ]
        let typeNumbers = typeNames.map { builder.intern($0) }
        let typeKinds = layouts.map(Self.nodeKind) + [.object, .object, .closure]
        var typeIndex = columns.layoutIndexArray()
        let entryKinds = columns.entryKindArray()
        var nodeKinds = [CompactGraph.NodeKind](repeating: .object, count: count)
        var nodeTypes = [UInt32](repeating: 0, count: count)
        for node in 0..<count {
            let type: Int32
            switch entryKinds[node] {
            case .task: type = taskType
            case .block: type = blockType
            case .object: type = typeIndex[node] >= 0 ? typeIndex[node] : unknownType
            }
            typeIndex[node] = type
            nodeKinds[node] = typeKinds[Int(type)]
            nodeTypes[node] = typeNumbers[Int(type)]
        }

        // References to census objects, roles renumbered into the graph's.
        var roleNaming = RoleNaming(roles: roles)
        var edges = Self.resolveReferences(
            columns, index: index, kinds: nodeKinds, naming: &roleNaming, builder: &builder,
            typeNames: typeNames, typeIndex: typeIndex)
        let boxes = Self.decodeDynamicValues(
            scan, index: index, kinds: nodeKinds, builder: &builder, typeNames: typeNames,
            typeIndex: typeIndex, into: &edges)
        Self.lookThroughThunks(
            &edges, typeIndex: typeIndex, layouts: layouts, kinds: nodeKinds,
            typeNames: typeNames, builder: &builder)
        // Boxes the compiler made for values held out of line look like closure contexts:
        // named as what they are.
        for box in boxes where typeIndex[Int(box)] < Int32(layouts.count) {
            nodeKinds[Int(box)] = .box
            nodeTypes[Int(box)] = builder.intern(layouts[Int(typeIndex[Int(box)])].boxName)
        }

        // Holders outside the heap: globals, and retain counts the heap does not explain.
        let globals = Self.findGlobals(addresses: addresses, index: index)
        var strongIn = [UInt32](repeating: 0, count: count)
        for edge in edges.targets.indices where CompactGraph.isRetaining(edges.flags[edge]) {
            strongIn[Int(edges.targets[edge])] &+= 1
        }
        for global in globals { strongIn[Int(global.object)] &+= 1 }
        var outside = [UInt32](repeating: 0, count: count)
        for node in 0..<count {
            let retained = retainCounts[node]
            // Immortal objects report enormous counts; they are nobody's leak.
            guard retained < 1 << 30 else { continue }
            outside[node] = retained > strongIn[node] ? retained - strongIn[node] : 0
        }

        builder.addNodes(
            kinds: nodeKinds, typeNameNumbers: nodeTypes, addresses: addresses,
            sizes: columns.sizeArray())
        builder.appendEdges(
            sources: edges.sources, targets: edges.targets, flags: edges.flags,
            roles: edges.roles, tags: [])
        Self.addHolders(
            globals: globals, outside: outside, entryKinds: entryKinds, typeIndex: typeIndex,
            timerTypes: Set(
                layouts.indices.filter { TimerProbe.isTimerClass(metadata: layouts[$0].metadata) }
                    .map { Int32($0) }),
            threadTypes: Set(
                layouts.indices.filter { TimerProbe.isThreadClass(metadata: layouts[$0].metadata) }
                    .map { Int32($0) }),
            addresses: addresses, into: &builder)
        // Objects keep their numbers: a node's number is its HeapObjectID.
        let graph = builder.build(numberingForLocality: false)
        self.init(
            graph: graph, objectCount: count, addressIndex: index, typeIndex: typeIndex,
            typeNames: typeNames, retainCounts: retainCounts, entryKinds: entryKinds,
            outsideCounts: outside, typeMetadata: layouts.map(\.metadata) + [0, 0, 0],
            limitations: layouts.compactMap { layout in
                layout.problem.map { "\(layout.typeName): \($0)" }
            })
    }

    /// The compact graph's kind for objects of a layout.
    fileprivate static func nodeKind(_ layout: CompiledLayout) -> CompactGraph.NodeKind {
        switch layout.shape {
        case .closureContext: return .closure
        case .box: return .box
        case .collectionStorage: return .storage
        case .instance, .task, .other:
            return KnownType(typeName: layout.typeName)?.isTimer == true ? .timer : .object
        }
    }
}

extension HeapSnapshot {
    /// Adds, beside every reference to a closure context that only forwards to another closure,
    /// a reference to the closure it forwards to, as the reflection walk reads it: a reabstraction thunk's context
    /// (``CompiledLayout/isThunk``: a closure stored in an array reads `element of [() -> ()] ⇒
    /// closure context (captures Owner)`), and a context the compiler made that names no
    /// capture and holds exactly one closure context (an async function's partial apply: a
    /// `Task` reads `runs ⇒ closure context (captures Owner)`, not `runs ⇒ closure context ⇒
    /// captures a closure ⇒ …`). When the closure's only capture is its context, the reference
    /// becomes a capture of the object. The reference to the forwarding context stays (it is
    /// what keeps that context's memory, for retained sizes), marked low priority so that paths
    /// take the direct one.
    fileprivate static func lookThroughThunks(
        _ edges: inout EdgeColumns, typeIndex: [Int32], layouts: [CompiledLayout],
        kinds: [CompactGraph.NodeKind], typeNames: [String], builder: inout CompactGraph.Builder
    ) {
        // Each node's number of references and, for a node with one, its target.
        var outCount = [UInt8](repeating: 0, count: kinds.count)
        var onlyTarget = [UInt32](repeating: 0, count: kinds.count)
        for edge in edges.sources.indices {
            let source = Int(edges.sources[edge])
            if outCount[source] < 2 { outCount[source] += 1 }
            onlyTarget[source] = edges.targets[edge]
        }
        // Per type, once: reading a layout's properties copies it (its arrays retained).
        let thunkTypes = layouts.map(\.isThunk)
        let capturelessTypes = layouts.map(\.captures.isEmpty)
        func forwards(_ node: UInt32) -> Bool {
            let type = Int(typeIndex[Int(node)])
            guard type < thunkTypes.count, kinds[Int(node)] == .closure else { return false }
            if thunkTypes[type] { return true }
            return capturelessTypes[type] && outCount[Int(node)] == 1
                && kinds[Int(onlyTarget[Int(node)])] == .closure
        }
        var wrapped: [UInt32: UInt32] = [:]
        for edge in edges.sources.indices where forwards(edges.sources[edge]) {
            wrapped[edges.sources[edge]] = edges.targets[edge]
        }
        guard !wrapped.isEmpty else { return }
        var direct = EdgeColumns()
        for edge in edges.targets.indices where wrapped[edges.sources[edge]] == nil {
            var target = edges.targets[edge]
            var hops = 0
            while let next = wrapped[target], hops < 8 {
                target = next
                hops += 1
            }
            guard hops > 0 else { continue }
            var role = edges.roles[edge]
            if kinds[Int(target)] != .closure {
                let name = TypeNames.withoutModule(typeNames[Int(typeIndex[Int(target)])])
                role = builder.intern(builder.roles[role].capturing(name))
            }
            direct.append(
                source: edges.sources[edge], target: target, flags: edges.flags[edge], role: role)
            edges.flags[edge] = CompactGraph.lowPriority(edges.flags[edge])
        }
        for index in direct.sources.indices {
            edges.append(
                source: direct.sources[index], target: direct.targets[index],
                flags: direct.flags[index], role: direct.roles[index])
        }
    }
}

/// Edge columns, as the compact graph stores them.
struct EdgeColumns {
    var sources: [UInt32] = []
    var targets: [UInt32] = []
    var flags: [UInt8] = []
    var roles: [UInt32] = []

    mutating func append(source: UInt32, target: UInt32, flags: UInt8, role: UInt32) {
        sources.append(source)
        targets.append(target)
        self.flags.append(flags)
        roles.append(role)
    }
}

/// The layout registry's roles renumbered into a graph's, with the roles that depend on the
/// target (a block's captures, a closure whose context is its only capture) named after it.
struct RoleNaming {
    let roles: InternedRoles
    /// Graph role numbers by registry role number (`UInt32.max` until first used).
    var numbers: [UInt32]
    /// Graph role numbers of target-dependent roles, by registry role and target type.
    var named: [UInt64: UInt32] = [:]
    /// The registry number of a block's captures (named after the target).
    let capturedRole: UInt32?

    init(roles: InternedRoles) {
        self.roles = roles
        numbers = [UInt32](repeating: .max, count: roles.count)
        capturedRole = roles.number(of: HeapScan.capturedRole)
    }

    /// The graph's number of registry role `role`, for a reference to an object of type
    /// `targetType` (named `targetName`, of kind `targetKind`).
    mutating func number(
        _ role: UInt32, isFunctionContext: Bool, targetType: Int32,
        targetKind: CompactGraph.NodeKind, targetName: () -> String,
        builder: inout CompactGraph.Builder
    ) -> UInt32 {
        let dependsOnTarget =
            (isFunctionContext && targetKind != .closure) || role == capturedRole
        if !dependsOnTarget {
            if Int(role) < numbers.count, numbers[Int(role)] != .max { return numbers[Int(role)] }
            let number = builder.intern(roles[role])
            if Int(role) < numbers.count { numbers[Int(role)] = number }
            return number
        }
        let key = UInt64(role) << 32 | UInt64(UInt32(bitPattern: targetType))
        if let known = named[key] { return known }
        let name = targetKind == .closure ? "a closure" : TypeNames.withoutModule(targetName())
        let number = builder.intern(
            role == capturedRole ? .capture(name: name) : roles[role].capturing(name))
        named[key] = number
        return number
    }
}
