import ReferenceReflection

/// What one scan read from the live census objects, before identities are resolved.
///
/// Objects are recorded in the order the scan met them; references still name their targets
/// by address (a target may be any word a slot held, so it is checked against the census
/// before it becomes an edge).
struct RawHeap {
    var addresses: [UInt] = []
    var layoutIndex: [Int32] = []
    var retainCounts: [UInt32] = []
    var sizes: [UInt32] = []
    var entryKinds: [HeapEntryKind] = []

    var edgeSource: [Int32] = []
    var edgeTarget: [UInt] = []
    var edgeKind: [HeapSlotKind] = []
    var edgeLabel: [Int32] = []

    /// Copies of dynamic values, decoded once every lock is released.
    var dynamicBytes: [UInt8] = []
    var dynamicValues: [(source: Int32, offset: Int, slot: DynamicSlot)] = []

    mutating func addEdge(_ source: Int32, _ target: UInt, _ kind: HeapSlotKind, _ label: Int32) {
        edgeSource.append(source)
        edgeTarget.append(target)
        edgeKind.append(kind)
        edgeLabel.append(label)
    }
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

/// Reads every live census object, stripe by stripe, in two passes: the first collects the
/// metadata of objects whose layout is not compiled yet (compiling calls the runtime, which
/// must not happen under a census lock), the second reads the objects with plain loads.
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

    private(set) var heap = RawHeap()
    private var layouts: [CompiledLayout] = []
    private var indexByMetadata: [UInt: Int32] = [:]
    /// The label ids of references read conservatively.
    private let taskLabel: Int32
    private let blockLabel: Int32
    private let conservativeLabel: Int32

    init() {
        taskLabel = LayoutRegistry.shared.labelID("runs")
        blockLabel = LayoutRegistry.shared.labelID("captures")
        conservativeLabel = LayoutRegistry.shared.labelID("captures (read conservatively)")
    }

    /// Runs both passes and returns what they read.
    ///
    /// The whole scan runs with the calling thread's allocations unrecorded: the census's own
    /// tables and layouts are not part of the heap it reports.
    static func run() -> (heap: RawHeap, layouts: [CompiledLayout], labels: [String]) {
        CensusDoor.internally {
            var scan = HeapScan()
            scan.compileMissingLayouts()
            let registry = LayoutRegistry.shared.snapshot()
            scan.layouts = registry.layouts
            scan.indexByMetadata = registry.indexByMetadata
            for stripe in 0..<CensusDoor.stripeCount {
                CensusDoor.visitStripe(stripe) { entries in scan.read(entries) }
            }
            let labels = LayoutRegistry.shared.snapshot().labels
            return (scan.heap, scan.layouts, labels)
        }
    }

    /// Pass one: the metadata of every live object, compiled outside the locks.
    private func compileMissingLayouts() {
        let known = LayoutRegistry.shared.snapshot().indexByMetadata
        var missing: [UInt] = []
        for stripe in 0..<CensusDoor.stripeCount {
            CensusDoor.visitStripe(stripe) { entries in
                for entry in entries
                where entry & (CensusDoor.taskFlag | CensusDoor.blockFlag) == 0 {
                    let isa = CensusDoor.load(entry & ~CensusDoor.flagMask)
                    if isa != 0, known[isa] == nil { missing.append(isa) }
                }
            }
        }
        var seen = Set<UInt>()
        for isa in missing where seen.insert(isa).inserted {
            _ = LayoutRegistry.shared.index(ofMetadata: isa)
        }
    }

    /// Pass two, for one stripe (its lock held): record each object and its references.
    private mutating func read(_ entries: UnsafeBufferPointer<UInt>) {
        for entry in entries {
            let address = entry & ~CensusDoor.flagMask
            let isa = CensusDoor.load(address)
            guard isa != 0 else { continue }  // allocated, not yet initialised
            let source = Int32(heap.addresses.count)
            if entry & CensusDoor.blockFlag != 0 {
                let (references, captureEnd) = CensusDoor.blockInfo(address)
                record(address, layout: -1, retainCount: references, kind: .block)
                readConservatively(
                    address, from: 32, to: captureEnd, source: source, label: blockLabel)
                continue
            }
            if entry & CensusDoor.taskFlag != 0 {
                record(
                    address, layout: -1, retainCount: CensusDoor.retainCount(address), kind: .task)
                let end = min(CensusDoor.blockSize(address), 8 * Self.taskWords)
                readConservatively(address, from: 16, to: end, source: source, label: taskLabel)
                continue
            }
            // Only a block whose first word is known metadata is read (its counts included):
            // anything else was allocated during this scan, or is not an object any more.
            guard let layoutIndex = indexByMetadata[isa] else { continue }
            // A deinitialising object is dead: its stored references may already be released.
            let retainCount = CensusDoor.retainCount(address)
            guard retainCount > 0 else { continue }
            record(address, layout: layoutIndex, retainCount: retainCount, kind: .object)
            let layout = layouts[Int(layoutIndex)]
            readSlots(layout.slots, dynamics: layout.dynamics, base: address, source: source)
            for region in layout.regions { readRegion(region, object: address, source: source) }
            if let start = layout.conservativeFrom {
                readConservatively(
                    address, from: start, to: CensusDoor.blockSize(address), source: source,
                    label: conservativeLabel)
            }
        }
    }

    private mutating func readSlots(
        _ slots: [CompiledLayout.Slot], dynamics: [DynamicSlot], base: UInt, source: Int32
    ) {
        for slot in slots {
            var word = CensusDoor.load(base &+ UInt(slot.offset))
            guard word != 0 else { continue }
            if slot.kind == .weak {
                // A side table's first word is its object (null once the object died).
                guard word & 7 == 0, word >= 4096 else { continue }
                word = CensusDoor.load(word)
                guard word != 0 else { continue }
            }
            heap.addEdge(source, word, slot.kind, slot.label)
        }
        for dynamic in dynamics {
            let offset = heap.dynamicBytes.count
            heap.dynamicBytes.append(contentsOf: repeatElement(0, count: dynamic.size))
            heap.dynamicBytes.withUnsafeMutableBytes { bytes in
                guard let start = bytes.baseAddress else { return }
                CensusDoor.copy(
                    from: base &+ UInt(dynamic.offset), into: start + offset, count: dynamic.size)
            }
            heap.dynamicValues.append((source, offset, dynamic))
        }
    }

    private mutating func readRegion(_ region: CompiledLayout.Region, object: UInt, source: Int32) {
        let blockEnd = object &+ UInt(CensusDoor.blockSize(object))
        switch region.counting {
        case .prefix(let countOffset, let start):
            let count = Int(bitPattern: CensusDoor.load(object &+ UInt(countOffset)))
            let first = object &+ UInt(start)
            guard count > 0, first < blockEnd else { return }
            let fitting = Int(blockEnd - first) / region.stride
            for index in 0..<min(count, fitting, Self.maximumElements) {
                readSlots(
                    region.slots, dynamics: region.dynamics,
                    base: first &+ UInt(index * region.stride), source: source)
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
            for wordIndex in 0..<words {
                var bits = CensusDoor.load(bitmap &+ UInt(8 * wordIndex))
                while bits != 0 {
                    let bucket = wordIndex * 64 + bits.trailingZeroBitCount
                    bits &= bits - 1
                    guard bucket < buckets else { break }
                    readSlots(
                        region.slots, dynamics: region.dynamics,
                        base: base &+ UInt(bucket * region.stride), source: source)
                }
            }
        }
    }

    private mutating func record(
        _ address: UInt, layout: Int32, retainCount: Int, kind: HeapEntryKind
    ) {
        heap.addresses.append(address)
        heap.layoutIndex.append(layout)
        heap.retainCounts.append(UInt32(clamping: retainCount))
        heap.sizes.append(UInt32(clamping: CensusDoor.blockSize(address)))
        heap.entryKinds.append(kind)
    }

    /// Memory without a metadata layout (a task, a C block, the undecodable captures of a
    /// closure context): its words that are the addresses of census objects count as strong
    /// references. Only words that are exactly an object's address are kept, later.
    private mutating func readConservatively(
        _ address: UInt, from start: Int, to end: Int, source: Int32, label: Int32
    ) {
        var offset = (start + 7) & ~7
        while offset + 8 <= end {
            let word = CensusDoor.load(address &+ UInt(offset))
            if word & 15 == 0, word >= 4096, word != address {
                heap.addEdge(source, word, .strong, label)
            }
            offset += 8
        }
    }
}
