import Locking
import ObjectGraph

/// One object layout compiled for reading: roles interned, nothing to compute per object.
package struct CompiledLayout: Sendable {
    package struct Slot: Sendable {
        package var offset: Int
        package var ownership: Ownership
        /// The role's number in the registry's roles.
        package var role: UInt32
        package var isFunctionContext: Bool
        /// Whether the target is a box holding a value out of line (``LayoutSlot/isBox``).
        package var isBox: Bool
        /// Whether the word is a `String`'s object word (``LayoutSlot/isStringObject``).
        package var isStringObject: Bool

        package init(
            offset: Int, ownership: Ownership, role: UInt32, isFunctionContext: Bool,
            isBox: Bool = false, isStringObject: Bool = false
        ) {
            self.offset = offset
            self.ownership = ownership
            self.role = role
            self.isFunctionContext = isFunctionContext
            self.isBox = isBox
            self.isStringObject = isStringObject
        }
    }

    package struct Region: Sendable {
        package var counting: ElementRegion.Counting
        package var stride: Int
        package var slots: [Slot]
        package var dynamics: [DynamicSlot]
    }

    package var metadata: UInt
    package var typeName: String
    /// For a closure context or box, the short names of what it captures.
    package var captures: [String]
    /// What kind of heap object this is.
    package var kind: HeapObjectKind
    package var slots: [Slot]
    package var dynamics: [DynamicSlot]
    package var regions: [Region]
    package var problem: String?
    package var problemKind: ObjectLayout.ProblemKind
    package var conservativeFrom: Int?
    /// Where conservative reading stops (the object's end when larger).
    package var conservativeLimit: Int
    /// The role number of the references read conservatively from ``conservativeFrom``.
    package var conservativeRole: UInt32
    package var dependsOnInstance: Bool
    /// Whether this is a reabstraction thunk's context (``ObjectLayout/isThunk``).
    package var isThunk: Bool
    /// Whether this is a `Task.sleep`'s wake-up closure (``ObjectLayout/isSleepWakeUp``).
    package var isSleepWakeUp: Bool
    /// Whether the type is `Foundation.Timer` or a subclass.
    package var isTimer: Bool
    /// Whether the type is `Foundation.Thread` or a subclass.
    package var isThread: Bool
    /// Where a `Foundation.Timer` keeps its CoreFoundation timer, and a `Foundation.Thread` its
    /// pthread (their holders are named from them), if found.
    package var handleOffset: Int?
    /// The instance size when no object of the type can be larger
    /// (``ObjectLayout/fixedInstanceSize``).
    package var fixedInstanceSize: Int?

    /// Whether the object holds nothing beyond its fixed slots.
    package var hasOnlyFixedSlots: Bool {
        dynamics.isEmpty && regions.isEmpty && conservativeFrom == nil
    }

    /// The name of an object of this layout reached as a box of a value held out of line (an
    /// indirect enum payload, an existential's boxed value): `box of Leaf`.
    package var boxName: String {
        captures.isEmpty ? "box" : "box of \(captures.joined(separator: ", "))"
    }
}

/// The layouts compiled so far for one process, by metadata address, and the roles they name.
///
/// This process's table (``LayoutRegistry/shared``) lives as long as the process (metadata
/// never goes away); the census's scan and the reflection walk read the same layouts. A table
/// over a stopped process's copy or a core file lives as long as one analysis. Compiling may
/// call the runtime, so it happens outside the table's lock (and outside the census's stripe
/// locks); a scan only looks layouts up, in a ``snapshot()``.
package final class LayoutTable<Source: MetadataSource>: @unchecked Sendable {
    /// The compiler, and through it the metadata source.
    package let compiler: LayoutCompiler<Source>
    private let lock = PthreadLock()
    private var indexByMetadata: [UInt: Int32] = [:]
    private var layouts: [CompiledLayout] = []
    /// The layouts' metadata addresses to their indices, as of `indexedLayouts` layouts.
    private var metadataIndex = AddressIndex([])
    private var indexedLayouts = 0
    private var roles = InternedRoles()

    /// A table reading types through `source`.
    package init(source: Source) { compiler = LayoutCompiler(source: source) }

    /// The metadata source.
    package var source: Source { compiler.source }

    /// The index of the layout of `metadata`, compiling it first if needed.
    ///
    /// - Parameters:
    ///   - metadata: The first word of a live heap object.
    ///   - sample: One such object, for a closure context whose layout depends on it.
    /// - Returns: The index, for ``layout(at:)``; nil when the word is not heap-object
    ///   metadata (the source's check says so).
    package func index(ofMetadata metadata: UInt, sample: UInt? = nil) -> Int32? {
        if let known = lock.withLock({ indexByMetadata[metadata] }) { return known }
        guard let kind = compiler.source.objectKind(ofMetadata: metadata) else { return nil }
        let layout = compiler.objectLayout(metadata: metadata, kind: kind, sample: sample)
        return lock.withLock {
            if let known = indexByMetadata[metadata] { return known }
            let compiled = compile(layout, metadata: metadata)
            let index = Int32(layouts.count)
            layouts.append(compiled)
            indexByMetadata[metadata] = index
            return index
        }
    }

    /// The layout of `metadata` compiled, or `nil` when the address is not metadata.
    package func layout(ofMetadata metadata: UInt) -> CompiledLayout? {
        index(ofMetadata: metadata).map(layout(at:))
    }

    /// The layout at `index`.
    package func layout(at index: Int32) -> CompiledLayout {
        lock.withLock { layouts[Int(index)] }
    }

    /// The layout of one closure context whose captures depend on its generic bindings,
    /// decoded from the object (`object`, retained by the caller or in a frozen copy); not kept.
    package func instanceLayout(ofContext object: UInt, metadata: UInt) -> CompiledLayout {
        let layout = compiler.objectLayout(
            metadata: metadata, kind: .closureContext, sample: object)
        return lock.withLock { compile(layout, metadata: metadata) }
    }

    /// The role numbered `number` in the table's roles.
    package func role(_ number: UInt32) -> ReferenceRole { lock.withLock { roles[number] } }

    /// The number of `role` in the table's roles, interning it.
    package func roleNumber(_ role: ReferenceRole) -> UInt32 {
        lock.withLock { roles.intern(role) }
    }

    /// The layouts, their metadata addresses indexed, and the roles, for a scan to use without
    /// locking.
    ///
    /// The index is a small open-addressing table (``AddressIndex``, a few hundred types) that
    /// stays in cache, where a `Dictionary` lookup per object hashed with SipHash; it is
    /// rebuilt only when layouts were added since the last call.
    package func snapshot() -> (
        metadataIndex: AddressIndex, layouts: [CompiledLayout], roles: InternedRoles
    ) {
        lock.withLock {
            if indexedLayouts != layouts.count {
                metadataIndex = AddressIndex(layouts.map(\.metadata))
                indexedLayouts = layouts.count
            }
            return (metadataIndex, layouts, roles)
        }
    }

    /// Compiles `layout`; call with the lock held.
    private func compile(_ layout: ObjectLayout, metadata: UInt) -> CompiledLayout {
        func slots(_ value: ValueLayout) -> [CompiledLayout.Slot] {
            value.slots.map {
                .init(
                    offset: $0.offset, ownership: $0.ownership, role: roles.intern($0.role),
                    isFunctionContext: $0.isFunctionContext, isBox: $0.isBox,
                    isStringObject: $0.isStringObject)
            }
        }
        return CompiledLayout(
            metadata: metadata, typeName: layout.typeName, captures: layout.captures,
            kind: layout.kind, slots: slots(layout.fields), dynamics: layout.fields.dynamics,
            regions: layout.regions.map {
                .init(
                    counting: $0.counting, stride: $0.stride, slots: slots($0.element),
                    dynamics: $0.element.dynamics)
            },
            problem: layout.problem, problemKind: layout.problemKind,
            conservativeFrom: layout.conservativeFrom, conservativeLimit: layout.conservativeLimit,
            conservativeRole: roles.intern(layout.conservativeRole),
            dependsOnInstance: layout.dependsOnInstance, isThunk: layout.isThunk,
            isSleepWakeUp: layout.isSleepWakeUp, isTimer: layout.isTimer, isThread: layout.isThread,
            handleOffset: layout.handleOffset, fixedInstanceSize: layout.fixedInstanceSize)
    }
}

/// This process's layouts: the census's scan and the reflection walk read these.
package enum LayoutRegistry {
    /// The table of this process's types, read through its own runtime.
    package static let shared = LayoutTable(source: RuntimeMetadata.shared)
}
