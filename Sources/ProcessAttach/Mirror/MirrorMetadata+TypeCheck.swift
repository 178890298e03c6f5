// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit, no Objective-C interop), read remotely.
//
// Relied on (include/swift/ABI/Metadata.h, MetadataValues.h):
//   • Struct, enum and optional metadata: kind @0 (0x200, 0x201, 0x202), descriptor @8, generic
//     arguments from @16. Class metadata: kind 0, superclass @8, ClassSize u32 @32,
//     ClassAddressPoint u32 @36, descriptor @40.
//   • Type descriptors: flags u32 @0 (kind in the low 5 bits: 16 class, 17 struct, 18 enum;
//     bit 7 generic; bit 29 of a class's a resilient superclass). A class descriptor's
//     MetadataPositiveSizeInWords u32 @28 and NumImmediateMembers u32 @32; its generic header
//     @44, a struct's or enum's @28: two relative pointers, then NumParams u16 @+8,
//     NumRequirements u16 @+10, NumKeyArguments u16 @+12, flags u16 @+14 (bit 0: type packs),
//     then one byte per parameter (bit 7: a key argument; low 6 bits: 0 type, 1 pack, 2 value).
//   • A generic class's arguments start at word `MetadataPositiveSizeInWords -
//     NumImmediateMembers`, or, with a resilient superclass, at the superclass's
//     `(ClassSize - ClassAddressPoint) / 8`.
//   • Tuple metadata: count @8, labels @16, elements (type, offset) from @24. Function
//     metadata: flags @8 (parameter count in the low 16 bits), result @16, parameters from @24.
//     Metatype and existential metatype: instance type @8. Existential metadata: flags u32 @8
//     (bit 30: a superclass constraint), protocol count u32 @12, the superclass then the
//     protocol descriptors from @16. Opaque (builtin, 0x300) and foreign metadata are emitted
//     into images, never made at run time.

import RuntimeLayouts

extension MirrorMetadata {
    /// The deepest nesting of generic arguments, tuple elements and function parameters the
    /// check follows (real types nest a few levels; a planted metadata can nest without end).
    static let maximumTypeDepth = 12

    /// The most arguments, elements or parameters one metadata may list.
    static let maximumTypeArguments = 256

    /// Whether the type metadata at `metadata` may be handed to libswiftRemoteMirror: every
    /// metadata it leads the library to read (generic arguments, superclasses, tuple elements,
    /// function parameters, metatype instances, existential constraints) is of a known kind, a
    /// nominal type's descriptor is one an image lists, and the nesting is bounded.
    ///
    /// The library builds a type reference from every word of that tree, and its demangler
    /// aborts the whole process (`Demangler.cpp:373`, a null child added to a `TypeList`) when
    /// it names a bound generic type one of whose arguments names no valid type, such as a
    /// nominal type whose descriptor (planted on the heap) spells a context the demangler cannot
    /// parse. Real metadata always passes: the runtime makes nominal metadata only from the
    /// descriptors its images list.
    ///
    /// - Complexity: Cached per metadata address: each is checked once per analysis.
    func isReadableType(_ metadata: UInt) -> Bool {
        isReadableType(metadata, depth: 0)
    }

    private func isReadableType(_ metadata: UInt, depth: Int) -> Bool {
        if let known = typeChecks[metadata] { return known }
        guard depth < Self.maximumTypeDepth else { return false }
        // Provisionally refused: a metadata whose own tree leads back to it is refused.
        typeChecks[metadata] = false
        let accepted = checkType(metadata, depth: depth)
        typeChecks[metadata] = accepted
        return accepted
    }

    private func checkType(_ metadata: UInt, depth: Int) -> Bool {
        guard metadata >= 4096, metadata & 7 == 0, metadata < 1 << 47,
            memory.bytes(at: metadata, count: 16) != nil, let kind = memory.word(at: metadata)
        else { return false }
        let next = depth + 1
        switch kind {
        case 0:  // a class
            guard memory.bytes(at: metadata, count: 48) != nil, isClassMetadata(metadata),
                hasSuperclassChain(metadata)
            else { return false }
            var current = metadata
            for _ in 0..<Self.maximumSuperclasses {
                guard classArgumentsAreReadable(current, depth: next) else { return false }
                guard let superclass = memory.word(at: current + 8), superclass != 0 else {
                    return true
                }
                current = superclass
            }
            return false
        case 0x200, 0x201, 0x202:  // a struct, an enum, an optional
            guard let descriptor = memory.word(at: metadata + 8), isListedDescriptor(descriptor),
                let flags = memory.uint32(at: descriptor),
                flags & 0x1F == (kind == 0x200 ? 17 : 18)
            else { return false }
            return argumentsAreReadable(
                metadata + 16, descriptor: descriptor, header: descriptor + 28, flags: flags,
                depth: next)
        case 0x300, 0x203, 0x204, 0x307, 0x308:
            // Builtin, foreign, extended existential and fixed array metadata: accepted where
            // an image emitted it.
            return isInImage(metadata)
        case 0x301:  // a tuple
            guard let count = memory.word(at: metadata + 8), count <= Self.maximumTypeArguments,
                // The labels (a string the compiler emitted, or the runtime made from a mangled
                // name) are read as text only: they need only be readable.
                let labels = memory.word(at: metadata + 16),
                labels == 0 || memory.bytes(at: labels, count: 1) != nil
            else { return false }
            return (0..<count).allSatisfy { index in
                memory.word(at: metadata + 24 + 16 * index).map {
                    isReadableType($0, depth: next)
                } ?? false
            }
        case 0x302:  // a function: its result and parameters
            guard let flags = memory.word(at: metadata + 8),
                let result = memory.word(at: metadata + 16),
                isReadableType(result, depth: next)
            else { return false }
            return (0..<(flags & 0xFFFF)).allSatisfy { index in
                memory.word(at: metadata + 24 + 8 * index).map { isReadableType($0, depth: next) }
                    ?? false
            }
        case 0x304, 0x306:  // a metatype, an existential metatype
            guard let instance = memory.word(at: metadata + 8) else { return false }
            return isReadableType(instance, depth: next)
        case 0x303:  // an existential
            guard let flags = memory.uint32(at: metadata + 8),
                let count = memory.uint32(at: metadata + 12), count < 256
            else { return false }
            var at = metadata + 16
            if flags & (1 << 30) != 0 {
                guard let superclass = memory.word(at: at), isReadableType(superclass, depth: next)
                else { return false }
                at += 8
            }
            return (0..<UInt(count)).allSatisfy { index in
                memory.word(at: at + 8 * index).map { listedProtocols.contains($0) } ?? false
            }
        default:
            return false
        }
    }

    /// Whether the generic arguments of class metadata `metadata` (not its superclasses') are
    /// readable types; true for a class that is not generic.
    private func classArgumentsAreReadable(_ metadata: UInt, depth: Int) -> Bool {
        guard let descriptor = memory.word(at: metadata + 40),
            let flags = memory.uint32(at: descriptor)
        else { return false }
        guard flags & 0x80 != 0 else { return true }
        let offset: UInt
        if flags & (1 << 29) != 0 {
            // A resilient superclass: the class's own members follow the superclass's.
            guard let superclass = memory.word(at: metadata + 8), superclass != 0,
                let size = memory.uint32(at: superclass + 32),
                let point = memory.uint32(at: superclass + 36), size >= point
            else { return false }
            offset = UInt(size - point) / 8
        } else {
            guard let positive = memory.uint32(at: descriptor + 28),
                let immediate = memory.uint32(at: descriptor + 32), positive >= immediate
            else { return false }
            offset = UInt(positive - immediate)
        }
        guard offset < 1 << 16 else { return false }
        return argumentsAreReadable(
            metadata + 8 * offset, descriptor: descriptor, header: descriptor + 44,
            flags: flags, depth: depth)
    }

    /// Whether the key generic arguments at `arguments`, as the generic header at `header` of
    /// `descriptor` lists them, are readable types: each type parameter's metadata is checked;
    /// a value parameter is an integer. A type with parameter packs is accepted without its
    /// arguments checked (their counts lie elsewhere): libswiftRemoteMirror's failures on such
    /// a type are contained by ``RemoteMirror`` instead.
    private func argumentsAreReadable(
        _ arguments: UInt, descriptor: UInt, header: UInt, flags: UInt32, depth: Int
    ) -> Bool {
        guard flags & 0x80 != 0 else { return true }  // not generic
        guard let counts = memory.bytes(at: header + 8, count: 8) else { return false }
        let parameters = Int(counts.loadUnaligned(as: UInt16.self))
        let headerFlags = counts.loadUnaligned(fromByteOffset: 6, as: UInt16.self)
        guard parameters <= Self.maximumTypeArguments,
            let kinds = memory.bytes(at: header + 16, count: parameters)
        else { return false }
        if headerFlags & 1 != 0 { return true }  // type packs
        var index: UInt = 0
        for parameter in 0..<parameters {
            let kind = kinds.load(fromByteOffset: parameter, as: UInt8.self)
            guard kind & 0x80 != 0 else { continue }  // no key argument
            defer { index += 1 }
            switch kind & 0x3F {
            case 0:
                guard let argument = memory.word(at: arguments + 8 * index),
                    isReadableType(argument, depth: depth)
                else { return false }
            case 2: continue  // a value
            default: return false
            }
        }
        return true
    }

    /// Whether `address` lies in a loaded image (its file's view or its data).
    func isInImage(_ address: UInt) -> Bool {
        memory.images.image(containing: address) != nil
    }
}
