import RetainGraph

/// Growable columns the heap scan appends to: one per field of an object and of a reference.
///
/// The one place in this module that manages memory by hand, for what it buys: a scan of a
/// million objects appends about five million values. Appended to `Array`s held in the scan
/// (a struct mutated through the closure that visits each census stripe), every append paid
/// a uniqueness check and the scan's copy of each layout a retain and a release: a quarter of
/// `HeapCensus.snapshot()`'s instructions (callgrind, `CensusScale`, 1M objects). Here an
/// append is a capacity check and a store. The columns belong to this object alone, are
/// freed in its `deinit`, and are read through ``withColumns(_:)`` only.
final class ScanColumns {
    /// A growable column of plain values.
    struct Column<Value: BitwiseCopyable> {
        private(set) var base: UnsafeMutablePointer<Value>
        private(set) var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 16)
            base = .allocate(capacity: self.capacity)
        }

        /// Makes room for at least `needed` values, keeping the first `count`.
        mutating func grow(to needed: Int, keeping count: Int) {
            var newCapacity = capacity
            while newCapacity < needed { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<Value>.allocate(capacity: newCapacity)
            newBase.initialize(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        func free() { base.deallocate() }
    }

    // Objects.
    private(set) var objectCount = 0
    private(set) var addresses: Column<UInt>
    private(set) var layoutIndex: Column<Int32>
    private(set) var retainCounts: Column<UInt32>
    private(set) var sizes: Column<UInt32>
    private(set) var entryKinds: Column<UInt8>

    // References: holder, word read, kind, label.
    private(set) var referenceCount = 0
    private(set) var sources: Column<UInt32>
    private(set) var words: Column<UInt>
    private(set) var kinds: Column<UInt8>
    private(set) var labels: Column<UInt32>

    /// Columns with room for `objects` objects and `references` references. Capacity that is
    /// never written costs no memory: its pages are never touched.
    init(objects: Int, references: Int) {
        addresses = Column(capacity: objects)
        layoutIndex = Column(capacity: objects)
        retainCounts = Column(capacity: objects)
        sizes = Column(capacity: objects)
        entryKinds = Column(capacity: objects)
        sources = Column(capacity: references)
        words = Column(capacity: references)
        kinds = Column(capacity: references)
        labels = Column(capacity: references)
    }

    deinit {
        addresses.free()
        layoutIndex.free()
        retainCounts.free()
        sizes.free()
        entryKinds.free()
        sources.free()
        words.free()
        kinds.free()
        labels.free()
    }

    /// Appends an object; returns its number.
    @inline(__always)
    func appendObject(
        address: UInt, layout: Int32, retainCount: UInt32, size: UInt32, kind: HeapEntryKind
    ) -> UInt32 {
        let index = objectCount
        if index == addresses.capacity {
            addresses.grow(to: index + 1, keeping: index)
            layoutIndex.grow(to: index + 1, keeping: index)
            retainCounts.grow(to: index + 1, keeping: index)
            sizes.grow(to: index + 1, keeping: index)
            entryKinds.grow(to: index + 1, keeping: index)
        }
        addresses.base[index] = address
        layoutIndex.base[index] = layout
        retainCounts.base[index] = retainCount
        sizes.base[index] = size
        entryKinds.base[index] = kind.rawValue
        objectCount = index + 1
        return UInt32(index)
    }

    /// Appends a reference from object `source` to whatever `word` is.
    @inline(__always)
    func appendReference(
        from source: UInt32, word: UInt, kind: CompactGraph.EdgeKind, label: UInt32
    ) {
        let index = referenceCount
        if index == sources.capacity {
            sources.grow(to: index + 1, keeping: index)
            words.grow(to: index + 1, keeping: index)
            kinds.grow(to: index + 1, keeping: index)
            labels.grow(to: index + 1, keeping: index)
        }
        sources.base[index] = source
        words.base[index] = word
        kinds.base[index] = kind.rawValue
        labels.base[index] = label
        referenceCount = index + 1
    }

    /// The objects' addresses, as an array.
    func addressArray() -> [UInt] { array(addresses, objectCount) }
    func layoutIndexArray() -> [Int32] { array(layoutIndex, objectCount) }
    func retainCountArray() -> [UInt32] { array(retainCounts, objectCount) }
    func sizeArray() -> [UInt32] { array(sizes, objectCount) }
    func entryKindArray() -> [HeapEntryKind] {
        (0..<objectCount).map { HeapEntryKind(rawValue: entryKinds.base[$0]) ?? .object }
    }

    private func array<Value>(_ column: Column<Value>, _ count: Int) -> [Value] {
        Array(UnsafeBufferPointer(start: column.base, count: count))
    }
}

/// Every compiled layout's fixed slots in one buffer, and whether a layout has anything else
/// to read (dynamic values, elements, a conservative tail), for the scan's common case: an
/// object read from one table, without copying its layout (a struct of arrays: a retain and a
/// release per object). Part of the same hand-managed memory as ``ScanColumns``.
final class FlatSlots {
    private let slotTable: UnsafeMutableBufferPointer<CompiledLayout.Slot>
    private let starts: UnsafeMutableBufferPointer<Int>
    private let more: UnsafeMutableBufferPointer<Bool>

    init(layouts: [CompiledLayout]) {
        let total = layouts.reduce(0) { $0 + $1.slots.count }
        slotTable = .allocate(capacity: max(total, 1))
        starts = .allocate(capacity: layouts.count + 1)
        more = .allocate(capacity: max(layouts.count, 1))
        var next = 0
        for (index, layout) in layouts.enumerated() {
            starts[index] = next
            for slot in layout.slots {
                slotTable[next] = slot
                next += 1
            }
            more[index] =
                !layout.dynamics.isEmpty || !layout.regions.isEmpty
                || layout.conservativeFrom != nil
        }
        starts[layouts.count] = next
    }

    deinit {
        slotTable.deallocate()
        starts.deallocate()
        more.deallocate()
    }

    /// The fixed slots of layout `index` (an index of the layouts this table was made from).
    @inline(__always)
    func slots(of index: Int) -> UnsafeBufferPointer<CompiledLayout.Slot> {
        let start = starts[index]
        return UnsafeBufferPointer(rebasing: slotTable[start..<starts[index + 1]])
    }

    /// Whether layout `index` has more to read than its fixed slots.
    @inline(__always)
    func hasMore(_ index: Int) -> Bool { more[index] }
}
