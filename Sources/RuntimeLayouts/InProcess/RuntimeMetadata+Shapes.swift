// PRIVATE SWIFT RUNTIME DETAILS (this process's runtime): value shapes from metadata kinds and
// value witness tables (see RuntimeABI.swift): optionals of single references read like their
// payload; Synchronization's `_Cell<Value>` (inside `Mutex`) has a raw layout with no fields and
// value witnesses that call it POD, and is laid out like its `Value`; existential metadata's
// flags u32 @8 (bit 31: not class-bound; bits 24–29: the special protocol, 1 for `Error`);
// function metadata's flags word @8 (convention in bits 16–23, 0 = Swift/thick; differentiable
// bit 27); a tuple's element count @8, labels (a space-separated C string) @16, elements from
// @24, 16 bytes each (type, offset).

import ObjectGraph

extension RuntimeMetadata {
    package func shape(of type: TypeHandle) -> TypeShape? {
        guard let pointer = UnsafeRawPointer(bitPattern: UInt(type.raw)) else { return nil }
        let metadata = TypeMetadata(address: pointer)
        // Value witnesses are read only for the kinds whose size matters to the layout (structs,
        // enums, tuples): some metadata of other kinds (function types of other conventions)
        // has witnesses the walker must not call.
        func sized(_ kind: ValueKind) -> TypeShape {
            let measured = RuntimeABI.valueLayout(of: metadata.type)
            return TypeShape(
                kind: kind, size: measured.size, alignment: measured.alignment,
                stride: measured.stride)
        }
        func word(_ kind: ValueKind, size: Int = 8) -> TypeShape {
            TypeShape(kind: kind, size: size, alignment: 8, stride: size)
        }
        switch metadata.kind {
        case .class:
            return word(.strongReference)
        case .optional:
            guard let wrapped = metadata.valueGenericArgument(0) else { return sized(.plain) }
            // A class reference, a class existential, a closure or a standard collection (one
            // storage pointer): `nil` is a null word, so the optional reads like its value.
            if wrapped.kind == .class || Self.isClassExistential(wrapped)
                || Self.isThickFunction(wrapped) || Self.isStandardCollection(wrapped)
            {
                var shape = sized(.singlePayloadEnum)
                shape.isOptional = true
                shape.children = [
                    TypeChild(
                        name: "some", offset: 0,
                        type: TypeHandle(UInt64(UInt(bitPattern: wrapped.address))))
                ]
                return shape
            }
            var shape =
                RuntimeABI.valueLayout(of: metadata.type).isPOD
                ? sized(.plain) : sized(.multiPayloadEnum)
            shape.isOptional = true
            return shape
        case .struct:
            guard let descriptor = metadata.nominalDescriptor else { return sized(.plain) }
            if Self.isRawLayoutCell(descriptor), let value = metadata.valueGenericArgument(0) {
                var shape = sized(.rawLayout)
                shape.children = [
                    TypeChild(
                        name: "", offset: 0,
                        type: TypeHandle(UInt64(UInt(bitPattern: value.address))))
                ]
                return shape
            }
            if Self.stringTypes.contains(UInt(bitPattern: metadata.address)) {
                return sized(.string)
            }
            guard !RuntimeABI.valueLayout(of: metadata.type).isPOD else { return sized(.plain) }
            if StandardCollection(descriptor) != nil { return sized(.standardCollection) }
            if StandardCollection.isStandardLibrary(descriptor) { return sized(.plain) }
            var shape = sized(.aggregate)
            shape.children = fields(of: metadata)
            return shape
        case .enum:
            return RuntimeABI.valueLayout(of: metadata.type).isPOD
                ? sized(.plain) : sized(.multiPayloadEnum)
        case .tuple:
            var shape = sized(.aggregate)
            shape.children = tupleElements(metadata)
            return shape
        case .function:
            return Self.isThickFunction(metadata) ? word(.thickFunction, size: 16) : word(.plain)
        case .existential:
            let flags = pointer.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            // Class-bound (the first word is the object) or `any Error` (a boxed error).
            if flags & 0x8000_0000 == 0 || (flags >> 24) & 0x3F == 1 {
                return word(.strongReference)
            }
            return word(.opaqueExistential, size: 32)
        case .opaque:
            // `Builtin.NativeObject` / `Builtin.UnknownObject` (a `Task`'s handle, managed
            // buffers): a strong reference. Other builtins hold none.
            let address = UInt(bitPattern: pointer)
            return address == Self.nativeObject || address == Self.unknownObject
                ? word(.strongReference) : word(.plain)
        default:
            return word(.plain)  // metatypes, foreign classes: nothing the reader follows
        }
    }

    private func tupleElements(_ metadata: TypeMetadata) -> [TypeChild] {
        let count = Int(truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: 8))
        guard count >= 0, count < 1 << 12 else { return [] }
        let labels = Self.tupleLabels(metadata, count: count)
        return (0..<count).compactMap { index in
            let element = 24 + 16 * index
            guard let type = RuntimeABI.pointer(at: metadata.address, offset: element) else {
                return nil
            }
            let offset = Int(
                UInt32(
                    truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: element + 8)))
            return TypeChild(
                name: labels[index] ?? "\(index)", offset: offset,
                type: TypeHandle(UInt64(UInt(bitPattern: type))))
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

    private static func isRawLayoutCell(_ descriptor: TypeDescriptor) -> Bool {
        descriptor.name == "_Cell" && descriptor.moduleName == "Synchronization"
    }

    /// The metadata of `String` and `Character` (a `Character` is one `String`).
    private static let stringTypes: Set<UInt> = [
        UInt(bitPattern: unsafeBitCast(String.self as Any.Type, to: UnsafeRawPointer.self)),
        UInt(bitPattern: unsafeBitCast(Character.self as Any.Type, to: UnsafeRawPointer.self)),
    ]

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

    static func isThickFunction(_ metadata: TypeMetadata) -> Bool {
        guard metadata.kind == .function else { return false }
        let flags = RuntimeABI.word(at: metadata.address, offset: 8)
        return (flags >> 16) & 0xFF == 0 && flags & 0x0800_0000 == 0
    }
}
