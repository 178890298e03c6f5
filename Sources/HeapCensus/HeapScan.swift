import ObjectGraph
import RuntimeLayouts

/// What one scan read from the live census objects, before references are resolved.
///
/// Objects are numbered in the order the scan read them; references still name their targets
/// by the word read (a target may be any word a slot held, so it is checked against the
/// census's addresses once they are all known, in one tight loop whose lookups the processor
/// overlaps).
struct RawHeap {
    /// The objects and the references, in the order the scan read them.
    var columns: ScanColumns
    /// Copies of dynamic values, decoded once every lock is released.
    var dynamicBytes: [UInt8] = []
    var dynamicValues: [(source: UInt32, offset: Int, slot: DynamicSlot)] = []
}

/// What a census entry is.
enum HeapEntryKind: UInt8, Sendable {
    /// A Swift heap object with metadata: its layout says where its references are.
    case object
    /// An async task: read conservatively.
    case task
    /// A C block on the heap: its captured variables are read conservatively.
    case block
}

/// Reads every live census object, stripe by stripe, with plain loads.
///
/// One pass reads every object whose type's layout is compiled; objects of types met for the
/// first time are set aside with their stripe, their layouts compiled once every lock is
/// released (compiling calls the runtime, which must not happen under a census lock), and
/// those stripes visited again for them alone. In a process whose types the census has seen
/// (every snapshot after the first), that is one pass.
///
/// Safety: an object is read only while its stripe's lock is held, so its block cannot be
/// freed meanwhile (its `free` waits for the lock); its metadata word is 0 until the runtime
/// writes it (the census zeroes it at allocation), and such objects are skipped. References
/// are read as words and never followed; a weak reference's side table is read only if its
/// address is plausible. Other threads may write the words being read (their program's own
/// race with nobody): the loads are uninstrumented and a torn or stale word at worst yields a
/// reference that is not checked against the census or is dropped.
struct HeapScan {
    /// Words a task's conservative scan reads at most (its header and first async frame).
    static let taskWords = 1024
    /// The most elements read from one collection storage.
    static let maximumElements = 1 << 24

    private let columns: ScanColumns
    private var dynamicBytes: [UInt8] = []
    private var dynamicValues: [(source: UInt32, offset: Int, slot: DynamicSlot)] = []
    private var layouts: [CompiledLayout] = []
    /// Every layout's fixed slots in one table, for objects with nothing else to read.
    private var flat = FlatSlots(layouts: [])
    /// Metadata addresses to layout indices (``LayoutRegistry/snapshot()``).
    private var layoutByMetadata = AddressIndex([])
    /// Objects of types with no compiled layout yet, by stripe, in the stripe's order.
    private var unknown: [[UInt]] = []
    private var unknownTypes = Set<UInt>()
    private var lastUnknownType: UInt = 0
    /// The role numbers of what a task's and a block's memory hold (read conservatively): a
    /// task runs its closure; a block's captures are named after what they hold once it is
    /// known (``capturedRole``).
    private let taskRole: UInt32
    private let blockRole: UInt32

    /// The role of a block's captures in the registry: a capture named after its target's type
    /// when the snapshot is built.
    static let capturedRole = ObjectLayout.targetNamedCapture

    private init(expectedObjects: Int) {
        taskRole = LayoutRegistry.shared.roleNumber(.runs)
        blockRole = LayoutRegistry.shared.roleNumber(Self.capturedRole)
        // About three references per object in practice; capacity never written is free.
        columns = ScanColumns(
            objects: expectedObjects + expectedObjects / 8 + 1_024,
            references: 4 * expectedObjects + 1_024)
    }

    /// Reads every live object and returns what it read.
    ///
    /// The whole scan runs with the calling thread's allocations unrecorded: the census's own
    /// tables and layouts are not part of the heap it reports.
    static func run() -> (heap: RawHeap, layouts: [CompiledLayout], roles: InternedRoles) {
        CensusDoor.internally {
            var scan = HeapScan(expectedObjects: CensusDoor.count)
            scan.loadLayouts()
            for stripe in 0..<CensusDoor.stripeCount {
                CensusDoor.visitStripe(stripe) { entries in
                    scan.read(entries, stripe: stripe, only: nil)
                }
            }
            scan.readObjectsOfNewTypes()
            let roles = LayoutRegistry.shared.snapshot().roles
            let heap = RawHeap(
                columns: scan.columns, dynamicBytes: scan.dynamicBytes,
                dynamicValues: scan.dynamicValues)
            return (heap, scan.layouts, roles)
        }
    }

    private mutating func loadLayouts() {
        let registry = LayoutRegistry.shared.snapshot()
        layouts = registry.layouts
        flat = FlatSlots(layouts: layouts)
        layoutByMetadata = registry.metadataIndex
    }

    /// Compiles the layouts of the types the pass met for the first time (no lock held), then
    /// reads their objects, visiting only the stripes that hold them.
    private mutating func readObjectsOfNewTypes() {
        guard !unknownTypes.isEmpty else { return }
        for isa in unknownTypes { _ = MetadataCheck.layoutIndex(ofMetadata: isa) }
        loadLayouts()
        let pending = unknown
        unknown = []
        for (stripe, addresses) in pending.enumerated() where !addresses.isEmpty {
            CensusDoor.visitStripe(stripe) { entries in
                read(entries, stripe: stripe, only: addresses)
            }
        }
        // Objects of types whose layout could not be compiled stay unread.
    }

    /// Reads one stripe's objects (its lock held): records each and its references. With
    /// `only` (addresses in the order the stripe held them before), reads just those.
    private mutating func read(_ entries: UnsafeBufferPointer<UInt>, stripe: Int, only: [UInt]?) {
        var wanted = 0
        var leftOver: Set<UInt>?
        for entry in entries {
            let address = entry & ~CensusDoor.flagMask
            if let only {
                // The stripe usually still holds them in the same order: walk both together;
                // if it changed meanwhile (it grew, or entries moved), look the rest up.
                if wanted < only.count, only[wanted] == address {
                    wanted += 1
                } else {
                    if leftOver == nil { leftOver = Set(only[wanted...]) }
                    guard leftOver?.remove(address) != nil else { continue }
                }
            }
            readObject(entry, address: address, stripe: stripe, isRetry: only != nil)
        }
    }

    @inline(__always)
    private mutating func readObject(_ entry: UInt, address: UInt, stripe: Int, isRetry: Bool) {
        let isa = CensusDoor.load(address)
        guard isa != 0 else { return }  // allocated, not yet initialised
        if entry & CensusDoor.blockFlag != 0 {
            let (references, captureEnd) = CensusDoor.blockInfo(address)
            let source = record(address, layout: -1, retainCount: references, kind: .block)
            readConservatively(address, from: 32, to: captureEnd, source: source, role: blockRole)
            return
        }
        if entry & CensusDoor.taskFlag != 0 {
            let source = record(
                address, layout: -1, retainCount: CensusDoor.retainCount(address), kind: .task)
            let end = min(CensusDoor.blockSize(address), 8 * Self.taskWords)
            readConservatively(address, from: 16, to: end, source: source, role: taskRole)
            return
        }
        // Only a block whose first word is known metadata is read (its counts included):
        // anything else is of a type met for the first time (read once its layout is
        // compiled), was allocated during this scan, or is not an object any more.
        guard let layoutIndex = layoutByMetadata.index(of: isa) else {
            if !isRetry {
                if unknown.isEmpty { unknown = Array(repeating: [], count: CensusDoor.stripeCount) }
                unknown[stripe].append(address)
                if isa != lastUnknownType {
                    unknownTypes.insert(isa)
                    lastUnknownType = isa
                }
            }
            return
        }
        // A deinitialising object is dead: its stored references may already be released.
        let retainCount = CensusDoor.retainCount(address)
        guard retainCount > 0 else { return }
        let source = record(address, layout: layoutIndex, retainCount: retainCount, kind: .object)
        readSlots(flat.slots(of: Int(layoutIndex)), dynamics: [], base: address, source: source)
        guard flat.hasMore(Int(layoutIndex)) else { return }
        let layout = layouts[Int(layoutIndex)]
        if !layout.dynamics.isEmpty {
            readSlots(
                .init(start: nil, count: 0), dynamics: layout.dynamics, base: address,
                source: source)
        }
        for region in layout.regions { readRegion(region, object: address, source: source) }
        if let start = layout.conservativeFrom {
            readConservatively(
                address, from: start, to: CensusDoor.blockSize(address), source: source,
                role: layout.conservativeRole)
        }
    }

    @inline(__always)
    private mutating func readSlots(
        _ slots: UnsafeBufferPointer<CompiledLayout.Slot>, dynamics: [DynamicSlot], base: UInt,
        source: UInt32
    ) {
        for slot in slots {
            var word = CensusDoor.load(base &+ UInt(slot.offset))
            guard word != 0 else { continue }
            if slot.ownership == .weak {
                // A side table's first word is its object (null once the object died).
                guard word & 7 == 0, word >= 4096 else { continue }
                word = CensusDoor.load(word)
                guard word != 0 else { continue }
            }
            columns.appendReference(
                from: source, word: word,
                kind: slot.ownership.byte
                    | (slot.isFunctionContext ? ScanColumns.functionContextBit : 0),
                role: slot.role)
        }
        for dynamic in dynamics {
            let offset = dynamicBytes.count
            dynamicBytes.append(contentsOf: repeatElement(0, count: dynamic.size))
            dynamicBytes.withUnsafeMutableBytes { bytes in
                guard let start = bytes.baseAddress else { return }
                CensusDoor.copy(
                    from: base &+ UInt(dynamic.offset), into: start + offset, count: dynamic.size)
            }
            dynamicValues.append((source, offset, dynamic))
        }
    }

    private mutating func readRegion(
        _ region: CompiledLayout.Region, object: UInt, source: UInt32
    ) {
        let blockEnd = object &+ UInt(CensusDoor.blockSize(object))
        switch region.counting {
        case .prefix(let countOffset, let start):
            let count = Int(bitPattern: CensusDoor.load(object &+ UInt(countOffset)))
            let first = object &+ UInt(start)
            guard count > 0, first < blockEnd else { return }
            let fitting = Int(blockEnd - first) / region.stride
            region.slots.withUnsafeBufferPointer { slots in
                for index in 0..<min(count, fitting, Self.maximumElements) {
                    readSlots(
                        slots, dynamics: region.dynamics,
                        base: first &+ UInt(index * region.stride), source: source)
                }
            }
        case .hashed(let scaleOffset, let bitmapOffset, let baseOffset):
            let scale = Int(Int8(truncatingIfNeeded: CensusDoor.load(object &+ UInt(scaleOffset))))
            guard scale >= 0, scale < 40 else { return }
            let buckets = 1 << scale
            let bitmap = object &+ UInt(bitmapOffset)
            let words = (buckets + 63) / 64
            let base = CensusDoor.load(object &+ UInt(baseOffset))
            guard bitmap &+ UInt(8 * words) <= blockEnd, base >= object,
                base &+ UInt(buckets * region.stride) <= blockEnd
            else { return }
            region.slots.withUnsafeBufferPointer { slots in
                for wordIndex in 0..<words {
                    var bits = CensusDoor.load(bitmap &+ UInt(8 * wordIndex))
                    while bits != 0 {
                        let bucket = wordIndex * 64 + bits.trailingZeroBitCount
                        bits &= bits - 1
                        guard bucket < buckets else { break }
                        readSlots(
                            slots, dynamics: region.dynamics,
                            base: base &+ UInt(bucket * region.stride), source: source)
                    }
                }
            }
        }
    }

    private mutating func record(
        _ address: UInt, layout: Int32, retainCount: Int, kind: HeapEntryKind
    ) -> UInt32 {
        columns.appendObject(
            address: address, layout: layout, retainCount: UInt32(clamping: retainCount),
            size: UInt32(clamping: CensusDoor.blockSize(address)), kind: kind)
    }

    /// Memory without a metadata layout (a task, a C block, the undecodable captures of a
    /// closure context): its words that are the addresses of census objects count as strong
    /// references. Only words that are exactly an object's address are kept, later.
    private mutating func readConservatively(
        _ address: UInt, from start: Int, to end: Int, source: UInt32, role: UInt32
    ) {
        var offset = (start + 7) & ~7
        let kind = Ownership.conservative.byte
        while offset + 8 <= end {
            let word = CensusDoor.load(address &+ UInt(offset))
            if word & 15 == 0, word >= 4096, word != address {
                columns.appendReference(from: source, word: word, kind: kind, role: role)
            }
            offset += 8
        }
    }
}
