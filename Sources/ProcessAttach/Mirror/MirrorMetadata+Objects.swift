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
//   • `_DictionaryStorage<Key, Value>` / `_SetStorage<Element>`: stored fields `_scale` (Int8),
//     `_rawKeys`/`_rawValues` (dictionary) or `_rawElements` (set), the bitmap tail-allocated
//     at the instance size. When the mirror cannot lay the instance out, the standard library's
//     fixed layout of `__RawDictionaryStorage` and `__RawSetStorage`: `_scale` @32,
//     `_rawKeys`/`_rawElements` @48, `_rawValues` @56.

import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

extension MirrorMetadata {
    func classFields(ofMetadata metadata: UInt) -> (fields: [TypeChild], problem: String?)? {
        var fields: [TypeChild] = []
        var unlaidOut: [String] = []
        var current = metadata
        var hops = 0
        while current != 0, hops < 64 {
            if let own = mirror.layout(ofClass: current), own.kind == .classInstance {
                var children = own.children.map { child($0, name: $0.name) }
                // A field the mirror could not type (a noncopyable `Mutex`, whose record names an
                // accessor): typed from the class's own records when they name it.
                if children.contains(where: { $0.type == nil && $0.storage == nil }),
                    let described = describedFields(ofClass: current)
                {
                    for index in children.indices
                    where children[index].type == nil && children[index].storage == nil {
                        children[index].type =
                            described.first { $0.offset == children[index].offset }?.type
                    }
                }
                fields += children
            } else if let described = describedFields(ofClass: current) {
                fields += described
                if described.contains(where: { $0.type == nil && $0.storage == nil }) {
                    unlaidOut.append(
                        classType(ofMetadata: current).flatMap(name(of:)) ?? "a class")
                }
            } else if current == metadata {
                return nil
            }
            current = superclass(ofClassMetadata: current) ?? 0
            hops += 1
        }
        let problem =
            unlaidOut.isEmpty
            ? nil
            : "fields whose type could not be named (in \(unlaidOut.joined(separator: ", "))): "
                + "read conservatively"
        return (fields.sorted { $0.offset < $1.offset }, problem)
    }

    /// The fields a class declares itself, by name and offset, read from its descriptor's
    /// field records and its metadata's field offset vector, each with its type when the
    /// mirror can name it (a noncopyable field's, found through its accessor's symbol); the
    /// others have no type and are read conservatively up to the next field.
    private func describedFields(ofClass metadata: UInt) -> [TypeChild]? {
        guard let descriptor = memory.word(at: metadata + 40), descriptor != 0,
            let flags = memory.uint32(at: descriptor), flags & 0x1F == 16,  // a class
            flags & (1 << 29) == 0,  // no resilient superclass
            let fieldsAt = memory.relativePointer(at: descriptor + 16),
            let count = memory.uint32(at: descriptor + 36),
            let vector = memory.uint32(at: descriptor + 40),
            let recordCount = memory.uint32(at: fieldsAt + 12),
            let recordSize = memory.bytes(at: fieldsAt + 10, count: 2)?.loadUnaligned(
                as: UInt16.self),
            count == recordCount, count < 4096, recordSize >= 12
        else { return nil }
        var fields: [TypeChild] = []
        for index in 0..<UInt(count) {
            let record = fieldsAt + 16 + index * UInt(recordSize)
            guard let offset = memory.word(at: metadata + 8 * (UInt(vector) + index)),
                offset < 1 << 32,
                let nameAt = memory.relativePointer(at: record + 8),
                let nameBytes = memory.cString(at: nameAt)
            else { return nil }
            let name = PrintableText.decoding(nameBytes)
            var type: TypeHandle?
            if let typeAt = memory.relativePointer(at: record + 4) {
                type = fieldType(mangledNameAt: typeAt)
            }
            fields.append(TypeChild(name: name, offset: Int(offset), type: type))
        }
        return fields
    }

    /// The type a field record's mangled name at `address` names, when the mirror can describe
    /// it: a plain name through the mirror, an accessor reference (a noncopyable type such as a
    /// `Mutex`) through the accessor's local symbol in the image's full symbol table.
    private func fieldType(mangledNameAt address: UInt) -> TypeHandle? {
        if memory.bytes(at: address, count: 1)?.load(as: UInt8.self)
            == HiddenFieldTypes.accessorMarker
        {
            // The name itself (`\xFF\x09<rel32>\0`) is a local data symbol named after the type.
            guard let image = memory.images.image(containing: address),
                let symbol = image.symbol(containing: address),
                let mangled = HiddenFieldTypes.mangledType(inAccessorSymbol: symbol.name)
            else { return nil }
            // A generic signature (`R…l`) has no meaning outside its type: the type follows it.
            var candidates = [Substring(mangled)]
            if mangled.first == "R" || mangled.first == "l" {
                candidates = mangled.indices.filter { mangled[$0] == "l" }.map {
                    mangled[mangled.index(after: $0)...]
                }
            }
            for candidate in candidates where !candidate.isEmpty {
                let typeRef = mirror.typeRef(forMangledName: String(candidate))
                if typeRef != 0, shape(of: TypeHandle(typeRef)) != nil {
                    return TypeHandle(typeRef)
                }
            }
            return nil
        }
        var named = mirror.typeRef(forMangledNameAt: address)
        if named == 0, let text = textualMangledName(at: address) {
            // The mirror did not resolve the name's symbolic references in place: spelled out.
            named = mirror.typeRef(forMangledName: text)
        }
        guard named != 0, shape(of: TypeHandle(named)) != nil else { return nil }
        return TypeHandle(named)
    }

    /// The mangled name at `address` with each symbolic reference to a type's descriptor
    /// (marker 1 direct, 2 indirect, then a 32-bit relative offset) spelled out as the type's
    /// module and names (`\x01<offset>Sg` → `3App8ListenerCSg`); nil when a reference is of
    /// another kind or its context cannot be spelled (an extension, an anonymous context).
    func textualMangledName(at address: UInt) -> String? {
        var text = ""
        var at = address
        for _ in 0..<512 {
            guard let byte = memory.bytes(at: at, count: 1)?.load(as: UInt8.self) else {
                return nil
            }
            switch byte {
            case 0: return text
            case 1, 2:
                guard var descriptor = memory.relativePointer(at: at + 1) else { return nil }
                if byte == 2 {
                    guard let target = memory.word(at: descriptor) else { return nil }
                    descriptor = target
                }
                guard let spelled = spelledContext(descriptor, depth: 0) else { return nil }
                text += spelled
                at += 5
            case 3...0x1F: return nil
            default:
                text.unicodeScalars.append(Unicode.Scalar(byte))
                at += 1
            }
        }
        return nil
    }

    /// A module, class, struct or enum context descriptor spelled as a mangled name.
    private func spelledContext(_ descriptor: UInt, depth: Int) -> String? {
        guard depth < 16, let flags = memory.uint32(at: descriptor),
            let nameAt = memory.relativePointer(at: descriptor + 8),
            let bytes = memory.cString(at: nameAt, limit: 256), !bytes.isEmpty,
            bytes.allSatisfy({ $0 < 0x80 && $0 != 0x20 })
        else { return nil }
        let name = "\(bytes.count)" + String(decoding: bytes, as: UTF8.self)
        let suffix: String
        switch flags & 0x1F {
        case 0: return name  // a module
        case 16: suffix = "C"
        case 17: suffix = "V"
        case 18: suffix = "O"
        default: return nil
        }
        // The parent: a relative pointer that may be indirect (its low bit set).
        guard let raw = memory.bytes(at: descriptor + 4, count: 4)?.loadUnaligned(as: Int32.self),
            raw != 0
        else { return nil }
        var parent = UInt(bitPattern: Int(bitPattern: descriptor + 4) &+ Int(raw & ~1))
        if raw & 1 != 0 {
            guard let target = memory.word(at: parent) else { return nil }
            parent = target
        }
        guard let enclosing = spelledContext(parent, depth: depth + 1) else { return nil }
        return enclosing + name + suffix
    }

    func collectionStorage(ofClassMetadata metadata: UInt) -> CollectionStorage? {
        guard let type = classType(ofMetadata: metadata), let name = name(of: type) else {
            return nil
        }
        let arguments = mirror.genericArguments(of: type.raw).map(TypeHandle.init)
        let kind: CollectionStorage.Kind
        var fallback: [String: Int]
        switch TypeNames.genericBase(name) {
        case "Swift._ContiguousArrayStorage":
            return CollectionStorage(kind: .array, arguments: Array(arguments.prefix(1)))
        case "Swift._DictionaryStorage":
            kind = .dictionary
            fallback = ["_scale": 32, "_rawKeys": 48, "_rawValues": 56]
        case "Swift._SetStorage":
            kind = .set
            fallback = ["_scale": 32, "_rawElements": 48]
        default:
            return nil
        }
        var storage = CollectionStorage(kind: kind, arguments: arguments)
        var offsets: [String: Int] = [:]
        for field in classFields(ofMetadata: metadata)?.fields ?? [] {
            offsets[field.name] = field.offset
        }
        if offsets["_scale"] == nil { offsets = fallback }
        storage.scaleOffset = offsets["_scale"] ?? 32
        storage.baseOffsets = (kind == .set ? ["_rawElements"] : ["_rawKeys", "_rawValues"])
            .compactMap { offsets[$0] }
        storage.instanceSize = instanceSize(ofClassMetadata: metadata) ?? 0
        return storage
    }

    func captures(ofContextMetadata metadata: UInt, sample: UInt?) -> ContextCaptures {
        var result = ContextCaptures()
        result.firstCaptureOffset = memory.uint32(at: metadata + 8).map { Int($0) } ?? 16
        guard let descriptor = memory.word(at: metadata + 16), descriptor != 0 else {
            result.problem = "no capture descriptor: captures read conservatively"
            return result
        }
        if let bindings = memory.uint32(at: descriptor + 8), bindings != 0 {
            result.problem = "generic closure context: captures read conservatively"
            result.dependsOnInstance = true
            return result
        }
        result.typeNames = captureTypeNames(descriptor: descriptor)
        guard let sample, let context = mirror.layout(ofInstance: sample),
            context.kind == .closureContext
        else {
            result.problem = "captures not described: read conservatively"
            return result
        }
        for child in context.children {
            let typeName = child.typeRef == 0 ? "" : name(of: TypeHandle(child.typeRef)) ?? ""
            if child.kind == .thickFunction {
                result.captures.append(
                    .init(offset: child.offset, content: .thickFunction, name: "closure"))
            } else if Self.isBoxTypeName(typeName) {
                result.captures.append(.init(offset: child.offset, content: .box, name: "var"))
            } else {
                let captured = self.child(child, name: "")
                let content: ContextCaptures.Content
                if let storage = captured.storage {
                    content = .value(captured.type ?? TypeHandle(child.typeRef), storage: storage)
                } else if let type = captured.type {
                    content = .value(type, storage: nil)
                } else {
                    result.problem = "a capture the mirror cannot describe: read conservatively"
                    result.decodedEnd = child.offset
                    break
                }
                result.captures.append(
                    .init(
                        offset: child.offset, content: content,
                        name: TypeNames.captureName(typeName)))
            }
        }
        return result
    }

    /// The qualified names of the capture types the non-generic capture descriptor at
    /// `descriptor` lists (u32 capture count, then one relative mangled-name pointer per
    /// capture @12), named by the mirror; empty when any is unknown or the count implausible.
    private func captureTypeNames(descriptor: UInt) -> [String] {
        guard let count = memory.uint32(at: descriptor), count <= 64 else { return [] }
        var names: [String] = []
        for index in 0..<UInt(count) {
            guard let address = memory.relativePointer(at: descriptor &+ 12 &+ 4 &* index) else {
                return []
            }
            let type = mirror.typeRef(forMangledNameAt: address)
            if type != 0, let name = name(of: TypeHandle(type)) {
                names.append(name)
            } else if let name = memory.referencedTypeName(mangledNameAt: address) {
                names.append(name)
            } else {
                return []
            }
        }
        return names
    }

    /// Whether a capture of this type is the box of a captured `var`: the remote demangler
    /// spells a box's type as a SIL box (`<> { var Swift.Int } <>`, or ` { var Swift.Int } `
    /// once empty generic brackets are dropped from names), or gives no name or a builtin
    /// one; no Swift type's name starts with `<` or `{`.
    static func isBoxTypeName(_ name: String) -> Bool {
        let name = name.drop { $0 == " " }
        return name.isEmpty || name.hasPrefix("Builtin.") || name.first == "<"
            || name.first == "{"
    }

    func enumCase(of type: TypeHandle, copy: UnsafeMutableRawPointer, address: UInt)
        -> (name: String, payload: TypeHandle?, isIndirect: Bool)?
    {
        guard let index = mirror.enumCase(at: address, typeRef: type.raw),
            let layout = mirror.layout(ofType: type.raw), index < layout.children.count
        else { return nil }
        let payload = layout.children[index]
        guard payload.typeRef != 0 else { return (payload.name, nil, false) }
        // An indirect case's payload is a box: the mirror reports a strong reference where the
        // payload's own type is not one.
        let isIndirect =
            payload.kind == .strongReference
            && shape(of: TypeHandle(payload.typeRef))?.kind != .strongReference
        return (payload.name, TypeHandle(payload.typeRef), isIndirect)
    }

    func existentialContents(of type: TypeHandle, copy: UnsafeRawPointer, address: UInt)
        -> (type: TypeHandle, isBoxed: Bool)?
    {
        // An opaque existential's buffer (3 words) is followed by its value's type metadata, a
        // word the target controls: the mirror names that type only when it passes the check.
        let dynamicMetadata = copy.loadUnaligned(fromByteOffset: 24, as: UInt.self)
        guard isReadableType(dynamicMetadata),
            let (dynamic, value) = mirror.projectExistential(at: address, typeRef: type.raw),
            dynamic != 0
        else { return nil }
        return (TypeHandle(dynamic), value != address)
    }
}
