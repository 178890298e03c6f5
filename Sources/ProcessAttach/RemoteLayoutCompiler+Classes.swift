// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit, no Objective-C interop), read remotely.
//
// Relied on:
//   • Class metadata: superclass @8, nominal type descriptor @40; the field offset vector at
//     word `fieldOffsetVectorOffset` of the metadata, one word per field of the class itself.
//   • Class descriptor: flags u32 @0 (bit 29: a resilient superclass, whose field offset vector
//     moves), fields (a relative pointer to the field descriptor) @16, numFields u32 @36,
//     fieldOffsetVectorOffset u32 @40.
//   • Field descriptor: numFields u32 @12, then records of fieldRecordSize (u16 @10) bytes:
//     flags u32, the type's mangled name (relative, into `swift5_typeref`), the field's name
//     (relative, a C string).

extension RemoteLayoutCompiler {
    /// The stored properties of instances of the class `metadata`, its superclasses' included,
    /// by offset: as the mirror describes each class's own, or, for a class the mirror cannot
    /// lay out (a field of a type it cannot lower, such as the raw layouts of `Atomic` and
    /// `Mutex`), by name and offset alone from the class's descriptor and metadata, each of
    /// those fields then read conservatively.
    ///
    /// - Returns: The fields (nil when the class itself has no field metadata at all), and the
    ///   names of the classes read from their descriptors.
    func storedFields(ofClass metadata: UInt) -> (fields: [MirrorChild]?, unlaidOut: [String]) {
        var fields: [MirrorChild] = []
        var unlaidOut: [String] = []
        var current = metadata
        var hops = 0
        while current != 0, hops < 64 {
            if let own = mirror.layout(ofClass: current), own.kind == .classInstance {
                fields += own.children
            } else if let described = describedFields(ofClass: current) {
                fields += described
                if !described.isEmpty {
                    unlaidOut.append(name(of: mirror.typeRef(forMetadata: current)) ?? "a class")
                }
            } else if current == metadata {
                return (nil, [])
            }
            current = memory.word(at: current + 8) ?? 0  // the superclass
            hops += 1
        }
        return (fields.sorted { $0.offset < $1.offset }, unlaidOut)
    }

    /// The fields a class declares itself, by name and offset, read from its descriptor's
    /// field records and its metadata's field offset vector, each with its type when the
    /// mirror can lay that out alone; the others have kind `.unknown` (no type), and are read
    /// conservatively up to the next field.
    private func describedFields(ofClass metadata: UInt) -> [MirrorChild]? {
        guard let descriptor = memory.word(at: metadata + 40), descriptor != 0,
            let flags = memory.uint32(at: descriptor), flags & 0x1F == 16,  // a class
            flags & (1 << 29) == 0,  // no resilient superclass
            let fieldsAt = relative(at: descriptor + 16),
            let count = memory.uint32(at: descriptor + 36),
            let vector = memory.uint32(at: descriptor + 40),
            let recordCount = memory.uint32(at: fieldsAt + 12),
            let recordSize = memory.bytes(at: fieldsAt + 10, count: 2)?.loadUnaligned(
                as: UInt16.self),
            count == recordCount, count < 4096, recordSize >= 12
        else { return nil }
        var fields: [MirrorChild] = []
        for index in 0..<UInt(count) {
            let record = fieldsAt + 16 + index * UInt(recordSize)
            guard let offset = memory.word(at: metadata + 8 * (UInt(vector) + index)),
                offset < 1 << 32,
                let nameAt = relative(at: record + 8), let name = cString(at: nameAt)
            else { return nil }
            // The field's type, when the mirror can name and lay it out; otherwise none, and
            // the field is read conservatively.
            var kind = MirrorKind.unknown
            var typeRef: UInt64 = 0
            if let typeAt = relative(at: record + 4) {
                let named = mirror.typeRef(forMangledNameAt: typeAt)
                if let layout = mirror.layout(ofType: named) {
                    kind = layout.kind
                    typeRef = named
                }
            }
            fields.append(
                MirrorChild(name: name, offset: Int(offset), kind: kind, typeRef: typeRef))
        }
        return fields
    }

    /// The target of the 32-bit relative pointer at `address` (nil for a null one).
    private func relative(at address: UInt) -> UInt? {
        guard let raw = memory.bytes(at: address, count: 4)?.loadUnaligned(as: Int32.self),
            raw != 0
        else { return nil }
        return UInt(bitPattern: Int(bitPattern: address) &+ Int(raw))
    }

    /// The C string at `address`, if it ends within 256 bytes of what was read.
    private func cString(at address: UInt) -> String? {
        for length in [256, 64, 16] {
            guard let bytes = memory.bytes(at: address, count: length) else { continue }
            let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
            guard let end = buffer.firstIndex(of: 0) else { return nil }
            return String(decoding: buffer[..<end], as: UTF8.self)
        }
        return nil
    }
}
