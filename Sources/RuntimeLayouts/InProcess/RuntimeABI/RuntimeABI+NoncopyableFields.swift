// PRIVATE SWIFT RUNTIME DETAILS: the declared type of a stored property of noncopyable type.
//
// Relied on (Swift 6.3 compiler, IRGen `getTypeRefByFunction`; checked on Linux x86_64):
//   • A field record whose type is always noncopyable (a `Mutex<Value>`, its `_Cell<Value>`)
//     does not hold the type's mangled name: it holds `\x09` and a 4-byte relative reference to
//     an accessor function, so that reflection written for copyable values never sees the field.
//     Off Darwin that accessor returns `()` unconditionally: resolving the name gives `()`.
//   • The accessor's "mangled name" (`\xFF\x09<rel32>\0`) is a local data symbol of its image,
//     named `get_type_metadata <generic signature><mangled type> noncopyable` (plus a `.N`
//     suffix when the name repeats). The signature, when the declaring type is generic, ends
//     with `l` (`Ri_zl` is `<x: ~Copyable>`); the type's generic parameters (`x`, `q_`) are the
//     declaring type's, resolved with its generic arguments.
//   • Those local symbols are only in the image's full symbol table (`.symtab`, not `dladdr`'s
//     `.dynsym`); the toolchain's libraries keep it. A stripped image loses the name.

import Locking

/// What the declared type of a stored property the runtime reports as `()` really is.
enum DeclaredFieldType {
    /// The field's type, resolved from its mangled name.
    case resolved(Any.Type)
    /// The compiler hid the type (a noncopyable type, see above) and it could not be named:
    /// the field's bytes are all there is to read.
    case hidden
}

extension RuntimeABI {
    /// The marker of a mangled name that is a reference to a metadata accessor function.
    static let accessorReferenceMarker: UInt8 = 0x09

    /// The type the compiler hid behind the accessor reference `name`, or nil when the accessor's
    /// symbol cannot be found or its name does not resolve.
    ///
    /// - Parameters:
    ///   - name: A field record's mangled name that starts with ``accessorReferenceMarker``.
    ///   - context: The descriptor of the type that declares the field.
    ///   - arguments: The generic arguments of the declaring type's metadata, if generic.
    static func hiddenFieldType(
        _ name: MangledTypeName, context: TypeDescriptor, arguments: UnsafeRawPointer?
    ) -> Any.Type? {
        guard let symbol = ImageSymbols.symbol(containing: UInt(bitPattern: name.start))?.name,
            let mangled = accessorMangledType(symbolName: symbol)
        else { return nil }
        // Without a signature the whole name is the type; with one, it ends at an `l`.
        var candidates = [mangled[...]]
        if mangled.first == "R" || mangled.first == "l" {
            candidates = mangled.indices.filter { mangled[$0] == "l" }.map {
                mangled[mangled.index(after: $0)...]
            }
        }
        for candidate in candidates where !candidate.isEmpty {
            let type = typeByMangledName(candidate, context: context, arguments: arguments)
            if let type, type != Void.self { return type }
            if let type = noncopyableType(candidate, context: context, arguments: arguments) {
                return type
            }
        }
        return nil
    }

    /// The type a mangled name (as text, no symbolic references) means in the context of
    /// `context` with its generic `arguments`, as the runtime resolves it.
    static func typeByMangledName(
        _ mangled: Substring, context: TypeDescriptor, arguments: UnsafeRawPointer?
    ) -> Any.Type? {
        var bytes = Array(mangled.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buffer -> Any.Type? in
            guard let start = buffer.baseAddress else { return nil }
            return _getTypeByMangledNameInContext(
                start, UInt(buffer.count - 1), genericContext: context.address,
                genericArguments: arguments)
        }
    }

    /// The generic signature and type in an accessor symbol's name, or nil for another symbol.
    static func accessorMangledType(symbolName: String) -> String? {
        let prefix = "get_type_metadata "
        guard symbolName.hasPrefix(prefix) else { return nil }
        var rest = Substring(symbolName.dropFirst(prefix.count))
        // `.N`: the uniquing suffix of a repeated name.
        if let dot = rest.lastIndex(of: "."),
            rest[rest.index(after: dot)...].allSatisfy(\.isNumber)
        {
            rest = rest[..<dot]
        }
        if let space = rest.firstIndex(of: " ") { rest = rest[..<space] }
        return rest.isEmpty ? nil : String(rest)
    }

    /// Where a generic type's arguments start in its metadata, or nil when it has none the
    /// walker can find (a class with a resilient superclass).
    static func genericArguments(of metadata: TypeMetadata) -> UnsafeRawPointer? {
        switch metadata.kind {
        case .struct, .enum, .optional:
            return metadata.address + 16
        case .class:
            guard let descriptor = metadata.nominalDescriptor else { return nil }
            let flags = descriptor.address.loadUnaligned(as: UInt32.self)
            let isGeneric = flags & 0x80 != 0
            let hasResilientSuperclass = flags & (1 << 29) != 0
            guard isGeneric, !hasResilientSuperclass else { return nil }
            let positive = Int(
                descriptor.address.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
            let immediate = Int(
                descriptor.address.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
            let word = positive - immediate
            guard word > 5, word < 1 << 16 else { return nil }
            return metadata.address + 8 * word
        default:
            return nil
        }
    }
}
