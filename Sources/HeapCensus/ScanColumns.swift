import RuntimeLayouts

/// Growable columns the heap scan appends to: one per field of an object and of a reference.
///
/// The one place in this module that manages memory by hand and skips exclusivity checks, for
/// what it buys: a scan of a million objects appends about five million values. Appended to
/// `Array`s held in the scan, every append paid a uniqueness check, and each object's layout
/// copy a retain and a release; held in a class's stored `var`s, every access paid a dynamic
/// exclusivity check (`swift_beginAccess`): 39 % of `HeapCensus.snapshot()`'s instructions
/// (callgrind, `CensusScale`, 1M objects). Here the columns and counts live in one struct
/// behind a pointer this object allocates, and an append is a capacity check and a store. The
/// scan is single-threaded and no column escapes: arrays are copied out at the end.
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

        /// The first `count` values, as an array.
        func array(_ count: Int) -> [Value] {
            Array(UnsafeBufferPointer(start: base, count: count))
        }
    }

    /// Every column, with the numbers of objects and references appended.
    struct Storage {
        // Objects.
        var objectCount = 0
        var addresses: Column<UInt>
        var layoutIndex: Column<Int32>
        var retainCounts: Column<UInt32>
        var sizes: Column<UInt32>
        var entryKinds: Column<UInt8>
        // References: holder, word read, ownership (bits 0–2, its byte) and whether the word is
        // a function's context (bit 3), role (its number in the layout registry).
        var referenceCount = 0
        var sources: Column<UInt32>
        var words: Column<UInt>
        var kinds: Column<UInt8>
        var roles: Column<UInt32>
    }

    /// The columns; read them only while this object is alive.
    let storage: UnsafeMutablePointer<Storage>

    /// Columns with room for `objects` objects and `references` references. Capacity that is
    /// never written costs no memory: its pages are never touched.
    init(objects: Int, references: Int) {
        storage = .allocate(capacity: 1)
        storage.initialize(
            to: Storage(
                addresses: Column(capacity: objects), layoutIndex: Column(capacity: objects),
                retainCounts: Column(capacity: objects), sizes: Column(capacity: objects),
                entryKinds: Column(capacity: objects), sources: Column(capacity: references),
                words: Column(capacity: references), kinds: Column(capacity: references),
                roles: Column(capacity: references)))
    }

    deinit {
        let columns = storage.pointee
        columns.addresses.free()
        columns.layoutIndex.free()
        columns.retainCounts.free()
        columns.sizes.free()
        columns.entryKinds.free()
        columns.sources.free()
        columns.words.free()
        columns.kinds.free()
        columns.roles.free()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The bit of a reference's kind that marks a function's context word.
    static let functionContextBit: UInt8 = 8

    var objectCount: Int { storage.pointee.objectCount }
    var referenceCount: Int { storage.pointee.referenceCount }

    /// Appends an object; returns its number.
    @inline(__always)
    func appendObject(
        address: UInt, layout: Int32, retainCount: UInt32, size: UInt32, kind: HeapEntryKind
    ) -> UInt32 {
        let index = storage.pointee.objectCount
        if index == storage.pointee.addresses.capacity {
            storage.pointee.addresses.grow(to: index + 1, keeping: index)
            storage.pointee.layoutIndex.grow(to: index + 1, keeping: index)
            storage.pointee.retainCounts.grow(to: index + 1, keeping: index)
            storage.pointee.sizes.grow(to: index + 1, keeping: index)
            storage.pointee.entryKinds.grow(to: index + 1, keeping: index)
        }
        storage.pointee.addresses.base[index] = address
        storage.pointee.layoutIndex.base[index] = layout
        storage.pointee.retainCounts.base[index] = retainCount
        storage.pointee.sizes.base[index] = size
        storage.pointee.entryKinds.base[index] = kind.rawValue
        storage.pointee.objectCount = index + 1
        return UInt32(index)
    }

    /// Appends a reference from object `source` to whatever `word` is (`kind`: the ownership's
    /// byte, with ``functionContextBit`` set for a function's context word).
    @inline(__always)
    func appendReference(from source: UInt32, word: UInt, kind: UInt8, role: UInt32) {
        let index = storage.pointee.referenceCount
        if index == storage.pointee.sources.capacity {
            storage.pointee.sources.grow(to: index + 1, keeping: index)
            storage.pointee.words.grow(to: index + 1, keeping: index)
            storage.pointee.kinds.grow(to: index + 1, keeping: index)
            storage.pointee.roles.grow(to: index + 1, keeping: index)
        }
        storage.pointee.sources.base[index] = source
        storage.pointee.words.base[index] = word
        storage.pointee.kinds.base[index] = kind
        storage.pointee.roles.base[index] = role
        storage.pointee.referenceCount = index + 1
    }

    /// The objects' columns, as arrays.
    func addressArray() -> [UInt] { storage.pointee.addresses.array(objectCount) }
    func layoutIndexArray() -> [Int32] { storage.pointee.layoutIndex.array(objectCount) }
    func retainCountArray() -> [UInt32] { storage.pointee.retainCounts.array(objectCount) }
    func sizeArray() -> [UInt32] { storage.pointee.sizes.array(objectCount) }
    func entryKindArray() -> [HeapEntryKind] {
        storage.pointee.entryKinds.array(objectCount).map { HeapEntryKind(rawValue: $0) ?? .object }
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
