import HeapGraph
import ObjectGraph
import RuntimeLayouts

/// Reads every live census object, stripe by stripe, with the one layout executor
/// (`ObjectReader`): the census as a heap source of the one graph builder.
///
/// One pass reads every object whose type's layout is compiled; objects of types met for the
/// first time are set aside, their layouts compiled once every lock is released (compiling
/// calls the runtime, which must not happen under a census lock), and the stripes that hold
/// them visited again for them alone. In a process whose types the census has seen (every
/// snapshot after the first), that is one pass.
///
/// Nothing allocates while a stripe's lock is held: before reading an object the visit checks
/// that the columns have room for its worst case (``ScanColumns/Storage/hasRoom(_:)``); when they
/// do not, it leaves the stripe, the scan grows them, and visits the stripe again, skipping what
/// was read. The per-object path calls nothing generic and copies nothing that holds a
/// reference: this is written for a debug build too.
///
/// Safety: an object is read only while its stripe's lock is held, so its block cannot be freed
/// meanwhile (its `free` waits for the lock); its metadata word is 0 until the runtime writes
/// it (the census zeroes it at allocation), and such objects are skipped. References are read
/// as words and never followed; a weak reference's side table is read only if its address is
/// plausible. Other threads may write the words being read (their program's own race with
/// nobody): the loads are uninstrumented and a torn or stale word at worst yields a reference
/// that is not checked against the census or is dropped.
struct CensusScan {
    let columns: ScanColumns
    private(set) var flat = FlatLayouts(layouts: [])
    /// Metadata addresses to layout indices (``/RuntimeLayouts/LayoutTable/snapshot()``).
    private(set) var layoutByMetadata = AddressIndex([])
    private(set) var layouts: [CompiledLayout] = []
    /// The role numbers of a block's captures read conservatively (named after their targets
    /// when the graph is built) and of a Swift closure's context in a block.
    let blockRole: UInt32
    let closureRole: UInt32

    private init(expectedObjects: Int) {
        blockRole = LayoutRegistry.shared.roleNumber(ObjectLayout.targetNamedCapture)
        closureRole = LayoutRegistry.shared.roleNumber(.capture(name: "closure"))
        // About three references per object in practice; capacity never written is free.
        columns = ScanColumns(
            objects: expectedObjects + expectedObjects / 8 + 1_024,
            references: 3 * expectedObjects + 4_096, bytes: 64 * 1_024)
    }

    /// Reads the census's live objects.
    ///
    /// The whole scan runs with the calling thread's allocations unrecorded: the census's own
    /// tables and layouts are not part of the heap it reports.
    static func run() -> HeapScan {
        CensusDoor.internally {
            var scan = CensusScan(expectedObjects: CensusDoor.count)
            scan.loadLayouts()
            for stripe in 0..<CensusDoor.stripeCount { scan.visit(stripe, newLayoutsFrom: nil) }
            scan.readObjectsOfNewTypes()
            let table = LayoutRegistry.shared
            return HeapScan(
                columns: scan.columns, flat: scan.flat, layouts: scan.layouts,
                roles: table.snapshot().roles, decoder: table.compiler)
        }
    }

    private mutating func loadLayouts() {
        let registry = LayoutRegistry.shared.snapshot()
        layouts = registry.layouts
        flat = FlatLayouts(layouts: layouts)
        layoutByMetadata = registry.metadataIndex
    }

    /// Reads one stripe (with `newLayoutsFrom`, only the objects whose layout's index is at
    /// least that: the types compiled since the first pass), growing the columns and visiting
    /// it again, skipping what it read, as often as they run out of room.
    private func visit(_ stripe: Int, newLayoutsFrom: Int32?) {
        let visit = StripeVisit(
            reader: ObjectReader(
                columns: columns, flat: flat, blockRole: blockRole, closureRole: closureRole,
                outside: nil),
            columns: columns.storage, layoutByMetadata: layoutByMetadata, stripe: stripe,
            newLayoutsFrom: newLayoutsFrom)
        var skip: Set<UInt>?
        while true {
            let firstObject = columns.objectCount
            let firstUnknown = columns.unknownCount
            var shortfall: ScanColumns.Room?
            CensusDoor.visitStripe(stripe) { entries in
                shortfall = visit.read(entries, skip: skip)
            }
            guard let needed = shortfall else { return }
            // No lock held: remember what this visit read, and make room.
            var done = skip ?? []
            for object in firstObject..<columns.objectCount { done.insert(columns.address(object)) }
            let unknown = columns.storage.pointee.unknownAddresses.base
            for entry in firstUnknown..<columns.unknownCount { done.insert(unknown[entry]) }
            skip = done
            columns.makeRoom(needed)
        }
    }

    /// Compiles the layouts of the types the pass met for the first time (no lock held), then
    /// reads the objects of those types, visiting only the stripes that hold them.
    ///
    /// The layout table only grows, so the new types are those whose layout index is at least
    /// the table's size before compiling: the second visit selects objects by their metadata,
    /// one lookup each, as the first pass did. (Selecting by address, with a set of the set-aside
    /// addresses per stripe, cost a quarter of a first snapshot at a million objects.)
    private mutating func readObjectsOfNewTypes() {
        let count = columns.unknownCount
        guard count > 0 else { return }
        let storage = columns.storage.pointee
        var types = Set<UInt>()
        var stripes = Set<Int>()
        var lastType: UInt = 0
        for entry in 0..<count {
            let type = storage.unknownTypes.base[entry]
            if type != lastType {
                types.insert(type)
                lastType = type
            }
            stripes.insert(Int(storage.unknownStripes.base[entry]))
        }
        let firstNew = Int32(layouts.count)
        for type in types { _ = MetadataCheck.layoutIndex(ofMetadata: type) }
        loadLayouts()
        guard layouts.count > firstNew else { return }
        for stripe in stripes.sorted() { visit(stripe, newLayoutsFrom: firstNew) }
        // Objects of types whose layout could not be compiled stay unread.
    }
}

/// One visit of one stripe of the census's table, under its lock: the census's part of the
/// per-object path (which entries are objects, tasks or blocks, their counts and sizes); the
/// layouts are executed by the `ObjectReader`.
struct StripeVisit {
    let reader: ObjectReader
    let columns: UnsafeMutablePointer<ScanColumns.Storage>
    let layoutByMetadata: AddressIndex
    let stripe: Int
    /// Set on the visit that reads objects of types met for the first time: it reads only
    /// objects whose layout index is at least this (the first pass read the others), and sets
    /// nothing aside again.
    let newLayoutsFrom: Int32?

    /// Reads the stripe's entries (skipping those in `skip`), in order, while the columns have
    /// room.
    ///
    /// - Returns: nil when every entry was read; otherwise what the columns lacked for the
    ///   first object not read.
    func read(_ entries: UnsafeBufferPointer<UInt>, skip: Set<UInt>?) -> ScanColumns.Room? {
        guard let base = entries.baseAddress else { return nil }
        let count = entries.count
        let mask = ~CensusDoor.flagMask
        // The first load of each object is a cache miss (the scan's largest cost at a million
        // objects): asking for the object some entries ahead overlaps the misses.
        let ahead = Self.prefetchDistance
        var position = 0
        while position < count {
            if position &+ ahead < count { RacyMemory.prefetch(base[position &+ ahead] & mask) }
            let entry = base[position]
            position += 1
            let address = entry & mask
            if let skip, skip.contains(address) { continue }
            if let shortfall = readObject(entry, address: address) { return shortfall }
        }
        return nil
    }

    /// How many entries ahead of the one it reads ``read(_:skip:)`` asks the processor for an
    /// object's first line (census-scale.sh measured it).
    static let prefetchDistance = 8

    /// Reads one object if the columns have room for all it may append; otherwise returns what
    /// they lack.
    private func readObject(_ entry: UInt, address: UInt) -> ScanColumns.Room? {
        // The second visit reads only objects of new types: no block.
        if newLayoutsFrom != nil, entry & CensusDoor.blockFlag != 0 { return nil }
        let isa = RacyMemory.load(address)
        guard isa != 0 else { return nil }  // allocated, not yet initialised
        if entry & CensusDoor.blockFlag != 0 {
            let size = CensusDoor.blockSize(address)
            let needed = reader.neededForBlock(address, size: size)
            guard columns.pointee.hasRoom(needed) else { return needed }
            let source = columns.pointee.appendObject(
                address: address, layout: -1, retainCount: reader.blockReferenceCount(address),
                size: UInt32(clamping: size), kind: .block)
            reader.readBlock(address, size: size, source: source)
            return nil
        }
        // Only a block whose first word is known metadata is read (its counts included):
        // anything else is of a type met for the first time (read once its layout is
        // compiled), was allocated during this scan, or is not an object any more.
        guard let layoutIndex = layoutByMetadata.index(of: isa) else {
            guard newLayoutsFrom == nil else { return nil }
            let needed = ScanColumns.Room(unknown: 1)
            guard columns.pointee.hasRoom(needed) else { return needed }
            columns.pointee.appendUnknown(address: address, type: isa, stripe: stripe)
            return nil
        }
        if let newLayoutsFrom, layoutIndex < newLayoutsFrom { return nil }  // read already
        // A deinitialising object is dead: its stored references may already be released. (A
        // task's count is not its life: the concurrency runtime keeps it while it runs.)
        let isTask = entry & CensusDoor.taskFlag != 0
        let retainCount = CensusDoor.retainCount(address)
        guard retainCount > 0 || isTask else { return nil }
        let size = CensusDoor.blockSize(address)
        let needed = reader.needed(layout: layoutIndex, object: address, size: size)
        guard columns.pointee.hasRoom(needed) else { return needed }
        let source = columns.pointee.appendObject(
            address: address, layout: layoutIndex, retainCount: UInt32(clamping: retainCount),
            size: UInt32(clamping: size),
            kind: isTask ? .task : reader.kind(ofLayout: layoutIndex))
        reader.read(layout: layoutIndex, object: address, size: size, source: source)
        return nil
    }
}
