import Locking
import ObjectGraph
import RetainGraphUtilities

/// Compiles heap layouts from runtime metadata (see ObjectLayout.swift): the project's one
/// reader of runtime metadata, whose layouts both the census's scan and the reflection walk
/// execute.
///
/// Compiling reads metadata and calls the runtime (which may take its own locks and allocate),
/// so the census compiles outside its locks and scans with the compiled slots only; the
/// ``LayoutRegistry`` compiles each type once for the process.
package enum LayoutCompiler {
    private static let valueCache = Locked([UInt: ValueLayout]())

    /// How deep value types may nest before the compiler stops (a guard, not a real limit).
    static let maximumNesting = 24

    /// The layout of heap objects whose metadata is `isa`.
    ///
    /// - Parameter isa: The first word of a live heap object.
    /// - Returns: The layout; its `problem` says what cannot be read.
    package static func objectLayout(isa: UnsafeRawPointer) -> ObjectLayout {
        guard RuntimeABI.isSupportedPlatform else {
            var layout = ObjectLayout(shape: .other, typeName: "object")
            layout.problem = "unsupported platform"
            return layout
        }
        let metadata = TypeMetadata(address: isa)
        switch metadata.kind {
        case .class:
            if let storage = collectionStorageLayout(metadata) { return storage }
            return instanceLayout(metadata)
        case .heapLocalVariable, .heapGenericLocalVariable:
            return contextLayout(metadata)
        case .task:
            return ObjectLayout(shape: .task, typeName: "Task")
        case .errorObject:
            return ObjectLayout(shape: .other, typeName: "error box")
        default:
            var layout = ObjectLayout(shape: .other, typeName: "heap object")
            layout.problem = "\(metadata.kind): not read"
            return layout
        }
    }

    /// Whether `address` lies inside a loaded image (where metadata descriptors live); true
    /// when `dladdr` cannot be found. The census checks a descriptor with it before reading.
    package static func isInLoadedImage(_ address: UInt) -> Bool {
        guard let pointer = UnsafeRawPointer(bitPattern: address) else { return false }
        return RuntimeABI.isInLoadedImage(pointer)
    }

    /// The references a value of `type` holds, relative to the value's start, as properties
    /// at their paths inside it (cached).
    package static func valueLayout(of type: UnsafeRawPointer) -> ValueLayout {
        let key = UInt(bitPattern: type)
        if let cached = valueCache.withLock({ $0[key] }) { return cached }
        var layout = ValueLayout()
        appendValue(
            TypeMetadata(address: type), at: 0, base: .property, path: "", into: &layout,
            nesting: 0)
        valueCache.withLock { $0[key] = layout }
        return layout
    }

    private static func instanceLayout(_ metadata: TypeMetadata) -> ObjectLayout {
        let typeName = TypeNames.readable(_typeName(metadata.type, qualified: true))
        var layout = ObjectLayout(shape: .instance, typeName: typeName)
        var hasFieldMetadata = false
        var current: TypeMetadata? = metadata
        var hops = 0
        while let type = current, hops < 64 {
            guard let descriptor = type.nominalDescriptor else {
                layout.problem = "a superclass has no descriptor"
                layout.problemKind = .unrecognisedMetadata
                return layout
            }
            if descriptor.fields != nil { hasFieldMetadata = true }
            current = type.superclass
            hops += 1
        }
        guard hasFieldMetadata else {
            layout.problem = "stored properties not reflectable (no field metadata)"
            layout.problemKind = .missingMetadata
            return layout
        }
        appendFields(
            of: metadata, at: 0, base: .property, prefix: "", into: &layout.fields, nesting: 0)
        return layout
    }

    /// Appends the stored properties of a class or struct at `base`.
    static func appendFields(
        of metadata: TypeMetadata, at start: Int, base: RoleBase, prefix: String,
        into layout: inout ValueLayout, nesting: Int
    ) {
        let fields = RuntimeABI.storedFields(of: metadata)
        let descriptor = metadata.nominalDescriptor.map { UInt(bitPattern: $0.address) }
        for field in fields {
            let path: String
            if let descriptor, isLookedThrough(field.name, of: descriptor) {
                path = prefix
            } else {
                path = prefix.isEmpty ? field.name : prefix + "." + field.name
            }
            var fieldType = TypeMetadata(field.type)
            if field.type == Void.self, let pointer = field.namePointer {
                switch RuntimeABI.declaredFieldType(ofFieldNamed: pointer, in: metadata) {
                case .resolved(let declared)?:
                    fieldType = TypeMetadata(declared)
                case .hidden?:
                    appendConservatively(
                        field, among: fields, of: metadata, at: start, role: base.role(path),
                        into: &layout)
                    continue
                case nil:
                    break
                }
            }
            if case .unknown = fieldType.kind { continue }
            if field.isStrong {
                appendValue(
                    fieldType, at: start + field.offset, base: base, path: path, into: &layout,
                    nesting: nesting + 1)
                continue
            }
            let ownership = field.namePointer.flatMap {
                RuntimeABI.ownership(ofFieldNamed: $0, name: field.name, in: metadata)
            }
            guard let ownership, ownership != .strong else { continue }
            layout.slots.append(
                LayoutSlot(
                    offset: start + field.offset, ownership: ownership, role: base.role(path)))
        }
    }

    /// Appends the references of a value of `metadata` stored at `offset`, held by `base` at
    /// `path`.
    static func appendValue(
        _ metadata: TypeMetadata, at offset: Int, base: RoleBase, path: String,
        into layout: inout ValueLayout, nesting: Int
    ) {
        guard nesting < maximumNesting else { return }
        func strong(at offset: Int, isFunctionContext: Bool = false) {
            layout.slots.append(
                LayoutSlot(
                    offset: offset, ownership: .strong, role: base.role(path),
                    isFunctionContext: isFunctionContext))
        }
        switch metadata.kind {
        case .class:
            strong(at: offset)
        case .optional:
            guard let wrapped = metadata.valueGenericArgument(0) else { return }
            // A class reference, a class existential, a closure or a standard collection (one
            // storage pointer): `nil` is a null word, so the optional reads like its wrapped
            // value.
            if wrapped.kind == .class || isClassExistential(wrapped) || isThickFunction(wrapped)
                || isStandardCollection(wrapped)
            {
                appendValue(
                    wrapped, at: offset, base: base, path: path, into: &layout,
                    nesting: nesting + 1)
            } else if !RuntimeABI.valueLayout(of: metadata.type).isPOD {
                appendDynamic(
                    metadata, .enumValue, at: offset, base: base, path: path, into: &layout)
            }
        case .struct:
            guard let descriptor = metadata.nominalDescriptor else { return }
            if isRawLayoutCell(descriptor), let value = metadata.valueGenericArgument(0) {
                // Synchronization's `_Cell<Value>` (inside `Mutex`) has a raw layout with no
                // fields, and value witnesses that call it POD: it is laid out like its `Value`.
                appendValue(
                    value, at: offset, base: base, path: path, into: &layout, nesting: nesting + 1)
                return
            }
            guard !RuntimeABI.valueLayout(of: metadata.type).isPOD else { return }
            if StandardCollection(descriptor) != nil {
                // Array, ContiguousArray, ArraySlice, Set, Dictionary: one word, the storage.
                strong(at: offset)
                return
            }
            if isOpaqueStruct(descriptor) { return }
            appendFields(
                of: metadata, at: offset, base: base, prefix: path, into: &layout,
                nesting: nesting)
        case .enum:
            guard !RuntimeABI.valueLayout(of: metadata.type).isPOD else { return }
            appendDynamic(metadata, .enumValue, at: offset, base: base, path: path, into: &layout)
        case .tuple:
            appendTuple(
                metadata, at: offset, base: base, path: path, into: &layout, nesting: nesting)
        case .function:
            if isThickFunction(metadata) { strong(at: offset + 8, isFunctionContext: true) }
        case .existential:
            let flags = metadata.address.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            if flags & 0x8000_0000 == 0 || (flags >> 24) & 0x3F == 1 {
                // Class-bound (the first word is the object) or `any Error` (a boxed error).
                strong(at: offset)
            } else {
                appendDynamic(
                    metadata, .existential, at: offset, base: base, path: path, into: &layout)
            }
        case .opaque:
            // `Builtin.NativeObject` / `Builtin.UnknownObject` (a `Task`'s handle, managed
            // buffers): a strong reference. Other builtins hold none.
            let address = UInt(bitPattern: metadata.address)
            if address == nativeObject || address == unknownObject { strong(at: offset) }
        default:
            return  // metatypes, foreign classes: nothing the census follows
        }
    }

    private static func builtin(_ mangled: StaticString) -> UInt {
        let type = mangled.withUTF8Buffer { buffer in
            _getTypeByMangledNameInContext(
                buffer.baseAddress!, UInt(buffer.count), genericContext: nil,
                genericArguments: nil)
        }
        return type.map { UInt(bitPattern: unsafeBitCast($0, to: UnsafeRawPointer.self)) } ?? 0
    }

    private static let nativeObject = builtin("Bo")
    private static let unknownObject = builtin("BO")

    private static func appendDynamic(
        _ metadata: TypeMetadata, _ shape: DynamicSlot.Shape, at offset: Int, base: RoleBase,
        path: String, into layout: inout ValueLayout
    ) {
        let size = shape == .existential ? 32 : RuntimeABI.valueLayout(of: metadata.type).size
        guard size > 0, size <= DynamicValues.maximumCopy else { return }
        layout.dynamics.append(
            DynamicSlot(
                offset: offset, size: size, shape: shape,
                metadata: UInt(bitPattern: metadata.address), base: base, path: path))
    }

    private static func appendTuple(
        _ metadata: TypeMetadata, at offset: Int, base: RoleBase, path: String,
        into layout: inout ValueLayout, nesting: Int
    ) {
        let count = Int(truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: 8))
        guard count >= 0, count < 1 << 12 else { return }
        let labels = tupleLabels(metadata, count: count)
        for index in 0..<count {
            let element = 24 + 16 * index
            guard let type = RuntimeABI.pointer(at: metadata.address, offset: element) else {
                continue
            }
            let elementOffset = Int(
                UInt32(
                    truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: element + 8)))
            let component = labels[index] ?? "\(index)"
            let name = path.isEmpty ? component : "\(path).\(component)"
            appendValue(
                TypeMetadata(address: type), at: offset + elementOffset, base: base, path: name,
                into: &layout, nesting: nesting + 1)
        }
    }

    /// A tuple's element labels: a space-terminated list at +16 (null when none is labelled).
    private static func tupleLabels(_ metadata: TypeMetadata, count: Int) -> [String?] {
        var labels = [String?](repeating: nil, count: count)
        let raw = RuntimeABI.word(at: metadata.address, offset: 16)  // a C string: any alignment
        guard raw >= RuntimeABI.leastValidPointer, raw < 1 << 56,
            let pointer = UnsafeRawPointer(bitPattern: raw)
        else { return labels }
        let text = String(cString: pointer.assumingMemoryBound(to: CChar.self))
        for (index, label) in text.split(separator: " ", omittingEmptySubsequences: false)
            .prefix(count).enumerated() where !label.isEmpty
        {
            labels[index] = String(label)
        }
        return labels
    }

    /// Structs whose storage never explains a leak: `String`, `Substring`, `Character` and the
    /// standard library's other values that are not collections. Foundation's and
    /// Synchronization's structs are read (a `NotificationCenter` keeps its observers in a
    /// `Mutex`-guarded dictionary).
    private static func isOpaqueStruct(_ descriptor: TypeDescriptor) -> Bool {
        StandardCollection.isStandardLibrary(descriptor)
    }

    private static func isRawLayoutCell(_ descriptor: TypeDescriptor) -> Bool {
        descriptor.name == "_Cell" && descriptor.moduleName == "Synchronization"
    }

    static func isStandardCollection(_ metadata: TypeMetadata) -> Bool {
        guard metadata.kind == .struct, let descriptor = metadata.nominalDescriptor else {
            return false
        }
        return StandardCollection(descriptor) != nil
    }

    static func isClassExistential(_ metadata: TypeMetadata) -> Bool {
        guard metadata.kind == .existential else { return false }
        let flags = metadata.address.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        return flags & 0x8000_0000 == 0 && (flags >> 24) & 0x3F == 0
    }

    /// Function metadata flags: convention in bits 16–23 (0 = Swift, thick), differentiable
    /// bit 27.
    static func isThickFunction(_ metadata: TypeMetadata) -> Bool {
        guard metadata.kind == .function else { return false }
        let flags = RuntimeABI.word(at: metadata.address, offset: 8)
        return (flags >> 16) & 0xFF == 0 && flags & 0x0800_0000 == 0
    }

    /// The descriptors of the package's lock (`Locked`, a struct whose `storage` is a buffer
    /// holding the value as its `header`): paths go through them without naming them, so a
    /// timer's state reads `.state.action`, as the code that wrote it says.
    private static let lockDescriptors: (locked: UInt, storage: UInt) = {
        let locked = TypeMetadata(Locked<Int>.self).nominalDescriptor
        let storage = TypeMetadata(LockStorageIdentity.sampleStorageClass as Any.Type)
            .nominalDescriptor
        return (
            locked.map { UInt(bitPattern: $0.address) } ?? 0,
            storage.map { UInt(bitPattern: $0.address) } ?? 0
        )
    }()

    /// Whether the path to the field `name` of the type of `descriptor` leaves the field out.
    private static func isLookedThrough(_ name: String, of descriptor: UInt) -> Bool {
        (descriptor == lockDescriptors.locked && name == "storage")
            || (descriptor == lockDescriptors.storage && name == "header")
    }
}
