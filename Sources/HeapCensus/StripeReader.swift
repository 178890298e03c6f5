import ObjectGraph
import RuntimeLayouts

/// Reads the objects of one stripe of the census while its lock is held: the scan's
/// per-object path (``HeapScan``).
///
/// A value of plain references made once per visit, whose methods take it by borrow: in a debug
/// build a non-mutating method called from a mutating one copies its whole `self` (a retain and
/// a release per reference it holds, per call), which cost a fifth of the scan. Every append goes
/// to room reserved first: nothing here allocates.
struct StripeReader {
    /// The scan's columns (kept alive by the scan for the visit).
    let columns: UnsafeMutablePointer<ScanColumns.Storage>
    /// The flat layouts' tables (kept alive by the scan for the visit).
    let layouts: UnsafeMutablePointer<FlatLayouts.Layout>
    let regions: UnsafeMutablePointer<FlatLayouts.Region>
    let slots: UnsafeMutablePointer<CompiledLayout.Slot>
    let dynamics: UnsafeMutablePointer<FlatLayouts.Dynamic>
    /// Metadata addresses to layout indices.
    let layoutByMetadata: AddressIndex
    let stripe: Int
    /// Whether this visit reads objects of types met for the first time (not set aside again).
    let isRetry: Bool
    let taskRole: UInt32
    let blockRole: UInt32

    /// Reads the stripe's entries (with `only`, just those addresses; skipping those in
    /// `skip`), in order, while the columns have room.
    ///
    /// - Returns: nil when every entry was read; otherwise what the columns lacked for the
    ///   first object not read.
    func read(_ entries: UnsafeBufferPointer<UInt>, only: Set<UInt>?, skip: Set<UInt>?)
        -> ScanColumns.Room?
    {
        guard let base = entries.baseAddress else { return nil }
        let count = entries.count
        let mask = ~CensusDoor.flagMask
        var position = 0
        while position < count {
            let entry = base[position]
            position += 1
            let address = entry & mask
            if let only, !only.contains(address) { continue }
            if let skip, skip.contains(address) { continue }
            if let shortfall = readObject(entry, address: address) { return shortfall }
        }
        return nil
    }

    /// Reads one object if the columns have room for all it may append; otherwise returns what
    /// they lack.
    private func readObject(_ entry: UInt, address: UInt) -> ScanColumns.Room? {
        let isa = CensusDoor.load(address)
        guard isa != 0 else { return nil }  // allocated, not yet initialised
        if entry & CensusDoor.blockFlag != 0 {
            let (references, captureEnd) = CensusDoor.blockInfo(address)
            let needed = ScanColumns.Room(
                objects: 1, references: Self.words(from: 32, to: captureEnd))
            guard columns.pointee.hasRoom(needed) else { return needed }
            let source = record(
                address, layout: -1, retainCount: references, kind: .block,
                size: CensusDoor.blockSize(address))
            readConservatively(address, from: 32, to: captureEnd, source: source, role: blockRole)
            return nil
        }
        if entry & CensusDoor.taskFlag != 0 {
            let size = CensusDoor.blockSize(address)
            let end = size < 8 * HeapScan.taskWords ? size : 8 * HeapScan.taskWords
            let needed = ScanColumns.Room(objects: 1, references: Self.words(from: 16, to: end))
            guard columns.pointee.hasRoom(needed) else { return needed }
            let source = record(
                address, layout: -1, retainCount: CensusDoor.retainCount(address), kind: .task,
                size: size)
            readConservatively(address, from: 16, to: end, source: source, role: taskRole)
            return nil
        }
        // Only a block whose first word is known metadata is read (its counts included):
        // anything else is of a type met for the first time (read once its layout is
        // compiled), was allocated during this scan, or is not an object any more.
        guard let layoutIndex = layoutByMetadata.index(of: isa) else {
            guard !isRetry else { return nil }
            let needed = ScanColumns.Room(unknown: 1)
            guard columns.pointee.hasRoom(needed) else { return needed }
            columns.pointee.appendUnknown(address: address, type: isa, stripe: stripe)
            return nil
        }
        // A deinitialising object is dead: its stored references may already be released.
        let retainCount = CensusDoor.retainCount(address)
        guard retainCount > 0 else { return nil }
        let layout = layouts[Int(layoutIndex)]
        let size = CensusDoor.blockSize(address)
        var needed = ScanColumns.Room(
            objects: 1, references: Int(layout.slotEnd - layout.slotStart),
            bytes: Int(layout.dynamicBytes), dynamics: Int(layout.dynamicEnd - layout.dynamicStart))
        if layout.hasMore {
            addElements(of: layout, object: address, size: size, to: &needed)
            if layout.conservativeFrom >= 0 {
                needed.references += Self.words(from: Int(layout.conservativeFrom), to: size)
            }
        }
        guard columns.pointee.hasRoom(needed) else { return needed }
        let source = record(
            address, layout: layoutIndex, retainCount: retainCount, kind: .object, size: size)
        readSlots(from: layout.slotStart, to: layout.slotEnd, base: address, source: source)
        guard layout.hasMore else { return nil }
        readDynamics(
            from: layout.dynamicStart, to: layout.dynamicEnd, base: address, source: source)
        var region = layout.regionStart
        while region < layout.regionEnd {
            readRegion(regions[Int(region)], object: address, size: size, source: source)
            region += 1
        }
        if layout.conservativeFrom >= 0 {
            readConservatively(
                address, from: Int(layout.conservativeFrom), to: size, source: source,
                role: layout.conservativeRole)
        }
        return nil
    }

    /// The 8-byte words in `[start, end)` after rounding `start` up to a word.
    static func words(from start: Int, to end: Int) -> Int {
        let first = (start + 7) & ~7
        return end > first ? (end - first) / 8 : 0
    }

    /// Adds what the element regions of an object of `layout` may append at most.
    private func addElements(
        of layout: FlatLayouts.Layout, object: UInt, size: Int,
        to needed: inout ScanColumns.Room
    ) {
        var index = layout.regionStart
        while index < layout.regionEnd {
            let region = regions[Int(index)]
            let count = Self.extent(of: region, object: object, size: size).count
            needed.references += count * Int(region.slotEnd - region.slotStart)
            needed.dynamics += count * Int(region.dynamicEnd - region.dynamicStart)
            needed.bytes += count * Int(region.dynamicBytes)
            index += 1
        }
    }

    /// Reads the fixed slots `slots[start..<end]` of the value at `base`.
    func readSlots(from start: Int32, to end: Int32, base: UInt, source: UInt32) {
        var index = Int(start)
        let last = Int(end)
        while index < last {
            let slot = slots[index]
            index += 1
            var word = CensusDoor.load(base &+ UInt(bitPattern: slot.offset))
            guard word != 0 else { continue }
            if slot.ownership == .weak {
                // A side table's first word is its object (null once the object died).
                guard word & 7 == 0, word >= 4096 else { continue }
                word = CensusDoor.load(word)
                guard word != 0 else { continue }
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
            columns.pointee.appendDynamic(
                from: source, slot: UInt32(truncatingIfNeeded: index),
                address: base &+ UInt(bitPattern: Int(dynamic.offset)), size: Int(dynamic.size))
            index += 1
        }
    }
}
