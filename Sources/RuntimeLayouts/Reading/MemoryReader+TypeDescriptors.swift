// PRIVATE SWIFT RUNTIME DETAILS: a mangled type name's symbolic reference to a type's context
// descriptor (marker 1: a 32-bit relative offset to the descriptor; marker 2: to a pointer to
// it), and a context descriptor's flags u32 @0 (kind in bits 0–4, 0 a module), parent relative
// pointer @4 (indirect when its low bit is set) and name relative pointer @8.

import RetainGraphUtilities

extension MemoryReader {
    /// `Module.Name` for a mangled name at `address` that starts with a symbolic reference to a
    /// type's context descriptor, the contexts between the module and the type unspelled.
    ///
    /// Neither this process's runtime nor the remote mirror resolves some such names without a
    /// generic context (`Task<Never, Never>.UnsafeSleepStateToken`, nested in a constrained
    /// extension); what the descriptor says is enough to recognise a known type. Names read
    /// from another process are escaped.
    ///
    /// - Parameter address: The mangled name's first byte.
    /// - Returns: The type's module and name, or nil for any other name or an unreadable one.
    package func referencedTypeName(mangledNameAt address: UInt) -> String? {
        guard let marker = bytes(at: address, count: 1)?.load(as: UInt8.self),
            marker == 1 || marker == 2, var descriptor = relativePointer(at: address &+ 1)
        else { return nil }
        if marker == 2 {
            guard let target = word(at: descriptor) else { return nil }
            descriptor = target
        }
        guard let typeName = contextName(descriptor) else { return nil }
        var context = descriptor
        for _ in 0..<16 {
            guard let raw = bytes(at: context &+ 4, count: 4)?.loadUnaligned(as: Int32.self),
                raw != 0
            else { return nil }
            context = UInt(bitPattern: Int(bitPattern: context &+ 4) &+ Int(raw & ~1))
            if raw & 1 != 0 {
                guard let target = word(at: context) else { return nil }
                context = target
            }
            guard let flags = uint32(at: context) else { return nil }
            if flags & 0x1F == 0 { return contextName(context).map { $0 + "." + typeName } }
        }
        return nil
    }

    /// The name of the context descriptor at `descriptor`, escaped.
    private func contextName(_ descriptor: UInt) -> String? {
        guard let at = relativePointer(at: descriptor &+ 8),
            let bytes = cString(at: at, limit: 256), !bytes.isEmpty
        else { return nil }
        return PrintableText.escaped(String(decoding: bytes, as: UTF8.self))
    }
}
