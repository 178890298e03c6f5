import Locking
import ReferenceReflection

/// One heap layout compiled for scanning: slot labels interned, nothing to compute per object.
struct CompiledLayout {
    struct Slot {
        var offset: Int
        var kind: HeapSlotKind
        var label: Int32
    }

    struct Region {
        var counting: ElementRegion.Counting
        var stride: Int
        var slots: [Slot]
        var dynamics: [DynamicSlot]
    }

    var metadata: UInt
    var typeName: String
    var shape: HeapObjectLayout.Shape
    var slots: [Slot]
    var dynamics: [DynamicSlot]
    var regions: [Region]
    var problem: String?
    var conservativeFrom: Int?
}

/// The layouts compiled so far, by metadata address, and the interned labels; kept for the
/// life of the process (metadata never goes away).
///
/// Compiling calls the runtime, so it happens outside the census's stripe locks; a scan only
/// looks layouts up.
final class LayoutRegistry: @unchecked Sendable {
    static let shared = LayoutRegistry()

    private init() {
        // Names the noncopyable stored properties (a `Mutex`) the compiler hides from
        // reflection, from their accessors' local symbols.
        HeapLayouts.setLocalSymbolLookup { CensusDoor.symbol(at: $0)?.name }
    }

    private let lock = PthreadLock()
    private var indexByMetadata: [UInt: Int32] = [:]
    private(set) var layouts: [CompiledLayout] = []
    /// The layouts' metadata addresses to their indices, as of `indexedLayouts` layouts.
    private var metadataIndex = AddressIndex([])
    private var indexedLayouts = 0
    private var labelIDs: [String: Int32] = [:]
    private(set) var labels: [String] = []

    /// Words that were not metadata when checked (a block whose first word was not written by
    /// the runtime yet, or that was freed without the census seeing it); cleared when large.
    private var rejected: Set<UInt> = []

    /// The index of the layout of `metadata`, compiling it first if needed; nil when the word
    /// is not the address of Swift metadata the census can read.
    func index(ofMetadata metadata: UInt) -> Int32? {
        if let known = lock.withLock({ indexByMetadata[metadata] }) { return known }
        if lock.withLock({ rejected.contains(metadata) }) { return nil }
        guard MetadataCheck.isMetadata(metadata),
            let pointer = UnsafeRawPointer(bitPattern: metadata)
        else {
            lock.withLock {
                if rejected.count > 4096 { rejected.removeAll() }
                rejected.insert(metadata)
            }
            return nil
        }
        let layout = HeapLayouts.objectLayout(isa: pointer)
        return lock.withLock {
            if let known = indexByMetadata[metadata] { return known }
            let compiled = compile(layout, metadata: metadata)
            let index = Int32(layouts.count)
            layouts.append(compiled)
            indexByMetadata[metadata] = index
            return index
        }
    }

    /// The layouts, their metadata addresses indexed, and the labels, for a scan to use
    /// without locking.
    ///
    /// The index is a small open-addressing table (``AddressIndex``, a few hundred types) that
    /// stays in cache, where a `Dictionary` lookup per object hashed with SipHash; it is
    /// rebuilt only when layouts were added since the last call.
    func snapshot() -> (metadataIndex: AddressIndex, layouts: [CompiledLayout], labels: [String]) {
        lock.withLock {
            if indexedLayouts != layouts.count {
                metadataIndex = AddressIndex(layouts.map(\.metadata))
                indexedLayouts = layouts.count
            }
            return (metadataIndex, layouts, labels)
        }
    }

    /// The label's identity, interning it.
    func labelID(_ label: String) -> Int32 {
        lock.withLock { intern(label) }
    }

    private func intern(_ label: String) -> Int32 {
        if let id = labelIDs[label] { return id }
        let id = Int32(labels.count)
        labels.append(label)
        labelIDs[label] = id
        return id
    }

    private func compile(_ layout: HeapObjectLayout, metadata: UInt) -> CompiledLayout {
        func slots(_ value: ValueReferenceLayout) -> [CompiledLayout.Slot] {
            value.slots.map { .init(offset: $0.offset, kind: $0.kind, label: intern($0.label)) }
        }
        return CompiledLayout(
            metadata: metadata, typeName: layout.typeName, shape: layout.shape,
            slots: slots(layout.fields),
            dynamics: layout.fields.dynamics,
            regions: layout.regions.map {
                .init(
                    counting: $0.counting, stride: $0.stride, slots: slots($0.element),
                    dynamics: $0.element.dynamics)
            },
            problem: layout.problem, conservativeFrom: layout.conservativeFrom)
    }
}
