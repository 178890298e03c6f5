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

import RuntimeLayouts
import RetainGraphUtilities

extension RemoteLayoutCompiler {
    /// The layout of a standard collection's storage object, or nil for other classes.
    func collectionStorageLayout(typeName: String, typeRef: UInt64, metadata: UInt)
        -> RemoteLayout?
    {
        let arguments = mirror.genericArguments(of: typeRef)
        switch TypeNames.genericBase(typeName) {
        case "Swift._ContiguousArrayStorage":
            guard let element = arguments.first else { return nil }
            return arrayLayout(element: element)
        case "Swift._DictionaryStorage":
            guard arguments.count == 2 else { return nil }
            return dictionaryLayout(
                key: arguments[0], value: arguments[1], metadata: metadata)
        case "Swift._SetStorage":
            guard let element = arguments.first else { return nil }
            return setLayout(element: element, metadata: metadata)
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
                slots, base: .element(isObjects ? "an array" : collection),
                counting: .prefix(countOffset: 16, start: start), stride: shape.stride)
        ]
        return layout
    }

    private func dictionaryLayout(key: UInt64, value: UInt64, metadata: UInt)
        -> RemoteLayout
    {
        let collection =
            "[\(TypeNames.unqualified(name(of: key) ?? "?")): "
            + "\(TypeNames.unqualified(name(of: value) ?? "?"))]"
        var layout = RemoteLayout(typeName: "\(collection) storage", shape: .storage)
        let fields = fieldOffsets(
            metadata, fallback: ["_scale": 32, "_rawKeys": 48, "_rawValues": 56])
        guard let scale = fields["_scale"], let keys = fields["_rawKeys"],
            let values = fields["_rawValues"], let instanceSize = memory.uint32(at: metadata + 24)
        else {
            layout.problem = "storage fields not found"
            return layout
        }
        for (type, base, role) in [
            (key, keys, RoleBase.key(collection)), (value, values, RoleBase.value(collection)),
        ] {
            guard let shape = mirror.layout(ofType: type),
                let slots = valueSlots(of: type, nesting: 0),
                !slots.isEmpty
            else { continue }
            layout.regions.append(
                region(
                    slots, base: role,
                    counting: .hashed(
                        scaleOffset: scale, bitmapOffset: Int(instanceSize), baseOffset: base),
                    stride: shape.stride))
        }
        return layout
    }

    private func setLayout(element: UInt64, metadata: UInt) -> RemoteLayout {
        let collection = "Set<\(TypeNames.unqualified(name(of: element) ?? "?"))>"
        var layout = RemoteLayout(typeName: "\(collection) storage", shape: .storage)
        let fields = fieldOffsets(metadata, fallback: ["_scale": 32, "_rawElements": 48])
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
                slots, base: .element(collection),
                counting: .hashed(
                    scaleOffset: scale, bitmapOffset: Int(instanceSize), baseOffset: base),
                stride: shape.stride)
        ]
        return layout
    }

    private func region(
        _ slots: ValueSlots, base: RoleBase, counting: ElementRegion.Counting, stride: Int
    ) -> ElementRegion {
        ElementRegion(
            counting: counting, stride: max(stride, 1), element: remoteSlots(slots, base: base),
            dynamics: slots.dynamics.map {
                var dynamic = $0
                dynamic.base = base
                return dynamic
            })
    }

    /// The stored fields of instances of the class `metadata` by name (its superclasses'
    /// included: the storage fields are `__RawDictionaryStorage`'s and `__RawSetStorage`'s),
    /// with their offsets, or `fallback` when the mirror cannot lay the class out.
    private func fieldOffsets(_ metadata: UInt, fallback: [String: Int]) -> [String: Int] {
        var offsets: [String: Int] = [:]
        for child in storedFields(ofClass: metadata).fields ?? [] {
            offsets[child.name] = child.offset
        }
        return offsets["_scale"] == nil ? fallback : offsets
    }
}
