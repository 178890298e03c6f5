import ObjectGraph
import RuntimeLayouts
import StackTraces

extension HeapSnapshot {
    /// Resolves the words the scan read to object numbers, keeping the references whose
    /// target is a census object, with their flags and roles as the graph stores them.
    ///
    /// One tight loop of independent hash lookups: the processor overlaps their cache misses,
    /// which lookups interleaved with the scan's own reads could not.
    static func resolveReferences(
        _ columns: ScanColumns, index: AddressIndex, kinds: [CompactGraph.NodeKind],
        naming: inout RoleNaming, builder: inout CompactGraph.Builder, typeNames: [String],
        typeIndex: [Int32]
    ) -> EdgeColumns {
        let count = columns.referenceCount
        let read = columns.storage.pointee
        var edges = EdgeColumns()
        edges.sources.reserveCapacity(count)
        edges.targets.reserveCapacity(count)
        edges.flags.reserveCapacity(count)
        edges.roles.reserveCapacity(count)
        for edge in 0..<count {
            guard let target = index.index(of: read.words.base[edge]) else { continue }
            let kind = read.kinds.base[edge]
            let ownership = Ownership(byte: kind & 7)
            let type = typeIndex[Int(target)]
            let role = naming.number(
                read.roles.base[edge],
                isFunctionContext: kind & ScanColumns.functionContextBit != 0,
                targetType: type, targetKind: kinds[Int(target)],
                targetName: { typeNames[Int(type)] }, builder: &builder)
            edges.append(
                source: read.sources.base[edge], target: UInt32(target),
                flags: CompactGraph.flags(ownership, .heap), role: role)
        }
        return edges
    }

    /// Decodes the dynamic values the scan copied (enum payloads, existentials) into more
    /// references.
    ///
    /// - Returns: The objects reached as boxes of values held out of line (an indirect enum
    ///   payload, an existential's boxed value).
    static func decodeDynamicValues(
        _ scan: RawHeap, index: AddressIndex, kinds: [CompactGraph.NodeKind],
        builder: inout CompactGraph.Builder, typeNames: [String], typeIndex: [Int32],
        into edges: inout EdgeColumns
    ) -> Set<Int32> {
        var boxes = Set<Int32>()
        guard !scan.dynamicValues.isEmpty else { return boxes }
        // The copies may be of objects not yet initialised: DynamicValues checks every word it
        // reads as metadata (MetadataValidation) before reading through it.
        var copies = scan.dynamicBytes  // decoding works on the copies in place
        copies.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for value in scan.dynamicValues {
                DynamicValues.decode(value.slot, copy: base + value.offset) { word, slot in
                    guard let target = index.index(of: word) else { return }
                    if slot.isBox { boxes.insert(target) }
                    let type = typeIndex[Int(target)]
                    var role = builder.intern(slot.role)
                    if slot.isFunctionContext, kinds[Int(target)] != .closure {
                        role = builder.intern(
                            slot.role.capturing(RoleNaming.shortName(typeNames[Int(type)])))
                    }
                    edges.append(
                        source: value.source, target: UInt32(target),
                        flags: CompactGraph.flags(slot.ownership, .heap), role: role)
                }
            }
        }
        return boxes
    }

    /// Every word in the writable data of the loaded images that holds a kept object's
    /// address: a global or static variable (or a C global) holding it.
    static func findGlobals(addresses: [UInt], index: AddressIndex) -> [GlobalReference] {
        guard var lowest = addresses.first else { return [] }
        var highest = lowest
        for address in addresses {
            lowest = min(lowest, address)
            highest = max(highest, address)
        }
        var found: [GlobalReference] = []
        CensusDoor.writableSegments { segment, _ in
            var slot = (segment.lowerBound + 7) & ~7
            while slot &+ 8 <= segment.upperBound &+ 1 {
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
    /// (named from the symbol tables), and one per kind of holder outside the heap, each with
    /// an edge to every object it holds.
    static func addHolders(
        globals: [GlobalReference], outside: [UInt32], entryKinds: [HeapEntryKind],
        typeIndex: [Int32], timerTypes: Set<Int32>, threadTypes: Set<Int32>, addresses: [UInt],
        into builder: inout CompactGraph.Builder
    ) {
        let strong = CompactGraph.flags(.strong, .heap)
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
                roles: [builder.intern(.heldBy(.globalVariable))], tags: [])
        }
        // The other holders: one node per running thread (named by the thread), one per
        // other kind.
        var holderNode: [HeapHolderKind: CompactGraph.NodeID] = [:]
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
            let node: CompactGraph.NodeID
            if kind == .thread {
                let holder = HeapHolder.thread(name: threadName)
                node = builder.addNode(
                    kind: .root, typeName: kind.groupName, label: threadName)
                builder.addRoot(node, kind: .heapHolder(kind, description: holder.description))
            } else if let known = holderNode[kind] {
                node = known
            } else {
                node = builder.addNode(kind: .root, typeName: kind.groupName)
                builder.addRoot(
                    node, kind: .heapHolder(kind, description: HeapHolder.description(of: kind)))
                holderNode[kind] = node
            }
            sources.append(node)
            targets.append(UInt32(object))
            roles.append(builder.intern(.heldBy(kind)))
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
