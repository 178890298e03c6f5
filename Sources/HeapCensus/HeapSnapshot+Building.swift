import ReferenceReflection

extension HeapSnapshot {
    /// Builds a snapshot from a scan: numbers objects by address, keeps the references whose
    /// targets are census objects, decodes the copied dynamic values, finds global variables
    /// that hold objects, and computes each object's references from outside the heap.
    ///
    /// - Complexity: O(*n* log *n* + *r* log *n*) for *n* objects and *r* reference words,
    ///   plus one pass over the writable data of every loaded image.
    init(scan: RawHeap, layouts: [CompiledLayout], labels: [String]) {
        var scan = scan
        let count = scan.addresses.count
        // Number objects by address.
        let order = scan.addresses.indices.sorted { scan.addresses[$0] < scan.addresses[$1] }
        var newIndex = [Int32](repeating: 0, count: count)
        for (position, old) in order.enumerated() { newIndex[old] = Int32(position) }
        let addresses = order.map { scan.addresses[$0] }
        let addressIndex = AddressIndex(addresses)
        func index(of address: UInt) -> Int32? { addressIndex.index(of: address) }

        // Decode dynamic values into more reference words.
        var labelTable = labels
        var labelIDs: [String: Int32] = [:]
        for (id, label) in labelTable.enumerated() { labelIDs[label] = Int32(id) }
        func labelID(_ label: String) -> Int32 {
            if let id = labelIDs[label] { return id }
            let id = Int32(labelTable.count)
            labelTable.append(label)
            labelIDs[label] = id
            return id
        }
        let dynamics = scan.dynamicValues
        var bytes = scan.dynamicBytes
        scan.dynamicBytes = []
        bytes.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            for value in dynamics {
                DynamicValues.decode(value.slot, copy: base + value.offset) { word, kind, label in
                    scan.addEdge(value.source, word, kind, labelID(label))
                }
            }
        }

        // Keep references to census objects, renumbered.
        var sources: [Int32] = []
        var targets: [Int32] = []
        var kinds: [HeapSlotKind] = []
        var edgeLabels: [Int32] = []
        let lowest = addresses.first ?? 0
        let highest = addresses.last ?? 0
        for edge in scan.edgeSource.indices {
            let target = scan.edgeTarget[edge]
            guard target >= lowest, target <= highest, let to = index(of: target) else { continue }
            let from = newIndex[Int(scan.edgeSource[edge])]
            sources.append(from)
            targets.append(to)
            kinds.append(scan.edgeKind[edge])
            edgeLabels.append(scan.edgeLabel[edge])
        }

        // Compressed rows, out and in (counting sort by source, then by target).
        var outStart = [Int32](repeating: 0, count: count + 1)
        for source in sources { outStart[Int(source) + 1] += 1 }
        for node in 0..<count { outStart[node + 1] += outStart[node] }
        var cursor = outStart
        var outOrder = [Int32](repeating: 0, count: sources.count)
        for edge in sources.indices {
            let source = Int(sources[edge])
            outOrder[Int(cursor[source])] = Int32(edge)
            cursor[source] += 1
        }
        let outTarget = outOrder.map { targets[Int($0)] }
        let outKind = outOrder.map { kinds[Int($0)] }
        let outLabel = outOrder.map { edgeLabels[Int($0)] }
        var inStart = [Int32](repeating: 0, count: count + 1)
        for target in outTarget { inStart[Int(target) + 1] += 1 }
        for node in 0..<count { inStart[node + 1] += inStart[node] }
        cursor = inStart
        var inSource = [Int32](repeating: 0, count: outTarget.count)
        var inEdge = [Int32](repeating: 0, count: outTarget.count)
        for node in 0..<count {
            for edge in Int(outStart[node])..<Int(outStart[node + 1]) {
                let target = Int(outTarget[edge])
                inSource[Int(cursor[target])] = Int32(node)
                inEdge[Int(cursor[target])] = Int32(edge)
                cursor[target] += 1
            }
        }

        // Types, counts, tasks, in the new order.
        var typeNames: [String] = layouts.map(\.typeName)
        let unknownType = Int32(typeNames.count)
        typeNames.append("object (layout not compiled when scanned)")
        let taskType = Int32(typeNames.count)
        typeNames.append("Task")
        let blockType = Int32(typeNames.count)
        typeNames.append("block")
        var typeIndex = [Int32](repeating: 0, count: count)
        var retainCounts = [UInt32](repeating: 0, count: count)
        var sizes = [UInt32](repeating: 0, count: count)
        var entryKinds = [HeapEntryKind](repeating: .object, count: count)
        for old in 0..<count {
            let new = Int(newIndex[old])
            let layout = scan.layoutIndex[old]
            switch scan.entryKinds[old] {
            case .task: typeIndex[new] = taskType
            case .block: typeIndex[new] = blockType
            case .object: typeIndex[new] = layout >= 0 ? layout : unknownType
            }
            retainCounts[new] = scan.retainCounts[old]
            sizes[new] = scan.sizes[old]
            entryKinds[new] = scan.entryKinds[old]
        }

        let globals = Self.findGlobals(lowest: lowest, highest: highest, index: index(of:))
        var strongIn = [UInt32](repeating: 0, count: count)
        for edge in outTarget.indices where outKind[edge] == .strong {
            strongIn[Int(outTarget[edge])] &+= 1
        }
        for global in globals { strongIn[Int(global.object)] &+= 1 }
        let outside = (0..<count).map { node -> UInt32 in
            let retained = retainCounts[node]
            // Immortal objects report enormous counts; they are nobody's leak.
            guard retained < 1 << 30 else { return 0 }
            return retained > strongIn[node] ? retained - strongIn[node] : 0
        }

        self.init(
            addresses: addresses, typeIndex: typeIndex, typeNames: typeNames, labels: labelTable,
            retainCounts: retainCounts, sizes: sizes, entryKinds: entryKinds, outStart: outStart,
            outTarget: outTarget,
            outKind: outKind, outLabel: outLabel, inStart: inStart, inSource: inSource,
            inEdge: inEdge, globals: globals, outsideCounts: outside,
            typeMetadata: layouts.map(\.metadata) + [0, 0, 0],
            timerTypes: Set(
                layouts.indices.filter { TimerProbe.isTimerClass(metadata: layouts[$0].metadata) }
                    .map { Int32($0) }),
            limitations: layouts.compactMap { layout in
                layout.problem.map { "\(layout.typeName): \($0)" }
            })
    }

    /// Every word in the writable data of the loaded images that holds a census object's
    /// address: a global or static variable (or a C global) holding it.
    private static func findGlobals(
        lowest: UInt, highest: UInt, index: (UInt) -> Int32?
    ) -> [GlobalReference] {
        guard lowest <= highest, lowest != 0 else { return [] }
        var found: [GlobalReference] = []
        CensusDoor.writableSegments { segment, _ in
            var slot = (segment.lowerBound + 7) & ~7
            while slot &+ 8 <= segment.upperBound &+ 1 {
                let word = CensusDoor.load(slot)
                if word >= lowest, word <= highest, word & 15 == 0, let object = index(word) {
                    found.append(GlobalReference(object: object, slot: slot))
                }
                slot &+= 8
            }
        }
        return found.sorted { $0.object < $1.object }
    }
}
