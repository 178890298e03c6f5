// PRIVATE SWIFT RUNTIME DETAILS: nominal type descriptors and field records, as emitted by the
// compiler into `__swift5_types` / `__swift5_fieldmd` (see the runtime's `Metadata.h` and
// `RemoteInspection/Records.h`).
//
// Layouts relied on:
//   TypeContextDescriptor: flags u32 @0 (kind = flags & 0x1F), parent rel-indirectable @4,
//     name rel @8, access function rel @12, fields rel @16 (nullable: no reflection metadata).
//   FieldDescriptor: mangled type rel @0, superclass rel @4, kind u16 @8, record size u16 @10
//     (always 12), field count u32 @12, records from @16.
//   FieldRecord: flags u32 @0, mangled type name rel @4, field name rel @8.

import ObjectGraph

/// The kinds of context descriptors the walker recognises (`ContextDescriptorKind`).
enum DescriptorKind: UInt32 {
    case module = 0
    case `extension` = 1
    case anonymous = 2
    case `protocol` = 3
    case opaqueType = 4
    case `class` = 16
    case `struct` = 17
    case `enum` = 18

    /// Whether a type descriptor of this kind may describe metadata of `metadataKind`.
    func matches(_ metadataKind: MetadataKind) -> Bool {
        switch (self, metadataKind) {
        case (.class, .class), (.struct, .struct), (.enum, .enum), (.enum, .optional): return true
        default: return false
        }
    }
}

/// A context descriptor (type, module, extension…), as a typed view over its address.
struct TypeDescriptor: Hashable {
    let address: UnsafeRawPointer

    private var flags: UInt32 { address.loadUnaligned(as: UInt32.self) }

    /// The descriptor's kind, or nil when the kind bits hold a value the walker does not know.
    var kind: DescriptorKind? { DescriptorKind(rawValue: flags & 0x1F) }

    /// The unqualified name (types and modules), read from the descriptor's name string.
    var name: String? {
        guard kind != nil, let pointer = RuntimeABI.relativeDirect(at: address + 8) else {
            return nil
        }
        return String(cString: pointer.assumingMemoryBound(to: CChar.self))
    }

    /// The enclosing context (a module, a type, an extension).
    var parent: TypeDescriptor? {
        guard let pointer = RuntimeABI.relativeIndirectable(at: address + 4) else { return nil }
        let parent = TypeDescriptor(address: pointer)
        return parent.kind == nil ? nil : parent
    }

    /// The name of the module that declares the type, found by walking up the parents.
    var moduleName: String? {
        var current: TypeDescriptor? = self
        var hops = 0
        while let descriptor = current, hops < 32 {
            if descriptor.kind == .module { return descriptor.name }
            current = descriptor.parent
            hops += 1
        }
        return nil
    }

    /// The field descriptor, or nil when the type was compiled without reflection metadata.
    var fields: FieldDescriptor? {
        guard kind == .class || kind == .struct || kind == .enum,
            let pointer = RuntimeABI.relativeDirect(at: address + 16)
        else { return nil }
        let descriptor = FieldDescriptor(address: pointer)
        return descriptor.isWellFormed ? descriptor : nil
    }
}

/// The compiler's list of a type's stored properties (or enum cases) and their mangled types.
struct FieldDescriptor {
    let address: UnsafeRawPointer

    private var recordSize: Int { Int(address.loadUnaligned(fromByteOffset: 10, as: UInt16.self)) }
    var count: Int { Int(address.loadUnaligned(fromByteOffset: 12, as: UInt32.self)) }

    /// Whether the header has the only record size the compiler emits and a sane count.
    var isWellFormed: Bool { recordSize == 12 && count < 1 << 16 }

    /// The address of the `index`th field's name string.
    func namePointer(at index: Int) -> UnsafeRawPointer? {
        guard index >= 0, index < count else { return nil }
        return RuntimeABI.relativeDirect(at: address + 16 + 12 * index + 8)
    }

    /// The `index`th field's mangled type name, or nil for a payload-less enum case.
    func mangledTypeName(at index: Int) -> MangledTypeName? {
        guard index >= 0, index < count,
            let pointer = RuntimeABI.relativeDirect(at: address + 16 + 12 * index + 4)
        else { return nil }
        return MangledTypeName(start: pointer)
    }
}

extension RuntimeABI {
    /// The ownership of a stored property that the runtime reported as not strong.
    ///
    /// `swift_reflectionMirror_recursiveChildMetadata` only says "strong or not"; the kind of
    /// reference storage is the suffix of the field's mangled type. The field is found by the
    /// identity of its name string (the runtime hands back a pointer into the field record), then
    /// by name, searching the type and, for classes, its superclasses.
    ///
    /// - Returns: nil when the field cannot be found or its suffix is not a reference storage.
    static func ownership(
        ofFieldNamed namePointer: UnsafeRawPointer, name: String, in metadata: TypeMetadata
    ) -> Ownership? {
        var byName: Ownership?
        var current: TypeMetadata? = metadata
        var hops = 0
        while let type = current, hops < 64 {
            if let fields = type.nominalDescriptor?.fields {
                for index in 0..<fields.count {
                    guard let pointer = fields.namePointer(at: index) else { continue }
                    let isSameString = pointer == namePointer
                    if isSameString
                        || (byName == nil
                            && String(cString: pointer.assumingMemoryBound(to: CChar.self)) == name)
                    {
                        let ownership = fields.mangledTypeName(at: index)?.referenceOwnership
                        if isSameString { return ownership }
                        byName = ownership
                    }
                }
            }
            current = type.superclass
            hops += 1
        }
        return byName
    }
}

extension RuntimeABI {
    /// The type of a stored property, resolved from its field record's mangled name in the
    /// context of the type that declares it.
    ///
    /// The runtime's reflection reports a noncopyable field (a `Mutex`, say) as `()`: its field
    /// record names an accessor that returns `()` (see RuntimeABI+NoncopyableFields.swift). The
    /// accessor's symbol still names the real type.
    ///
    /// - Returns: `.resolved` with the declared type, `.hidden` when the compiler hid a
    ///   noncopyable type that cannot be named here, nil when the record is not found or its
    ///   name resolves to nothing but `()` (a real `()` field).
    static func declaredFieldType(
        ofFieldNamed namePointer: UnsafeRawPointer, in metadata: TypeMetadata
    ) -> DeclaredFieldType? {
        var current: TypeMetadata? = metadata
        var hops = 0
        while let type = current, hops < 64 {
            if let descriptor = type.nominalDescriptor, let fields = descriptor.fields {
                for index in 0..<fields.count where fields.namePointer(at: index) == namePointer {
                    guard let name = fields.mangledTypeName(at: index), let length = name.length,
                        length > 0
                    else { return nil }
                    let arguments = genericArguments(of: type)
                    // A generic type whose arguments cannot be found: the runtime would read
                    // them from nowhere.
                    let isGeneric = descriptor.address.loadUnaligned(as: UInt32.self) & 0x80 != 0
                    if isGeneric, arguments == nil {
                        return name.start.load(as: UInt8.self) == accessorReferenceMarker
                            ? .hidden : nil
                    }
                    if name.start.load(as: UInt8.self) == accessorReferenceMarker {
                        return hiddenFieldType(name, context: descriptor, arguments: arguments)
                            .map(DeclaredFieldType.resolved) ?? .hidden
                    }
                    let resolved = _getTypeByMangledNameInContext(
                        name.start.assumingMemoryBound(to: UInt8.self), UInt(length),
                        genericContext: descriptor.address, genericArguments: arguments)
                    guard let resolved, resolved != Void.self else { return nil }
                    return .resolved(resolved)
                }
            }
            current = type.superclass
            hops += 1
        }
        return nil
    }
}
