import ObjectGraph
import RuntimeLayouts
import StackTraces
import RetainGraphUtilities

extension HeapSnapshot {
    /// Resolves the words the scan read to object numbers, keeping the references whose
    /// target is a census object, with their flags and roles as the graph stores them.
    ///
    /// One tight loop of independent hash lookups: the processor overlaps their cache misses,
    /// which lookups interleaved with the scan's own reads could not. It writes into buffers and
    /// takes the common role (one that does not depend on the target) from a table: appending
    /// to arrays and calling out per reference cost a debug build twice as much.
    static func resolveReferences(
        _ columns: ScanColumns, index: AddressIndex, kinds: [CompactGraph.NodeKind],
        naming: inout RoleNaming, builder: inout CompactGraph.Builder, typeNames: [String],
        typeIndex: [Int32]
    ) -> EdgeColumns {
        let count = columns.referenceCount
        let read = columns.storage.pointee
        let sources = UnsafeMutablePointer<UInt32>.allocate(capacity: max(count, 1))
        let targets = UnsafeMutablePointer<UInt32>.allocate(capacity: max(count, 1))
        let flags = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        let roles = UnsafeMutablePointer<UInt32>.allocate(capacity: max(count, 1))
        defer {
            sources.deallocate()
            targets.deallocate()
            flags.deallocate()
            roles.deallocate()
        }
        // The graph's flags for each ownership byte (0–4) of a reference found in the heap.
        var flagsOfKind = [UInt8](repeating: 0, count: 8)
        for byte in 0..<8 {
            flagsOfKind[byte] = CompactGraph.flags(Ownership(byte: UInt8(byte)), .heap)
        }
        let capturedRole = naming.capturedRole ?? .max
        var kept = 0
        flagsOfKind.withUnsafeBufferPointer { flagsOfKind in
            var edge = 0
            while edge < count {
                let target = index.rawIndex(of: read.words.base[edge])
                if target >= 0 {
                    let kind = read.kinds.base[edge]
                    let registryRole = read.roles.base[edge]
                    var role = UInt32.max
                    if kind & ScanColumns.functionContextBit == 0, registryRole != capturedRole,
                        Int(registryRole) < naming.numbers.count
                    {
                        role = naming.numbers[Int(registryRole)]
                    }
                    if role == .max {
                        let type = typeIndex[Int(target)]
                        role = naming.number(
                            registryRole,
                            isFunctionContext: kind & ScanColumns.functionContextBit != 0,
                            targetType: type, targetKind: kinds[Int(target)],
                            targetName: { typeNames[Int(type)] }, builder: &builder)
                    }
                    sources[kept] = read.sources.base[edge]
                    targets[kept] = UInt32(truncatingIfNeeded: target)
                    flags[kept] = flagsOfKind[Int(kind & 7)]
                    roles[kept] = role
                    kept += 1
                }
                edge += 1
            }
        }
        var edges = EdgeColumns()
        edges.sources = Array(UnsafeBufferPointer(start: sources, count: kept))
        edges.targets = Array(UnsafeBufferPointer(start: targets, count: kept))
        edges.flags = Array(UnsafeBufferPointer(start: flags, count: kept))
        edges.roles = Array(UnsafeBufferPointer(start: roles, count: kept))
        return edges
    }

    /// Every word in the writable data of the loaded images that holds a kept object's
    /// address: a global or static variable (or a C global) holding it.
    static func findGlobals(addresses: [UInt], index: AddressIndex) -> [GlobalReference] {
        guard var lowest = addresses.first else { return [] }
        var highest = lowest
        // Loops over buffers, not generic iterators and `min`: a debug build runs those
        // unspecialised.
        addresses.withUnsafeBufferPointer { addresses in
            guard let base = addresses.baseAddress else { return }
            var position = 0
            while position < addresses.count {
                let address = base[position]
                if address < lowest { lowest = address }
                if address > highest { highest = address }
                position += 1
            }
        }
        var found: [GlobalReference] = []
        CensusDoor.writableSegments { segment, _ in
            var slot = (segment.lowerBound + 7) & ~7
            let end = segment.upperBound &+ 1
            while slot &+ 8 <= end {
                let word = CensusDoor.load(slot)
                if word >= lowest, word <= highest, word & 15 == 0,
                    let object = index.index(of: word)
                {
                    found.append(GlobalReference(object: object, slot: slot))
                }
                slot &+= 8
            }
        }
        return found
    }

    /// Adds the holder nodes, the graph's roots: one per global variable that holds objects
    /// (named from the symbol tables), one per running thread, and one per other kind of holder
    /// outside the heap, each with an edge to every object it holds.
    static func addHolders(
        globals: [GlobalReference], outside: [UInt32], entryKinds: [HeapEntryKind],
        typeIndex: [Int32], timerTypes: Set<Int32>, threadTypes: Set<Int32>, addresses: [UInt],
        into builder: inout CompactGraph.Builder
    ) {
        let strong = CompactGraph.flags(.strong, .heap)
        // Roles are interned once per kind: interning hashes a role (and runs unspecialised in
        // a debug build), and thousands of objects can have holders outside the heap.
        let globalRole = builder.intern(.heldBy(.globalVariable))
        // Globals, one node per variable (its symbol), in the order found, named without the
        // discriminators of private declarations unless two names would then collide.
        var keys: [UInt] = []
        var slotKeys: [UInt] = []
        var names: [UInt: String] = [:]
        for global in globals {
            let symbol = ImageSymbols.symbol(containing: global.slot)
            let key = symbol?.start ?? global.slot
            slotKeys.append(key)
            if names[key] == nil {
                keys.append(key)
                names[key] =
                    symbol.map { Demangling.demangle($0.name) }
                    ?? "at 0x\(String(global.slot, radix: 16)) (no symbol)"
            }
        }
        let readable = TypeNames.withoutDiscriminators(keys.map { names[$0] ?? "" })
        var variableNode: [UInt: CompactGraph.NodeID] = [:]
        for (key, name) in zip(keys, readable) {
            let node = builder.addNode(kind: .root, typeName: "global variable", label: name)
            builder.addRoot(
                node, kind: .heapHolder(.globalVariable, description: "global variable \(name)"))
            variableNode[key] = node
        }
        for (global, key) in zip(globals, slotKeys) {
            guard let node = variableNode[key] else { continue }
            builder.appendEdges(
                sources: [node], targets: [UInt32(global.object)], flags: [strong],
                roles: [globalRole], tags: [])
        }
        // The other holders: one node per running thread (named by its pthread), one per
        // other kind.
        var holderNode: [HeapHolderKind: (node: CompactGraph.NodeID, role: UInt32)] = [:]
        var sources: [UInt32] = []
        var targets: [UInt32] = []
        var roles: [UInt32] = []
        for object in outside.indices where outside[object] > 0 {
            let kind: HeapHolderKind
            var threadName: String?
            switch entryKinds[object] {
            case .task: kind = .task
            case .block: kind = .dispatchBlock
            case .object:
                if timerTypes.contains(typeIndex[object]) {
                    let isValid = TimerProbe.isValid(at: addresses[object])
                    kind = isValid ? .scheduledTimer : .foundationTimer
                } else if threadTypes.contains(typeIndex[object]),
                    let thread = TimerProbe.runningThread(at: addresses[object]), thread.isRunning
                {
                    kind = .thread
                    threadName = thread.name
                } else {
                    kind = .outside
                }
            }
            let holder: (node: CompactGraph.NodeID, role: UInt32)
            if kind == .thread {
                let node = builder.addNode(kind: .root, typeName: kind.groupName, label: threadName)
                builder.addRoot(
                    node,
                    kind: .heapHolder(
                        kind, description: HeapHolder.thread(name: threadName).description))
                holder = (node, builder.intern(.heldBy(kind)))
            } else if let known = holderNode[kind] {
                holder = known
            } else {
                let node = builder.addNode(kind: .root, typeName: kind.groupName)
                builder.addRoot(
                    node, kind: .heapHolder(kind, description: HeapHolder.description(of: kind)))
                holder = (node, builder.intern(.heldBy(kind)))
                holderNode[kind] = holder
            }
            sources.append(holder.node)
            targets.append(UInt32(object))
            roles.append(holder.role)
        }
        builder.appendEdges(
            sources: sources, targets: targets,
            flags: [UInt8](repeating: strong, count: sources.count), roles: roles, tags: [])
    }
}

/// A global variable's storage that holds a census object.
struct GlobalReference: Sendable {
    /// The object's index.
    var object: Int32
    /// Where the word lies, in an image's writable data.
    var slot: UInt
}
