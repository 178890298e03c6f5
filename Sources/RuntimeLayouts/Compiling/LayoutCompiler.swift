import Locking
import ObjectGraph
import RetainGraphUtilities

/// Compiles, once per type, where heap objects hold references: the project's one layout
/// compiler, over any ``MetadataSource``.
///
/// Given an object's metadata, it asks the source what kind of object that is and how its
/// values are laid out, and turns the answers into an ``ObjectLayout``: slots at fixed offsets
/// (each with its ownership and its ``/ObjectGraph/ReferenceRole``), values decoded per object
/// (enums, existentials), a collection storage's element regions, and what must be read
/// conservatively because nothing describes it. Types are named the way reports name them
/// (`closure context (captures Owner)`, `[Entry] storage`, `box of Payload`), and roles by the
/// path through the values that hold a reference (`.state.timer`, `captures Owner.handler`,
/// `element of [Entry] .owner`), whichever process the source reads.
///
/// Compiling reads metadata and may call the runtime (this process's source), which can take
/// the runtime's locks and allocate: the census compiles outside its own locks.
///
/// ```swift
/// let compiler = LayoutCompiler(source: RuntimeMetadata.shared)
/// let layout = compiler.objectLayout(metadata: isa, kind: .instance, sample: nil)
/// print(layout.typeName, layout.fields.slots.map(\.role))
/// ```
package final class LayoutCompiler<Source: MetadataSource>: @unchecked Sendable {
    /// Where the compiler learns about types.
    package let source: Source
    /// Value layouts by type, relative to the value's start, their slots' roles as properties.
    private let valueCache = Locked([TypeHandle: ValueLayout]())

    /// How deep value types may nest before the compiler stops (a guard, not a real limit).
    package static var maximumNesting: Int { 24 }
    /// The most words of one undescribed field that are read conservatively.
    static var maximumConservativeWords: Int { 64 }
    /// The most bytes of a task read conservatively (its header and first async frame).
    package static var taskBytes: Int { 8192 }
    /// The most slots and dynamic values one value's layout gets, and the most values and
    /// children visited to compile it four times that (a guard against types nested to blow
    /// up: generic arguments read from another process can be planted; no real type comes
    /// near).
    package static var maximumSlots: Int { 1 << 16 }

    package init(source: Source) { self.source = source }

    /// The layout of heap objects of `kind` whose metadata is `metadata`.
    ///
    /// - Parameters:
    ///   - metadata: The first word of a live heap object, checked by
    ///     ``MetadataSource/objectKind(ofMetadata:)``.
    ///   - kind: What that check said the object is.
    ///   - sample: One such object, from which a closure context's generic bindings can be
    ///     read; without one, such a context's captures are read conservatively.
    /// - Returns: The layout; its ``ObjectLayout/problem`` says what cannot be read.
    package func objectLayout(metadata: UInt, kind: HeapObjectKind, sample: UInt?)
        -> ObjectLayout
    {
        switch kind {
        case .instance, .collectionStorage:
            if let storage = source.collectionStorage(ofClassMetadata: metadata) {
                return storageLayout(storage)
            }
            return instanceLayout(metadata)
        case .closureContext:
            return contextLayout(metadata, sample: sample)
        case .box:
            return boxLayout(metadata)
        case .task:
            return conservative(.task, from: 16, limit: Self.taskBytes, role: .runs)
        case .job:
            return conservative(.job, from: 16, limit: 512, role: .runs)
        case .errorBox:
            return conservative(.errorBox, from: 16, limit: 512, role: .boxedValue(path: ""))
        case .block:
            // Read per object (its size is in its descriptor): see ObjectReader.
            return conservative(
                .block, from: 32, limit: .max, role: ObjectLayout.targetNamedCapture)
        }
    }

    /// The references a value of `type` holds, relative to the value's start, as properties at
    /// their paths inside it (cached per type).
    package func valueLayout(of type: TypeHandle) -> ValueLayout {
        if let cached = valueCache.withLock({ $0[type] }) { return cached }
        var layout = ValueLayout()
        appendValue(type, at: 0, base: .property, path: "", into: &layout, nesting: 0)
        valueCache.withLock { $0[type] = layout }
        return layout
    }

    /// A layout read conservatively from `start` to `limit`: memory no metadata describes.
    private func conservative(
        _ kind: HeapObjectKind, from start: Int, limit: Int, role: ReferenceRole
    ) -> ObjectLayout {
        var layout = ObjectLayout(kind: kind, typeName: kind.genericName)
        layout.conservativeFrom = start
        layout.conservativeLimit = limit
        layout.conservativeRole = role
        return layout
    }

    /// The standard library's string storage classes, named as the collections' storage is
    /// (`[UInt8] storage`).
    private static var storageNames: [String: String] {
        [
            "Swift.__StringStorage": "String storage",
            "Swift.__SharedStringStorage": "String storage (shared)",
        ]
    }

    private func instanceLayout(_ metadata: UInt) -> ObjectLayout {
        let type = source.classType(ofMetadata: metadata)
        let typeName = type.flatMap(source.name(of:)) ?? "object"
        var layout = ObjectLayout(
            kind: .instance, typeName: Self.storageNames[typeName] ?? typeName)
        guard let (fields, problem) = source.classFields(ofMetadata: metadata) else {
            layout.problem = "stored properties not reflectable (no field metadata)"
            layout.problemKind = .missingMetadata
            return layout
        }
        layout.problem = problem
        let chain = classChain(metadata)
        markKnownType(&layout, chain: chain.names, fields: fields)
        let size = source.instanceSize(ofClassMetadata: metadata) ?? 0
        layout.fixedInstanceSize = fixedInstanceSize(
            chain, typeName: typeName, size: size, fields: fields)
        for (index, field) in fields.enumerated() {
            let end = index + 1 < fields.count ? fields[index + 1].offset : size
            appendChild(
                field, end: end, at: 0, base: .property, path: field.name, into: &layout.fields,
                nesting: 0)
        }
        return layout
    }

    /// The names of the class `metadata` and of its superclasses, itself first (nil for a class
    /// the source cannot name), and whether that is the whole chain: one that runs past 64
    /// classes is cut there (planted or corrupted metadata).
    private func classChain(_ metadata: UInt) -> (names: [String?], isWhole: Bool) {
        var names: [String?] = []
        var current: UInt? = metadata
        while let each = current {
            guard names.count < 64 else { return (names, false) }
            names.append(source.classType(ofMetadata: each).flatMap(source.name(of:)))
            current = source.superclass(ofClassMetadata: each)
        }
        return (names, true)
    }

    /// `size` when no instance of the class whose chain is `chain` can be larger
    /// (``ObjectLayout/fixedInstanceSize``): its own module is not the toolchain's, it has
    /// stored properties, and every superclass is named and none is `Swift.ManagedBuffer`.
    private func fixedInstanceSize(
        _ chain: (names: [String?], isWhole: Bool), typeName: String, size: Int,
        fields: [TypeChild]
    ) -> Int? {
        guard size > 16, !fields.isEmpty, chain.isWhole,
            let module = TypeNames.module(of: typeName),
            !TypeNames.toolchainModules.contains(String(module)),
            chain.names.dropFirst().allSatisfy({ name in
                name.map { TypeNames.genericBase($0) != "Swift.ManagedBuffer" } ?? false
            })
        else { return nil }
        return size
    }

    /// Marks a `Foundation.Timer` or `Foundation.Thread` (or a subclass: `chain` names the
    /// class and its superclasses), whose holders a reader names, with where it keeps its
    /// CoreFoundation timer or its pthread.
    private func markKnownType(_ layout: inout ObjectLayout, chain: [String?], fields: [TypeChild])
    {
        let known = chain.lazy.compactMap { $0.flatMap(KnownType.init(typeName:)) }
        switch known.first(where: { $0 == .foundationTimer || $0 == .thread }) {
        case .foundationTimer?:
            layout.isTimer = true
            layout.handleOffset = fields.first { $0.name == "_timerStorage" }?.offset
        case .thread?:
            layout.isThread = true
            layout.handleOffset = fields.first { $0.name == "_thread" }?.offset
        default:
            break
        }
    }

    private func boxLayout(_ metadata: UInt) -> ObjectLayout {
        var layout = ObjectLayout(kind: .box, typeName: "box")
        let (type, offset) = source.boxedValue(ofBoxMetadata: metadata)
        guard let type else {
            layout.problem = "boxed type not described: read conservatively"
            layout.problemKind = .undecodableClosure
            layout.conservativeFrom = offset
            layout.conservativeLimit = offset + 256
            layout.conservativeRole = .boxedValue(path: "")
            return layout
        }
        layout.captures = [TypeNames.captureName(source.name(of: type) ?? "")]
        appendValue(type, at: offset, base: .boxed, path: "", into: &layout.fields, nesting: 0)
        return layout
    }
}
