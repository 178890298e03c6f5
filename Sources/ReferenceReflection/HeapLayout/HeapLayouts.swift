import Locking

/// Compiles and caches heap layouts (see HeapLayout.swift).
///
/// Compiling reads metadata and calls the runtime (which may take its own locks and allocate),
/// so the census compiles outside its locks and scans with the compiled slots only.
package enum HeapLayouts {
    private static let valueCache = Locked([UInt: ValueReferenceLayout]())

    /// How deep value types may nest before the compiler stops (a guard, not a real limit).
    static let maximumNesting = 24

    /// The layout of heap objects whose metadata is `isa`.
    ///
    /// - Parameter isa: The first word of a live heap object.
    /// - Returns: The layout; its `problem` says what cannot be read.
    package static func objectLayout(isa: UnsafeRawPointer) -> HeapObjectLayout {
        guard RuntimeABI.isSupportedPlatform else {
            var layout = HeapObjectLayout(shape: .other, typeName: "object")
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
            return HeapObjectLayout(shape: .task, typeName: "Task")
        case .errorObject:
            return HeapObjectLayout(shape: .other, typeName: "error box")
        default:
            var layout = HeapObjectLayout(shape: .other, typeName: "heap object")
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

    /// The references a value of `type` holds, relative to the value's start (cached).
    package static func valueLayout(of type: UnsafeRawPointer) -> ValueReferenceLayout {
        let key = UInt(bitPattern: type)
        if let cached = valueCache.withLock({ $0[key] }) { return cached }
        var layout = ValueReferenceLayout()
        appendValue(TypeMetadata(address: type), at: 0, label: "", into: &layout, nesting: 0)
        valueCache.withLock { $0[key] = layout }
        return layout
    }

    private static func instanceLayout(_ metadata: TypeMetadata) -> HeapObjectLayout {
        let typeName = _typeName(metadata.type, qualified: true)
        var layout = HeapObjectLayout(shape: .instance, typeName: typeName)
        var hasFieldMetadata = false
        var current: TypeMetadata? = metadata
        var hops = 0
        while let type = current, hops < 64 {
            guard let descriptor = type.nominalDescriptor else {
                layout.problem = "a superclass has no descriptor"
                return layout
            }
            if descriptor.fields != nil { hasFieldMetadata = true }
            current = type.superclass
            hops += 1
        }
        guard hasFieldMetadata else {
            layout.problem = "no field metadata"
            return layout
        }
        appendFields(of: metadata, at: 0, prefix: "", into: &layout.fields, nesting: 0)
        return layout
    }

    /// Appends the stored properties of a class or struct at `base`.
    static func appendFields(
        of metadata: TypeMetadata, at base: Int, prefix: String,
        into layout: inout ValueReferenceLayout, nesting: Int
    ) {
        let fields = RuntimeABI.storedFields(of: metadata)
        for field in fields {
            let label = prefix.isEmpty ? field.name : prefix + "." + field.name
            var fieldType = TypeMetadata(field.type)
            if field.type == Void.self, let pointer = field.namePointer {
                switch RuntimeABI.declaredFieldType(ofFieldNamed: pointer, in: metadata) {
                case .resolved(let declared)?:
                    fieldType = TypeMetadata(declared)
                case .hidden?:
                    appendConservatively(
                        field, among: fields, of: metadata, at: base, label: label, into: &layout)
                    continue
                case nil:
                    break
                }
            }
            if case .unknown = fieldType.kind { continue }
            if field.isStrong {
                appendValue(
                    fieldType, at: base + field.offset, label: label, into: &layout,
                    nesting: nesting + 1)
                continue
            }
            let ownership = field.namePointer.flatMap {
                RuntimeABI.ownership(ofFieldNamed: $0, name: field.name, in: metadata)
            }
            let kind: HeapSlotKind
            switch ownership {
            case .weak: kind = .weak
            case .unowned: kind = .unowned
            case .unmanaged: kind = .unownedUnsafe
            case .strong, nil: continue
            }
            layout.slots.append(HeapSlot(offset: base + field.offset, kind: kind, label: label))
        }
    }

    /// Appends the references of a value of `metadata` stored at `offset`.
    static func appendValue(
        _ metadata: TypeMetadata, at offset: Int, label: String,
        into layout: inout ValueReferenceLayout, nesting: Int
    ) {
        guard nesting < maximumNesting else { return }
        switch metadata.kind {
        case .class:
            layout.slots.append(HeapSlot(offset: offset, kind: .strong, label: label))
        case .optional:
            guard let wrapped = metadata.valueGenericArgument(0) else { return }
            if wrapped.kind == .class || isClassExistential(wrapped) || isThickFunction(wrapped) {
                appendValue(wrapped, at: offset, label: label, into: &layout, nesting: nesting + 1)
            } else if !RuntimeABI.valueLayout(of: metadata.type).isPOD {
                appendDynamic(metadata, .enumValue, at: offset, label: label, into: &layout)
            }
        case .struct:
            guard let descriptor = metadata.nominalDescriptor else { return }
            if isRawLayoutCell(descriptor), let value = metadata.valueGenericArgument(0) {
                // Synchronization's `_Cell<Value>` (inside `Mutex`) has a raw layout with no
                // fields, and value witnesses that call it POD: it is laid out like its `Value`.
                appendValue(value, at: offset, label: label, into: &layout, nesting: nesting + 1)
                return
            }
            guard !RuntimeABI.valueLayout(of: metadata.type).isPOD else { return }
            if StandardCollection(descriptor) != nil {
                // Array, ContiguousArray, ArraySlice, Set, Dictionary: one word, the storage.
                layout.slots.append(HeapSlot(offset: offset, kind: .strong, label: label))
                return
            }
            if isOpaqueStruct(descriptor) { return }
            appendFields(of: metadata, at: offset, prefix: label, into: &layout, nesting: nesting)
        case .enum:
            guard !RuntimeABI.valueLayout(of: metadata.type).isPOD else { return }
            appendDynamic(metadata, .enumValue, at: offset, label: label, into: &layout)
        case .tuple:
            appendTuple(metadata, at: offset, label: label, into: &layout, nesting: nesting)
        case .function:
            if isThickFunction(metadata) {
                layout.slots.append(HeapSlot(offset: offset + 8, kind: .strong, label: label))
            }
        case .existential:
            let flags = metadata.address.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            if flags & 0x8000_0000 == 0 || (flags >> 24) & 0x3F == 1 {
                // Class-bound (the first word is the object) or `any Error` (a boxed error).
                layout.slots.append(HeapSlot(offset: offset, kind: .strong, label: label))
            } else {
                appendDynamic(metadata, .existential, at: offset, label: label, into: &layout)
            }
        case .opaque:
            // `Builtin.NativeObject` / `Builtin.UnknownObject` (a `Task`'s handle, managed
            // buffers): a strong reference. Other builtins hold none.
            let address = UInt(bitPattern: metadata.address)
            if address == nativeObject || address == unknownObject {
                layout.slots.append(HeapSlot(offset: offset, kind: .strong, label: label))
            }
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
        _ metadata: TypeMetadata, _ shape: DynamicSlot.Shape, at offset: Int, label: String,
        into layout: inout ValueReferenceLayout
    ) {
        let size = shape == .existential ? 32 : RuntimeABI.valueLayout(of: metadata.type).size
        guard size > 0, size <= DynamicValues.maximumCopy else { return }
        layout.dynamics.append(
            DynamicSlot(
                offset: offset, size: size, shape: shape,
                metadata: UInt(bitPattern: metadata.address), label: label))
    }

    private static func appendTuple(
        _ metadata: TypeMetadata, at offset: Int, label: String,
        into layout: inout ValueReferenceLayout, nesting: Int
    ) {
        let count = Int(truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: 8))
        guard count >= 0, count < 1 << 12 else { return }
        for index in 0..<count {
            let element = 24 + 16 * index
            guard let type = RuntimeABI.pointer(at: metadata.address, offset: element) else {
                continue
            }
            let elementOffset = Int(
                UInt32(
                    truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: element + 8)))
            let name = label.isEmpty ? "\(index)" : "\(label).\(index)"
            appendValue(
                TypeMetadata(address: type), at: offset + elementOffset, label: name,
                into: &layout, nesting: nesting + 1)
        }
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
}
