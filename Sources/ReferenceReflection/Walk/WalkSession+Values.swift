import RetainGraph

/// Reading values of any type in place: the dispatch on metadata kind.
extension WalkSession {
    /// Reads the value of `type` stored at `address` and records the references it holds.
    ///
    /// - Parameters:
    ///   - address: Memory inside a retained heap object, or a local copy the walker owns.
    ///   - nesting: How many values deep the read is, bounded by the limits.
    func visitValue(_ type: Any.Type, at address: UnsafeRawPointer, site: Site, nesting: Int) {
        guard nesting <= limits.maxValueNesting else {
            report(.limitReached, typeName: _typeName(type), "value nesting limit reached")
            isTruncated = true
            return
        }
        let metadata = TypeMetadata(type)
        switch metadata.kind {
        case .class:
            if let object = strongObject(at: address, site: site) {
                reach(object, site: site, kind: .strong)
            }
        case .optional:
            visitOptional(metadata, at: address, site: site, nesting: nesting)
        case .struct:
            visitStruct(metadata, at: address, site: site, nesting: nesting)
        case .enum:
            guard !RuntimeABI.valueLayout(of: type).isPOD else { return }
            guard metadata.nominalDescriptor?.fields != nil else {
                report(.missingMetadata, typeName: _typeName(type), "enum cases not reflectable")
                return
            }
            visitEnum(type, at: address, site: site, nesting: nesting)
        case .tuple:
            visitTuple(metadata, at: address, site: site, nesting: nesting)
        case .function:
            visitFunction(metadata, at: address, site: site, nesting: nesting)
        case .existential:
            visitExistential(metadata, at: address, site: site, nesting: nesting)
        case .metatype, .existentialMetatype, .opaque:
            return  // types are immortal; builtins hold nothing the walker can name
        case .foreignClass, .foreignReferenceType:
            report(
                .foreignObject, typeName: _typeName(type),
                "foreign (CF/C++) objects are not followed")
        default:
            report(.unrecognisedMetadata, typeName: _typeName(type), "\(metadata.kind): not read")
        }
    }

    /// Reads a value that lives in an `Any` (a payload, a collection element, an existential).
    ///
    /// An `Any` can hold another existential (`any P` copied generically); `type(of:)` on the
    /// `Any` looks through that nesting, and a cast to the dynamic type projects the value.
    func visitAny(_ value: Any, site: Site, nesting: Int) {
        func open<T>(_: T.Type) {
            guard let typed = value as? T else { return }
            withUnsafePointer(to: typed) { pointer in
                visitValue(T.self, at: UnsafeRawPointer(pointer), site: site, nesting: nesting + 1)
            }
        }
        let dynamicType: Any.Type = type(of: value)
        open(dynamicType)
    }

    private func visitOptional(
        _ metadata: TypeMetadata, at address: UnsafeRawPointer, site: Site, nesting: Int
    ) {
        guard let wrapped = metadata.valueGenericArgument(0) else {
            report(
                .unrecognisedMetadata, typeName: _typeName(metadata.type),
                "optional payload unknown")
            return
        }
        // Single-pointer payloads use the null pointer (and the first page) for `nil`.
        if wrapped.kind == .class || isClassBoundExistential(wrapped) || isThickFunction(wrapped) {
            guard RuntimeABI.word(at: address) >= RuntimeABI.leastValidPointer else { return }
            visitValue(wrapped.type, at: address, site: site, nesting: nesting + 1)
            return
        }
        guard !RuntimeABI.valueLayout(of: metadata.type).isPOD else { return }
        visitEnum(metadata.type, at: address, site: site, nesting: nesting)
    }

    private func visitStruct(
        _ metadata: TypeMetadata, at address: UnsafeRawPointer, site: Site, nesting: Int
    ) {
        let type = metadata.type
        guard !RuntimeABI.valueLayout(of: type).isPOD else { return }
        guard let descriptor = metadata.nominalDescriptor else {
            report(.unrecognisedMetadata, typeName: _typeName(type), "struct without descriptor")
            return
        }
        if let collection = StandardCollection(descriptor) {
            visitCollection(collection, metadata, at: address, site: site, nesting: nesting)
            return
        }
        if isLeafStruct(descriptor) { return }
        let layout = instanceLayout(of: metadata, typeName: _typeName(type, qualified: true))
        for field in layout.fields {
            visitField(field, base: address, site: site.appending(field.name), nesting: nesting + 1)
        }
    }

    /// Whether a struct is treated as holding nothing worth following: the standard library's
    /// structs other than its collections (`String`, `AnyHashable`, `Unmanaged`…), and
    /// Foundation's and Dispatch's value types (`Data`, `URL`, `Date`…), whose storage objects
    /// never explain a leak. Their classes (such as `Foundation.Timer`) are still read.
    private func isLeafStruct(_ descriptor: TypeDescriptor) -> Bool {
        if let known = leafStructs[descriptor] { return known }
        let isLeaf: Bool
        if StandardCollection.isStandardLibrary(descriptor) {
            isLeaf = true
        } else if let module = descriptor.moduleName {
            isLeaf = Self.leafStructModules.contains(module)
        } else {
            isLeaf = false
        }
        leafStructs[descriptor] = isLeaf
        return isLeaf
    }

    private static let leafStructModules: Set<String> = [
        "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization",
        "Dispatch", "_Concurrency", "Synchronization",
    ]

    /// Copies an enum value out and reads its active case's payload (the runtime's reflection,
    /// never `CustomReflectable`).
    func visitEnum(_ type: Any.Type, at address: UnsafeRawPointer, site: Site, nesting: Int) {
        func copyPayload<T>(_: T.Type) -> (caseName: String, payload: Any)? {
            let value = address.load(as: T.self)
            return RuntimeABI.enumPayload(of: value, type: T.self)
        }
        guard let (caseName, payload) = copyPayload(type) else { return }
        let isOptional = TypeMetadata(type).kind == .optional
        visitAny(payload, site: isOptional ? site : site.appending(caseName), nesting: nesting)
    }

    private func visitTuple(
        _ metadata: TypeMetadata, at address: UnsafeRawPointer, site: Site, nesting: Int
    ) {
        // TupleTypeMetadata: element count @8, labels @16, elements {type, offset} from @24.
        let count = Int(truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: 8))
        guard count >= 0, count < 1 << 12 else {
            report(.unrecognisedMetadata, typeName: _typeName(metadata.type), "implausible tuple")
            return
        }
        let labels = tupleLabels(metadata, count: count)
        for index in 0..<count {
            let element = 24 + 16 * index
            guard let elementType = RuntimeABI.pointer(at: metadata.address, offset: element),
                TypeMetadata(address: elementType).kind.isValueOrClass
            else { continue }
            // The element's offset is a 32-bit field off Apple platforms (the next 4 bytes are
            // padding), and never lies beyond the tuple: anything else is not read.
            let offset = Int(
                UInt32(
                    truncatingIfNeeded: RuntimeABI.word(at: metadata.address, offset: element + 8)))
            guard offset < RuntimeABI.valueLayout(of: metadata.type).size else {
                report(
                    .unrecognisedMetadata, typeName: _typeName(metadata.type),
                    "implausible tuple element offset")
                continue
            }
            visitValue(
                TypeMetadata(address: elementType).type, at: address + offset,
                site: site.appending(labels[index] ?? "\(index)"), nesting: nesting + 1)
        }
    }

    /// A tuple's element labels: a space-terminated list at +16 (null when none is labelled).
    private func tupleLabels(_ metadata: TypeMetadata, count: Int) -> [String?] {
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

    private func visitExistential(
        _ metadata: TypeMetadata, at address: UnsafeRawPointer, site: Site, nesting: Int
    ) {
        let flags = metadata.address.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        let specialProtocol = (flags >> 24) & 0x3F
        if specialProtocol == 1 { return }  // `any Error`: a boxed error, not followed
        if flags & 0x8000_0000 == 0 {  // class-bound: the first word is the object
            if let object = strongObject(at: address, site: site) {
                reach(object, site: site, kind: .strong)
            }
            return
        }
        func copy<T>(_: T.Type) -> Any { address.load(as: T.self) }
        visitAny(copy(metadata.type), site: site, nesting: nesting)
    }

    func isClassBoundExistential(_ metadata: TypeMetadata) -> Bool {
        guard metadata.kind == .existential else { return false }
        let flags = metadata.address.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        return flags & 0x8000_0000 == 0 && (flags >> 24) & 0x3F == 0
    }

    /// Function metadata flags: convention in bits 16–23 (0 = Swift, thick), differentiable
    /// bit 27.
    func isThickFunction(_ metadata: TypeMetadata) -> Bool {
        guard metadata.kind == .function else { return false }
        let flags = RuntimeABI.word(at: metadata.address, offset: 8)
        return (flags >> 16) & 0xFF == 0 && flags & 0x0800_0000 == 0
    }
}
