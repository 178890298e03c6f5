import RetainGraph

/// One stored property of a class or struct, with how it holds its value.
struct InstanceField {
    let name: String
    let type: Any.Type
    let offset: Int
    let ownership: ReferenceOwnership
}

/// The stored properties of a type that can hold references (trivial ones are dropped).
struct InstanceLayout {
    var fields: [InstanceField] = []
}

/// Reading class instances and structs through their stored properties.
extension WalkSession {
    /// Reads every stored property of a retained class instance.
    func expandInstance(_ object: AnyObject, id: ObjectID, depth: Int) {
        withExtendedLifetime(object) {
            let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            guard let isa = RuntimeABI.pointer(at: address) else { return }
            let metadata = TypeMetadata(address: isa)
            guard metadata.kind == .class else { return }
            let layout = instanceLayout(
                of: metadata, typeName: _typeName(metadata.type, qualified: true))
            let site = Site(holder: id, depth: depth, path: "", isCapture: false)
            for field in layout.fields {
                visitField(field, base: address, site: site.appending(field.name), nesting: 0)
            }
        }
    }

    /// Reads one stored property at `base + offset` according to its ownership.
    func visitField(_ field: InstanceField, base: UnsafeRawPointer, site: Site, nesting: Int) {
        let address = base + field.offset
        if field.ownership == .strong {
            visitValue(field.type, at: address, site: site, nesting: nesting)
        } else {
            visitReferenceStorage(field.ownership, referent: field.type, at: address, site: site)
        }
    }

    /// The stored properties of a class (with its superclasses') or struct, cached per type.
    ///
    /// Types without reflection metadata are reported once and contribute no fields; a field
    /// whose reference storage cannot be identified is reported and skipped, never read.
    func instanceLayout(of metadata: TypeMetadata, typeName: String) -> InstanceLayout {
        if let cached = instanceLayouts[metadata] { return cached }
        var layout = InstanceLayout()
        defer { instanceLayouts[metadata] = layout }
        guard metadata.kind == .class || metadata.kind == .struct else { return layout }
        var hasFieldMetadata = false
        var current: TypeMetadata? = metadata
        var hops = 0
        while let type = current, hops < 64 {
            guard let descriptor = type.nominalDescriptor else {
                report(.unrecognisedMetadata, typeName: typeName, "a superclass has no descriptor")
                return layout
            }
            if descriptor.fields == nil {
                report(
                    .missingMetadata, typeName: _typeName(type.type, qualified: true),
                    "stored properties not reflectable (no field metadata); only declared edges")
            } else {
                hasFieldMetadata = true
            }
            current = type.superclass
            hops += 1
        }
        guard hasFieldMetadata else { return layout }
        for field in RuntimeABI.storedFields(of: metadata) {
            if case .unknown = TypeMetadata(field.type).kind {
                report(
                    .unrecognisedMetadata, typeName: typeName, "field \(field.name): unknown kind")
                continue
            }
            if field.isStrong {
                guard !RuntimeABI.valueLayout(of: field.type).isPOD else { continue }
                layout.fields.append(
                    InstanceField(
                        name: field.name, type: field.type, offset: field.offset, ownership: .strong
                    ))
                continue
            }
            let ownership = field.namePointer.flatMap {
                RuntimeABI.ownership(ofFieldNamed: $0, name: field.name, in: metadata)
            }
            guard let ownership, ownership != .strong else {
                report(
                    .unrecognisedMetadata, typeName: typeName,
                    "field \(field.name): reference storage not recognised; not read")
                continue
            }
            layout.fields.append(
                InstanceField(
                    name: field.name, type: field.type, offset: field.offset, ownership: ownership))
        }
        return layout
    }
}
