// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit) for reading heap objects with compiled
// layouts: a weak reference's word is its side table's address, whose first word is the object
// (null once it died). A C block (the Blocks ABI): flags i32 @8 (BLOCK_HAS_COPY_DISPOSE bit 25;
// on a heap block the reference count in bits 1–15), descriptor @24 whose size (@8) covers the
// 32-byte header and the captured variables. A Swift closure made into a block
// (`@convention(block)`, as libdispatch receives one) captures the closure itself: a 48-byte
// block with copy and dispose helpers, the function @32 and its context @40.

import ObjectGraph

/// Reads heap objects with their compiled layouts into ``ScanColumns``: the one executor of
/// layouts over a heap, whoever found the objects (the census's table in this process, a walk of
/// glibc's heap in a stopped process's copy or a core file).
///
/// A value of plain pointers made once per visit, whose methods take it by borrow: in a debug
/// build a non-mutating method called from a mutating one copies its whole `self` (a retain and
/// a release per reference it holds, per call), which cost a fifth of the census's scan. Nothing
/// here is generic or allocates: the census reads under its stripe locks, and a debug build runs
/// generic code unspecialised. Callers reserve room first (``needed(layout:object:size:)``).
///
/// Words inside the object being read are loaded at their address plus ``delta`` (0 for this
/// process's live objects; a copy's local base minus the target's address otherwise); the few
/// words outside it (a weak reference's side table, a block's descriptor) go through
/// ``outside``, which bounds-checks them, or, for this process, are loaded after a plausibility
/// check. A word is never followed into this process's memory on a target's say-so.
package struct ObjectReader {
    /// The scan's columns (kept alive by the caller for the visit).
    let columns: UnsafeMutablePointer<ScanColumns.Storage>
    /// The flat layouts' tables (kept alive by the caller for the visit).
    let layouts: UnsafeMutablePointer<FlatLayouts.Layout>
    let regions: UnsafeMutablePointer<FlatLayouts.Region>
    let slots: UnsafeMutablePointer<CompiledLayout.Slot>
    let dynamics: UnsafeMutablePointer<FlatLayouts.Dynamic>
    /// The role of a block's captures read conservatively, and of a Swift closure's context in
    /// a block.
    let blockRole: UInt32
    let closureRole: UInt32
    /// Where the object's bytes are here: its address plus `delta`.
    package var delta: UInt = 0
    /// Reads outside the object being read, for a copy; nil for this process's own memory.
    let outside: (any MemoryReader)?

    /// A reader appending to `columns` with the layouts of `flat`.
    package init(
        columns: ScanColumns, flat: FlatLayouts, blockRole: UInt32, closureRole: UInt32,
        outside: (any MemoryReader)?
    ) {
        self.columns = columns.storage
        layouts = flat.layouts
        regions = flat.regions
        slots = flat.slots
        dynamics = flat.dynamics
        self.blockRole = blockRole
        self.closureRole = closureRole
        self.outside = outside
    }

    /// The word at `address`, inside the object being read.
    @inline(__always)
    func load(_ address: UInt) -> UInt { RacyMemory.load(address &+ delta) }

    /// The word at `address`, outside the object being read; nil when it cannot be read.
    func loadOutside(_ address: UInt) -> UInt? {
        if let outside { return outside.word(at: address) }
        guard address & 7 == 0, address >= 4096, address < 1 << 56 else { return nil }
        return RacyMemory.load(address)
    }

    /// What reading an object of layout `index` at `object`, of `size` bytes, may append at
    /// most.
    package func needed(layout index: Int32, object: UInt, size: Int) -> ScanColumns.Room {
        let layout = layouts[Int(index)]
        var needed = ScanColumns.Room(
            objects: 1, references: Int(layout.slotEnd - layout.slotStart),
            bytes: Int(layout.dynamicBytes), dynamics: Int(layout.dynamicEnd - layout.dynamicStart))
        guard layout.hasMore else { return needed }
        var region = layout.regionStart
        while region < layout.regionEnd {
            let flat = regions[Int(region)]
            let count = extent(of: flat, object: object, size: size).count
            needed.references += count * Int(flat.slotEnd - flat.slotStart)
            needed.dynamics += count * Int(flat.dynamicEnd - flat.dynamicStart)
            needed.bytes += count * Int(flat.dynamicBytes)
            region += 1
        }
        if layout.conservativeFrom >= 0 {
            needed.references += Self.words(
                from: Int(layout.conservativeFrom), to: min(size, Int(layout.conservativeLimit)))
        }
        return needed
    }

    /// Reads the references of the object at `object`, of `size` bytes, with layout `index`,
    /// recorded as object `source` (its room was reserved).
    package func read(layout index: Int32, object: UInt, size: Int, source: UInt32) {
        let layout = layouts[Int(index)]
        readSlots(from: layout.slotStart, to: layout.slotEnd, base: object, source: source)
        guard layout.hasMore else { return }
        readDynamics(from: layout.dynamicStart, to: layout.dynamicEnd, base: object, source: source)
        var region = layout.regionStart
        while region < layout.regionEnd {
            readRegion(regions[Int(region)], object: object, size: size, source: source)
            region += 1
        }
        if layout.conservativeFrom >= 0 {
            readConservatively(
                object, from: Int(layout.conservativeFrom),
                to: min(size, Int(layout.conservativeLimit)), source: source,
                role: layout.conservativeRole)
        }
    }

    /// What kind of heap object layout `index` is for.
    package func kind(ofLayout index: Int32) -> HeapObjectKind { layouts[Int(index)].kind }

    /// The 8-byte words in `[start, end)` after rounding `start` up to a word.
    package static func words(from start: Int, to end: Int) -> Int {
        let first = (start + 7) & ~7
        return end > first ? (end - first) / 8 : 0
    }

    /// Reads the fixed slots `slots[start..<end]` of the value at `base`.
    func readSlots(from start: Int32, to end: Int32, base: UInt, source: UInt32) {
        var index = Int(start)
        let last = Int(end)
        while index < last {
            let slot = slots[index]
            index += 1
            var word = load(base &+ UInt(bitPattern: slot.offset))
            if slot.isStringObject { word = StringObject.storage(word) }
            guard word != 0 else { continue }
            if slot.ownership == .weak {
                // A side table's first word is its object (null once the object died).
                guard word & 7 == 0, word >= 4096, let object = loadOutside(word), object != 0
                else { continue }
                word = object
            }
            columns.pointee.appendReference(
                from: source, word: word,
                kind: slot.isFunctionContext
                    ? slot.ownership.byte | ScanColumns.functionContextBit : slot.ownership.byte,
                role: slot.role)
        }
    }

    /// Copies the dynamic values `dynamics[start..<end]` of the value at `base`.
    func readDynamics(from start: Int32, to end: Int32, base: UInt, source: UInt32) {
        var index = Int(start)
        let last = Int(end)
        while index < last {
            let dynamic = dynamics[index]
            let address = base &+ UInt(bitPattern: Int(dynamic.offset))
            columns.pointee.appendDynamic(
                from: source, slot: UInt32(truncatingIfNeeded: index), address: address,
                local: address &+ delta, size: Int(dynamic.size))
            index += 1
        }
    }
}
