import ObjectGraph
import RuntimeLayouts

/// What one scan read from the live census objects, before references are resolved.
///
/// Objects are numbered in the order the scan read them; references still name their targets
/// by the word read (a target may be any word a slot held, so it is checked against the
/// census's addresses once they are all known, in one tight loop whose lookups the processor
/// overlaps). Dynamic values are copies, decoded once every lock is released.
struct RawHeap {
    /// The objects, the references and the dynamic values' copies, in the order read.
    var columns: ScanColumns
    /// The layouts the scan read with: each dynamic value's slot, by the number the columns
    /// record.
    var flat: FlatLayouts
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
/// first time are set aside, their layouts compiled once every lock is released (compiling
/// calls the runtime, which must not happen under a census lock), and the stripes that hold
/// them visited again for them alone. In a process whose types the census has seen (every
/// snapshot after the first), that is one pass.
///
/// Nothing allocates while a stripe's lock is held: before reading an object the reader checks
/// that the columns have room for its worst case (``ScanColumns/hasRoom(_:)``); when they do
/// not, it leaves the stripe, the scan grows them, and visits the stripe again, skipping what
/// was read. The per-object path (``StripeReader``) calls nothing generic and copies nothing
/// that holds a reference (see ``ScanColumns``): this is written for a debug build too.
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
    private var flat = FlatLayouts(layouts: [])
    /// Metadata addresses to layout indices (``LayoutRegistry/snapshot()``).
    private var layoutByMetadata = AddressIndex([])
    private var layouts: [CompiledLayout] = []
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
            references: 4 * expectedObjects + 1_024, bytes: 16 * expectedObjects + 65_536)
    }

    /// Reads every live object and returns what it read.
    ///
    /// The whole scan runs with the calling thread's allocations unrecorded: the census's own
    /// tables and layouts are not part of the heap it reports.
    static func run() -> (heap: RawHeap, layouts: [CompiledLayout], roles: InternedRoles) {
        CensusDoor.internally {
            var scan = HeapScan(expectedObjects: CensusDoor.count)
            scan.loadLayouts()
            for stripe in 0..<CensusDoor.stripeCount { scan.visit(stripe, only: nil) }
            scan.readObjectsOfNewTypes()
            let roles = LayoutRegistry.shared.snapshot().roles
            let heap = RawHeap(columns: scan.columns, flat: scan.flat)
            return (heap, scan.layouts, roles)
        }
    }

    private mutating func loadLayouts() {
        let registry = LayoutRegistry.shared.snapshot()
        layouts = registry.layouts
        flat = FlatLayouts(layouts: layouts)
        layoutByMetadata = registry.metadataIndex
    }

    /// Reads one stripe (only the addresses in `only`, when given), growing the columns and
    /// visiting it again, skipping what it read, as often as they run out of room.
    private func visit(_ stripe: Int, only: Set<UInt>?) {
        let reader = StripeReader(
            columns: columns.storage, layouts: flat.layouts, regions: flat.regions,
            slots: flat.slots, dynamics: flat.dynamics, layoutByMetadata: layoutByMetadata,
            stripe: stripe, isRetry: only != nil, taskRole: taskRole, blockRole: blockRole)
        var skip: Set<UInt>?
        while true {
            let firstObject = columns.objectCount
            let firstUnknown = columns.unknownCount
            var shortfall: ScanColumns.Room?
            CensusDoor.visitStripe(stripe) { entries in
                shortfall = reader.read(entries, only: only, skip: skip)
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
    /// reads their objects, visiting only the stripes that hold them.
    private mutating func readObjectsOfNewTypes() {
        let count = columns.unknownCount
        guard count > 0 else { return }
        let storage = columns.storage.pointee
        var types = Set<UInt>()
        var addressesByStripe: [Int: Set<UInt>] = [:]
        for entry in 0..<count {
            types.insert(storage.unknownTypes.base[entry])
            addressesByStripe[Int(storage.unknownStripes.base[entry]), default: []].insert(
                storage.unknownAddresses.base[entry])
        }
        for type in types { _ = MetadataCheck.layoutIndex(ofMetadata: type) }
        loadLayouts()
        for stripe in addressesByStripe.keys.sorted() {
            visit(stripe, only: addressesByStripe[stripe])
        }
        // Objects of types whose layout could not be compiled stay unread.
    }
}
