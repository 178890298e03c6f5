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

        package init(
            offset: Int, ownership: Ownership, role: UInt32, isFunctionContext: Bool,
            isBox: Bool = false
        ) {
            self.offset = offset
            self.ownership = ownership
            self.role = role
            self.isFunctionContext = isFunctionContext
            self.isBox = isBox
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
    package var shape: ObjectLayout.Shape
    package var slots: [Slot]
    package var dynamics: [DynamicSlot]
    package var regions: [Region]
    package var problem: String?
    package var problemKind: ObjectLayout.ProblemKind
    package var conservativeFrom: Int?
    /// The role number of the references read conservatively from ``conservativeFrom``.
    package var conservativeRole: UInt32
    package var dependsOnInstance: Bool
    /// Whether this is a reabstraction thunk's context (``ObjectLayout/isThunk``).
    package var isThunk: Bool

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

/// The layouts compiled so far, by metadata address, and the roles they name; kept for the
/// life of the process (metadata never goes away). The census's scan and the reflection walk
/// read the same compiled layouts.
///
/// Compiling calls the runtime, so it happens outside the census's stripe locks; a scan only
/// looks layouts up, in a ``snapshot()``.
package final class LayoutRegistry: @unchecked Sendable {
    package static let shared = LayoutRegistry()

    private init() {}

    private let lock = PthreadLock()
    private var indexByMetadata: [UInt: Int32] = [:]
    private var layouts: [CompiledLayout] = []
    /// The layouts' metadata addresses to their indices, as of `indexedLayouts` layouts.
    private var metadataIndex = AddressIndex([])
    private var indexedLayouts = 0
    private var roles = InternedRoles()

    /// The index of the layout of `metadata`, compiling it first if needed.
    ///
    /// - Parameter metadata: The address of Swift heap-object metadata (the first word of a
    ///   live object); the caller has checked that it is one (the census checks words read
    ///   from blocks with its metadata check, the walk reads retained objects).
    /// - Returns: The index, for ``layout(at:)``.
    package func index(ofMetadata metadata: UInt) -> Int32? {
        if let known = lock.withLock({ indexByMetadata[metadata] }) { return known }
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return nil }
        let layout = LayoutCompiler.objectLayout(isa: pointer)
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
    /// decoded from the object (retained by the caller); not kept.
    package func instanceLayout(ofContext object: UnsafeRawPointer, metadata: UInt)
        -> CompiledLayout?
    {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return nil }
        let layout = LayoutCompiler.contextLayout(TypeMetadata(address: pointer), object: object)
        return lock.withLock { compile(layout, metadata: metadata) }
    }

    /// The role numbered `number` in the registry's roles.
    package func role(_ number: UInt32) -> ReferenceRole { lock.withLock { roles[number] } }

    /// The number of `role` in the registry's roles, interning it.
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
                    isFunctionContext: $0.isFunctionContext)
            }
        }
        return CompiledLayout(
            metadata: metadata, typeName: layout.typeName, captures: layout.captures,
            shape: layout.shape,
            slots: slots(layout.fields), dynamics: layout.fields.dynamics,
            regions: layout.regions.map {
                .init(
                    counting: $0.counting, stride: $0.stride, slots: slots($0.element),
                    dynamics: $0.element.dynamics)
            },
            problem: layout.problem, problemKind: layout.problemKind,
            conservativeFrom: layout.conservativeFrom,
            conservativeRole: roles.intern(layout.conservativeRole),
            dependsOnInstance: layout.dependsOnInstance, isThunk: layout.isThunk)
    }
}
