// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit): reference counts, read remotely.
//
// Relied on: an object's second word is its inline reference count: bit 63 "use the side
// table", bit 32 "deinitialising", bits 33–62 the strong count minus one; the low 32 bits all
// set (with bit 63) mark an immortal object. With the side-table bit (and not immortal), the
// word shifted left by 3 is the side table's address: a `HeapObjectSideTableEntry`, the object
// @0, then its `SideTableRefCountBits`, which are `alignas(2 * sizeof(void *))`: @16, with the
// same layout (the weak count follows @24). The word @8 is padding malloc does not clear: read
// as the count, a stale pointer there made live objects look like they were being deinitialised
// (two of 300 `Section`s with weakly referenced side tables, seen in AttachCensusCompare).

import ObjectGraph

/// The objects a scan found on the target's heap and the words their layouts say may be
/// references, before those words are checked against the objects' addresses.
struct ScannedHeap {
    var addresses: [UInt] = []
    /// Each object's layout (an index into the compiler's layouts).
    var layouts: [Int32] = []
    var sizes: [UInt32] = []
    /// Strong retain counts (`UInt32.max` for an immortal object).
    var retainCounts: [UInt32] = []
    var sources: [UInt32] = []
    var words: [UInt] = []
    /// Each word's ownership (``/ObjectGraph/Ownership/byte``), with ``functionContextBit``
    /// and ``boxBit``.
    var kinds: [UInt8] = []
    /// Each word's role, a number in the compiler's role table.
    var roles: [UInt32] = []

    /// Marks a thick function's context (``RemoteSlot/isFunctionContext``).
    static let functionContextBit: UInt8 = 0x10
    /// Marks a box of a value held out of line (``RemoteSlot/isBox``).
    static let boxBit: UInt8 = 0x20

    mutating func appendReference(from source: UInt32, word: UInt, _ slot: RemoteSlot) {
        sources.append(source)
        words.append(word)
        kinds.append(
            slot.ownership.byte | (slot.isFunctionContext ? Self.functionContextBit : 0)
                | (slot.isBox ? Self.boxBit : 0))
        roles.append(slot.role)
    }

    mutating func appendConservative(from source: UInt32, word: UInt, role: UInt32) {
        sources.append(source)
        words.append(word)
        kinds.append(Ownership.conservative.byte)
        roles.append(role)
    }
}

/// Finds the Swift objects among the heap's blocks and reads their references.
struct HeapObjectScan {
    /// The most elements read from one collection storage.
    static let maximumElements = 1 << 24
    /// Where a side table's reference-count bits lie (see the comment at the top of the file).
    static let sideTableBitsOffset: UInt = 16

    let memory: ProcessMemory
    let compiler: RemoteLayoutCompiler
    private var check: RemoteMetadataCheck
    private(set) var heap = ScannedHeap()
    /// Blocks whose first word was not metadata (freed, or not Swift objects).
    private(set) var skippedBlocks = 0
    /// Objects being deinitialised (dying): left out.
    private(set) var dyingObjects = 0

    init(memory: ProcessMemory, compiler: RemoteLayoutCompiler) {
        self.memory = memory
        self.compiler = compiler
        check = RemoteMetadataCheck(memory)
    }

    /// Reads every block that is a live Swift object.
    mutating func scan(blocks: [UInt], sizes: [UInt32]) {
        heap.addresses.reserveCapacity(blocks.count)
        var region: MemoryRegion?
        var current = (index: Int32(-1), layout: RemoteLayout(typeName: "", shape: .other))
        for (index, block) in blocks.enumerated() {
            if region.map({ !$0.range.contains(block) }) ?? true {
                region = memory.region(containing: block)
            }
            guard let region, region.range.upperBound - block >= 16 else { continue }
            let size = min(Int(sizes[index]), Int(region.range.upperBound - block))
            let first = region.local(block).loadUnaligned(as: UInt.self)
            guard size >= 16, let kind = check.kind(ofFirstWord: first) else {
                skippedBlocks += 1
                continue
            }
            guard let retainCount = retainCount(of: block, in: region, kind: kind) else {
                dyingObjects += 1
                continue
            }
            let layout = compiler.layoutIndex(metadata: first, kind: kind, sample: block)
            let source = UInt32(heap.addresses.count)
            heap.addresses.append(block)
            heap.layouts.append(layout)
            heap.sizes.append(UInt32(clamping: size))
            heap.retainCounts.append(retainCount)
            // Neighbours are often of one type: the layout is fetched (a copy, with its arrays
            // retained) only when the type changes.
            if layout != current.index { current = (layout, compiler.layouts[Int(layout)]) }
            read(current.layout, object: block, size: size, region: region, source: source)
        }
    }

    /// The strong retain count, or nil for an object being deinitialised.
    private func retainCount(of object: UInt, in region: MemoryRegion, kind: ObjectKind) -> UInt32?
    {
        let word = region.local(object + 8).loadUnaligned(as: UInt.self)
        if kind == .block { return UInt32((word & 0xFFFE) >> 1) }
        let useSideTable = word >> 63 != 0
        if useSideTable, word & 0xFFFF_FFFF == 0xFFFF_FFFF { return UInt32.max }  // immortal
        var bits = word
        if useSideTable {
            guard let side = memory.word(at: (word << 3) &+ Self.sideTableBitsOffset) else {
                return 1
            }
            bits = side
        }
        if (bits >> 32) & 1 != 0 { return nil }  // deinitialising
        return UInt32((bits >> 33) & 0x3FFF_FFFF) + 1
    }

    private mutating func read(
        _ layout: RemoteLayout, object: UInt, size: Int, region: MemoryRegion, source: UInt32
    ) {
        readSlots(
            layout.slots, base: object, limit: object + UInt(size), region: region, source: source)
        for dynamic in layout.dynamics where dynamic.offset + 8 <= size {
            decode(dynamic, at: object + UInt(dynamic.offset), source: source)
        }
        for elements in layout.regions {
            readElements(elements, object: object, size: size, region: region, source: source)
        }
        if let start = layout.conservativeFrom {
            var end = min(size, layout.conservativeLimit)
            if layout.shape == .block, let descriptor = memory.word(at: object + 24),
                let blockSize = memory.word(at: descriptor + 8), blockSize >= 32
            {
                end = min(end, Int(clamping: blockSize))
            }
            var offset = (start + 7) & ~7
            while offset + 8 <= end {
                let word = region.local(object + UInt(offset)).loadUnaligned(as: UInt.self)
                if word & 15 == 0, word >= 4096, word != object {
                    heap.appendConservative(from: source, word: word, role: layout.conservativeRole)
                }
                offset += 8
            }
        }
    }

    @inline(__always)
    private mutating func readSlots(
        _ slots: [RemoteSlot], base: UInt, limit: UInt, region: MemoryRegion, source: UInt32
    ) {
        for slot in slots {
            let at = base + UInt(slot.offset)
            guard at + 8 <= limit else { continue }
            var word = region.local(at).loadUnaligned(as: UInt.self)
            guard word != 0 else { continue }
            if slot.ownership == .weak {
                // A side table's first word is its object (null once the object died).
                guard word & 7 == 0, word >= 4096, let object = memory.word(at: word) else {
                    continue
                }
                word = object
            }
            heap.appendReference(from: source, word: word, slot)
        }
    }

    private mutating func decode(_ dynamic: DynamicSlot, at address: UInt, source: UInt32) {
        compiler.decode(dynamic, at: address) { word, slot in
            guard word != 0 else { return }
            heap.appendReference(from: source, word: word, slot)
        }
    }

    private mutating func readElements(
        _ elements: ElementRegion, object: UInt, size: Int, region: MemoryRegion, source: UInt32
    ) {
        let end = object + UInt(size)
        switch elements.counting {
        case .prefix(let countOffset, let start):
            let count = Int(bitPattern: memory.word(at: object + UInt(countOffset)) ?? 0)
            let first = object + UInt(start)
            guard count > 0, first < end else { return }
            let fitting = Int(end - first) / elements.stride
            for index in 0..<min(count, fitting, Self.maximumElements) {
                let base = first + UInt(index * elements.stride)
                readSlots(elements.element, base: base, limit: end, region: region, source: source)
                for dynamic in elements.dynamics {
                    decode(dynamic, at: base + UInt(dynamic.offset), source: source)
                }
            }
        case .hashed(let scaleOffset, let bitmapOffset, let baseOffset):
            let scale = Int(
                Int8(truncatingIfNeeded: memory.word(at: object + UInt(scaleOffset)) ?? 0))
            guard scale >= 0, scale < 40 else { return }
            let buckets = 1 << scale
            let bitmap = object + UInt(bitmapOffset)
            let words = (buckets + 63) / 64
            guard let base = memory.word(at: object + UInt(baseOffset)),
                bitmap + UInt(8 * words) <= end, base >= object,
                base + UInt(buckets * elements.stride) <= end
            else { return }
            for wordIndex in 0..<words {
                var bits = memory.word(at: bitmap + UInt(8 * wordIndex)) ?? 0
                while bits != 0 {
                    let bucket = wordIndex * 64 + bits.trailingZeroBitCount
                    bits &= bits - 1
                    guard bucket < buckets else { break }
                    let element = base + UInt(bucket * elements.stride)
                    readSlots(
                        elements.element, base: element, limit: end, region: region, source: source)
                    for dynamic in elements.dynamics {
                        decode(dynamic, at: element + UInt(dynamic.offset), source: source)
                    }
                }
            }
        }
    }
}
