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

import HeapGraph
import ObjectGraph
import RuntimeLayouts

/// Finds the Swift objects among the blocks of a stopped process's heap (a copy, or a core
/// file) and reads them with the one layout executor: the heap source an attach gives the one
/// graph builder.
///
/// Two passes: the first tells objects from other blocks by their first word (the metadata
/// source's check, cached per word) and compiles each new type's layout; the second reads every
/// object with the flattened layouts.
struct ProcessScan {
    /// Where a side table's reference-count bits lie (see the comment at the top of the file).
    static let sideTableBitsOffset: UInt = 16

    let memory: ProcessMemory
    let table: LayoutTable<MirrorMetadata>
    /// Polled per block and per object; charged before the columns grow.
    let budget: AnalysisBudget
    /// Blocks whose first word was not metadata (freed, or not Swift objects).
    private(set) var skippedBlocks = 0
    /// Objects being deinitialised (dying): left out.
    private(set) var dyingObjects = 0
    /// Blocks smaller than their type's layout reads (a planted or stale metadata word), by
    /// type name: left out.
    private(set) var undersizedBlocks: [String: Int] = [:]
    /// Blocks far larger than their type's instances (a class that is never tail-allocated:
    /// the word is a stale or copied metadata word, say a table of types), by type name: left
    /// out.
    private(set) var oversizedBlocks: [String: Int] = [:]
    /// Blocks whose first word is class metadata with a superclass chain that loops or runs
    /// on (planted, or corrupted): left out.
    private(set) var unendingChainBlocks = 0
    /// Blocks whose first word is object metadata that failed the metadata check of a type it
    /// leads the mirror to (a generic argument, a boxed type): left out, unnamed.
    private(set) var refusedMetadataBlocks = 0

    init(memory: ProcessMemory, table: LayoutTable<MirrorMetadata>, budget: AnalysisBudget) {
        self.memory = memory
        self.table = table
        self.budget = budget
    }

    /// The bytes one value of each column takes: an object's (address, layout, count, size,
    /// kind), a reference's (holder, word, kind, role), a dynamic value's bookkeeping.
    static let bytesPerObject = 8 + 4 + 4 + 4 + 1
    static let bytesPerReference = 4 + 8 + 1 + 4
    static let bytesPerDynamic = 4 + 8 + 4 + 8

    /// Reads every block that is a live Swift object.
    ///
    /// The first pass records each object it finds straight into the columns the second pass
    /// appends references to (no list of candidates beside them: 24 bytes an object that an
    /// attach of five million objects held with the blocks, the columns and the copy). The
    /// blocks are let go between the passes (12 bytes a block, freed when the caller handed
    /// them over).
    mutating func scan(blocks: consuming [UInt], sizes: consuming [UInt32]) -> HeapScan {
        // Room for every block: capacity never written costs no memory (its pages are never
        // touched), and the first pass then never grows a column.
        let columns = ScanColumns(objects: blocks.count + 1, references: 0, bytes: 64 * 1_024)
        recordObjects(blocks: blocks, sizes: sizes, into: columns)
        blocks = []
        sizes = []
        let registry = table.snapshot()
        let flat = FlatLayouts(layouts: registry.layouts)
        let count = columns.objectCount
        let references = 3 * count + 1_024
        _ = budget.charge(
            (count + 1) * Self.bytesPerObject + references * Self.bytesPerReference + 64 * 1_024,
            for: "reading the objects' references")
        columns.makeRoom(ScanColumns.Room(references: references))
        var reader = ObjectReader(
            columns: columns, flat: flat,
            blockRole: table.roleNumber(ObjectLayout.targetNamedCapture),
            closureRole: table.roleNumber(.capture(name: "closure")), outside: memory)
        var region: MemoryRegion?
        for object in 0..<count where !budget.isSpent {
            guard budget.poll() else { break }
            let (address, layout, size, kind) = columns.object(object)
            if region.map({ !$0.range.contains(address) }) ?? true {
                region = memory.region(containing: address)
            }
            guard let region else { continue }  // the first pass found it in a region
            reader.delta = UInt(bitPattern: region.base) &- region.range.lowerBound
            var needed =
                kind == .block
                ? reader.neededForBlock(address, size: size)
                : reader.needed(layout: layout, object: address, size: size)
            needed.objects = 0  // recorded by the first pass
            if !columns.storage.pointee.hasRoom(needed) {
                guard charge(needed, columns: columns) else { break }
                columns.makeRoom(needed)
            }
            let source = UInt32(truncatingIfNeeded: object)
            if kind == .block {
                reader.readBlock(address, size: size, source: source)
            } else {
                reader.read(layout: layout, object: address, size: size, source: source)
            }
        }
        let table = self.table
        return HeapScan(
            columns: columns, flat: flat, layouts: registry.layouts, roles: table.snapshot().roles,
            decoder: table.compiler)
    }

    /// Records the blocks that are live Swift objects in `columns`, with their layouts
    /// (compiled when new; -1 for a block of libdispatch or Foundation, read by its kind).
    private mutating func recordObjects(blocks: [UInt], sizes: [UInt32], into columns: ScanColumns)
    {
        var layoutOf: [UInt: Int32] = [:]
        var blockLayouts = Set<Int32>()
        /// The least size each layout reads, by layout index (Int.max: never safe to read).
        var minimumSizes: [Int] = []
        /// The largest block each layout's objects can be, by layout index (Int.max: any).
        var maximumSizes: [Int] = []
        /// Each layout's kind of object, by layout index.
        var kinds: [HeapObjectKind] = []
        var region: MemoryRegion?
        var last = (metadata: UInt(0), layout: Int32(-1))
        for (index, block) in blocks.enumerated() {
            guard budget.poll() else { break }
            if region.map({ !$0.range.contains(block) }) ?? true {
                region = memory.region(containing: block)
            }
            guard let region, region.range.upperBound - block >= 16 else { continue }
            let size = min(Int(sizes[index]), Int(region.range.upperBound - block))
            let first = region.local(block).loadUnaligned(as: UInt.self)
            let layout: Int32
            if first == last.metadata {
                layout = last.layout
            } else if let known = layoutOf[first] {
                layout = known
            } else {
                layout =
                    size >= 16
                    ? table.index(ofMetadata: first, sample: block)
                        ?? Self.refusal(of: first, by: table.source) : -1
                layoutOf[first] = layout
                if layout >= 0, table.layout(at: layout).kind == .block {
                    blockLayouts.insert(layout)
                }
            }
            last = (first, layout)
            guard layout >= 0 else {
                if layout == -2 { unendingChainBlocks += 1 }
                if layout == -3 { refusedMetadataBlocks += 1 }
                skippedBlocks += 1
                continue
            }
            while minimumSizes.count <= Int(layout) {
                let compiled = table.layout(at: Int32(minimumSizes.count))
                minimumSizes.append(Self.minimumSize(compiled))
                maximumSizes.append(Self.maximumSize(compiled))
                kinds.append(compiled.kind)
            }
            guard size >= minimumSizes[Int(layout)] else {
                undersizedBlocks[table.layout(at: layout).typeName, default: 0] += 1
                continue
            }
            guard size <= maximumSizes[Int(layout)] else {
                oversizedBlocks[table.layout(at: layout).typeName, default: 0] += 1
                continue
            }
            let isBlock = blockLayouts.contains(layout)
            guard let retainCount = retainCount(of: block, in: region, isBlock: isBlock) else {
                dyingObjects += 1
                continue
            }
            let kind = kinds[Int(layout)]
            _ = columns.record(
                block, layout: kind == .block ? -1 : layout, retainCount: Int(retainCount),
                kind: kind, size: size)
        }
    }

    /// The strong retain count, or nil for an object being deinitialised.
    private func retainCount(of object: UInt, in region: MemoryRegion, isBlock: Bool) -> UInt32? {
        let word = region.local(object + 8).loadUnaligned(as: UInt.self)
        if isBlock { return UInt32((word & 0xFFFE) >> 1) }
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
}
