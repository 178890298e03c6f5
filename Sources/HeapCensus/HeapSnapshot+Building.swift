import ReferenceReflection
import RetainGraph

extension HeapSnapshot {
    /// Builds a snapshot from a scan: decodes the copied dynamic values, keeps the objects the
    /// scan read (and the references between them), finds the global variables that hold
    /// objects, computes each object's references from outside the heap, and sorts it all
    /// into a `CompactGraph` whose roots are the objects held by a global or from outside.
    ///
    /// - Complexity: O(*n* + *r*) for *n* objects and *r* references, plus one pass over the
    ///   writable data of every loaded image.
    init(scan: RawHeap, layouts: [CompiledLayout], labels: [String]) {
        let columns = scan.columns
        let count = columns.objectCount
        let addresses = columns.addressArray()
        let retainCounts = columns.retainCountArray()
        var builder = CompactGraph.Builder()
        let labelNumbers = labels.map { builder.intern($0) }
        var index = AddressIndex(addresses)

        // Types: the layouts, then three kinds of objects without one.
        let unknownType = Int32(layouts.count)
        let taskType = unknownType + 1
        let blockType = unknownType + 2
        let typeNames =
            layouts.map(\.typeName) + [
                "object (layout not compiled when scanned)", "Task", "block",
            ]
        let typeNumbers = typeNames.map { builder.intern($0) }
        let typeKinds = layouts.map { Self.nodeKind($0.shape) } + [.object, .object, .closure]
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

        // References to census objects, labels renumbered into the graph's strings.
        var (sources, targets, kinds, edgeLabels) = Self.resolveReferences(
            columns, index: index, labelNumbers: labelNumbers)
        Self.decodeDynamicValues(
            scan, index: index, builder: &builder, sources: &sources, targets: &targets,
            kinds: &kinds, labels: &edgeLabels)

        // Holders outside the heap: globals, and retain counts the heap does not explain.
        let globals = Self.findGlobals(addresses: addresses, index: index)
        var strongIn = [UInt32](repeating: 0, count: count)
        for edge in targets.indices where kinds[edge] == .strong {
            strongIn[Int(targets[edge])] &+= 1
        }
        for global in globals { strongIn[Int(global.object)] &+= 1 }
        var outside = [UInt32](repeating: 0, count: count)
        for node in 0..<count {
            let retained = retainCounts[node]
            // Immortal objects report enormous counts; they are nobody's leak.
            guard retained < 1 << 30 else { continue }
            outside[node] = retained > strongIn[node] ? retained - strongIn[node] : 0
        }

        builder.addNodes(kinds: nodeKinds, typeNameNumbers: nodeTypes, addresses: addresses)
        builder.addDiscoveredEdges(
            sources: sources, targets: targets, kinds: kinds, labelNumbers: edgeLabels,
            foundInHeap: true)
        sources = []
        targets = []
        var lastGlobal: Int32 = -1
        for global in globals where global.object != lastGlobal {
            builder.addRoot(UInt32(global.object), name: "held by a global variable")
            lastGlobal = global.object
        }
        for node in 0..<count where outside[node] > 0 {
            builder.addRoot(UInt32(node), name: "held from outside the Swift heap")
        }
        let graph = builder.build(numberingForLocality: Self.numbersForLocality)

        // Everything by the graph's numbers.
        var number = [Int32](repeating: 0, count: count)
        var isIdentity = true
        for node in 0..<count {
            number[node] = Int32(graph.node(added: UInt32(node)))
            isIdentity = isIdentity && number[node] == Int32(node)
        }
        if !isIdentity { index.renumber(number) }
        func inGraphOrder<Value>(_ values: [Value]) -> [Value] {
            isIdentity ? values : Self.permuted(values, number)
        }
        self.init(
            graph: graph, addressIndex: index, typeIndex: inGraphOrder(typeIndex),
            typeNames: typeNames, retainCounts: inGraphOrder(retainCounts),
            sizes: inGraphOrder(columns.sizeArray()), entryKinds: inGraphOrder(entryKinds),
            globals: globals.map { GlobalReference(object: number[Int($0.object)], slot: $0.slot) }
                .sorted { $0.object < $1.object },
            outsideCounts: inGraphOrder(outside),
            typeMetadata: layouts.map(\.metadata) + [0, 0, 0],
            timerTypes: Set(
                layouts.indices.filter { TimerProbe.isTimerClass(metadata: layouts[$0].metadata) }
                    .map { Int32($0) }),
            limitations: layouts.compactMap { layout in
                layout.problem.map { "\(layout.typeName): \($0)" }
            })
    }

    /// Whether the snapshot's graph numbers objects in traversal order from the holders
    /// (what makes a million-object analysis fast) rather than in the order they were read.
    static let numbersForLocality = false
}

extension HeapSnapshot {
    /// Decodes the dynamic values the scan copied (enum payloads, existentials) into more
    /// references, numbered like the kept objects.
    fileprivate static func decodeDynamicValues(
        _ scan: RawHeap, index: AddressIndex, builder: inout CompactGraph.Builder,
        sources: inout [UInt32], targets: inout [UInt32], kinds: inout [CompactGraph.EdgeKind],
        labels: inout [UInt32]
    ) {
        guard !scan.dynamicValues.isEmpty else { return }
        var copies = scan.dynamicBytes  // decoding works on the copies in place
        copies.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for value in scan.dynamicValues {
                DynamicValues.decode(value.slot, copy: base + value.offset) { word, kind, label in
                    guard let target = index.index(of: word) else { return }
                    sources.append(value.source)
                    targets.append(UInt32(target))
                    kinds.append(HeapScan.edgeKind(kind))
                    labels.append(builder.intern(label))
                }
            }
        }
    }

    /// Resolves the words the scan read to object numbers, keeping the references whose
    /// target is a census object, with labels renumbered into the graph's strings.
    ///
    /// One tight loop of independent hash lookups: the processor overlaps their cache misses,
    /// which lookups interleaved with the scan's own reads could not.
    fileprivate static func resolveReferences(
        _ columns: ScanColumns, index: AddressIndex, labelNumbers: [UInt32]
    ) -> (
        sources: [UInt32], targets: [UInt32], kinds: [CompactGraph.EdgeKind], labels: [UInt32]
    ) {
        let count = columns.referenceCount
        let read = columns.storage.pointee
        var kept = 0
        var sources: [UInt32] = []
        var targets: [UInt32] = []
        var kinds: [CompactGraph.EdgeKind] = []
        let labels = [UInt32](unsafeUninitializedCapacity: count) { labels, labelCount in
            kinds = [CompactGraph.EdgeKind](unsafeUninitializedCapacity: count) {
                kinds, kindCount in
                targets = [UInt32](unsafeUninitializedCapacity: count) { targets, targetCount in
                    sources = [UInt32](unsafeUninitializedCapacity: count) {
                        sources, sourceCount in
                        for edge in 0..<count {
                            guard let target = index.index(of: read.words.base[edge]) else {
                                continue
                            }
                            let label = Int(read.labels.base[edge])
                            sources[kept] = read.sources.base[edge]
                            targets[kept] = UInt32(target)
                            kinds[kept] =
                                CompactGraph.EdgeKind(rawValue: read.kinds.base[edge]) ?? .strong
                            labels[kept] = label < labelNumbers.count ? labelNumbers[label] : 0
                            kept += 1
                        }
                        sourceCount = kept
                    }
                    targetCount = kept
                }
                kindCount = kept
            }
            labelCount = kept
        }
        return (sources, targets, kinds, labels)
    }

    /// The compact graph's kind for objects of a layout's shape.
    fileprivate static func nodeKind(_ shape: HeapObjectLayout.Shape) -> CompactGraph.NodeKind {
        switch shape {
        case .closureContext: return .closure
        case .box: return .box
        case .collectionStorage: return .storage
        case .instance, .task, .other: return .object
        }
    }

    /// `values` moved to the positions `number` gives (a permutation).
    fileprivate static func permuted<Value>(_ values: [Value], _ number: [Int32]) -> [Value] {
        guard let first = values.first else { return [] }
        var result = [Value](repeating: first, count: values.count)
        for index in values.indices { result[Int(number[index])] = values[index] }
        return result
    }

    /// Every word in the writable data of the loaded images that holds a kept object's
    /// address: a global or static variable (or a C global) holding it.
    fileprivate static func findGlobals(addresses: [UInt], index: AddressIndex)
        -> [GlobalReference]
    {
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
        return found.sorted { $0.object < $1.object }
    }
}
