// PRIVATE SWIFT RUNTIME DETAILS (standard library storage classes), read remotely.
//
// Relied on (Swift 6.3, 64-bit):
//   • Class metadata: instance size u32 @24.
//   • `_ContiguousArrayStorage<Element>`: count (Int) @16, elements from @32 rounded up to the
//     element's alignment.
//   • `_DictionaryStorage<Key, Value>` / `_SetStorage<Element>`: stored fields `_scale` (Int8),
//     `_rawKeys`/`_rawValues` (dictionary) or `_rawElements` (set); the occupied-bucket bitmap
//     is tail-allocated at the instance size; `1 << _scale` buckets. When the mirror cannot
//     lay the instance out, the standard library's fixed layout of `__RawDictionaryStorage`
//     and `__RawSetStorage` is used: `_scale` @32, `_rawKeys`/`_rawElements` @48,
//     `_rawValues` @56.

extension RemoteLayoutCompiler {
    /// The layout of a standard collection's storage object, or nil for other classes.
    func collectionStorageLayout(
        typeName: String, typeRef: UInt64, metadata: UInt, sample: UInt
    ) -> RemoteLayout? {
        let arguments = mirror.genericArguments(of: typeRef)
        switch TypeNames.base(typeName) {
        case "Swift._ContiguousArrayStorage":
            guard let element = arguments.first else { return nil }
            return arrayLayout(element: element)
        case "Swift._DictionaryStorage":
            guard arguments.count == 2 else { return nil }
            return dictionaryLayout(
                key: arguments[0], value: arguments[1], metadata: metadata, sample: sample)
        case "Swift._SetStorage":
            guard let element = arguments.first else { return nil }
            return setLayout(element: element, metadata: metadata, sample: sample)
        default:
            return nil
        }
    }

    private func arrayLayout(element: UInt64) -> RemoteLayout {
        let elementName = name(of: element) ?? "?"
        // Arrays of class instances share `_ContiguousArrayStorage<AnyObject>`.
        let isObjects = elementName == "Swift.AnyObject" || elementName == "AnyObject"
        let collection = "[\(TypeNames.unqualified(elementName))]"
        var layout = RemoteLayout(
            typeName: isObjects ? "array storage" : "\(collection) storage", shape: .storage)
        guard let shape = mirror.layout(ofType: element),
            let slots = valueSlots(of: element, nesting: 0)
        else {
            layout.problem = "element type not described"
            return layout
        }
        guard !slots.isEmpty else { return layout }
        let alignment = max(shape.alignment, 1)
        let start = (32 + alignment - 1) & ~(alignment - 1)
        layout.regions = [
            region(
                slots.placed(
                    at: 0, under: isObjects ? "element of an array" : "element of \(collection)"),
                counting: .prefix(countOffset: 16, start: start), stride: shape.stride)
        ]
        return layout
    }

    private func dictionaryLayout(key: UInt64, value: UInt64, metadata: UInt, sample: UInt)
        -> RemoteLayout
    {
        let collection =
            "[\(TypeNames.unqualified(name(of: key) ?? "?")): "
            + "\(TypeNames.unqualified(name(of: value) ?? "?"))]"
        var layout = RemoteLayout(typeName: "\(collection) storage", shape: .storage)
        let fields = fieldOffsets(
            sample, fallback: ["_scale": 32, "_rawKeys": 48, "_rawValues": 56])
        guard let scale = fields["_scale"], let keys = fields["_rawKeys"],
            let values = fields["_rawValues"], let instanceSize = memory.uint32(at: metadata + 24)
        else {
            layout.problem = "storage fields not found"
            return layout
        }
        for (type, base, label) in [
            (key, keys, "key of \(collection)"), (value, values, "value of \(collection)"),
        ] {
            guard let shape = mirror.layout(ofType: type),
                let slots = valueSlots(of: type, nesting: 0),
                !slots.isEmpty
            else { continue }
            layout.regions.append(
                region(
                    slots.placed(at: 0, under: label),
                    counting: .hashed(
                        scaleOffset: scale, bitmapOffset: Int(instanceSize), baseOffset: base),
                    stride: shape.stride))
        }
        return layout
    }

    private func setLayout(element: UInt64, metadata: UInt, sample: UInt) -> RemoteLayout {
        let collection = "Set<\(TypeNames.unqualified(name(of: element) ?? "?"))>"
        var layout = RemoteLayout(typeName: "\(collection) storage", shape: .storage)
        let fields = fieldOffsets(sample, fallback: ["_scale": 32, "_rawElements": 48])
        guard let scale = fields["_scale"], let base = fields["_rawElements"],
            let instanceSize = memory.uint32(at: metadata + 24)
        else {
            layout.problem = "storage fields not found"
            return layout
        }
        guard let shape = mirror.layout(ofType: element),
            let slots = valueSlots(of: element, nesting: 0), !slots.isEmpty
        else { return layout }
        layout.regions = [
            region(
                slots.placed(at: 0, under: "member of \(collection)"),
                counting: .hashed(
                    scaleOffset: scale, bitmapOffset: Int(instanceSize), baseOffset: base),
                stride: shape.stride)
        ]
        return layout
    }

    private func region(_ slots: ValueSlots, counting: ElementRegion.Counting, stride: Int)
        -> ElementRegion
    {
        ElementRegion(
            counting: counting, stride: max(stride, 1),
            element: slots.slots.map {
                LayoutSlot(offset: $0.offset, ownership: $0.ownership, label: labelNumber($0.label))
            },
            dynamics: slots.dynamics)
    }

    /// The stored fields of the instance at `sample` by name, with their offsets, or
    /// `fallback` when the mirror cannot lay the instance out.
    private func fieldOffsets(_ sample: UInt, fallback: [String: Int]) -> [String: Int] {
        var offsets: [String: Int] = [:]
        for child in mirror.layout(ofInstance: sample)?.children ?? [] {
            offsets[child.name] = child.offset
        }
        return offsets.isEmpty ? fallback : offsets
    }
}
