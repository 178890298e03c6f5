// PRIVATE SWIFT RUNTIME DETAILS (standard library storage classes, closure contexts).
//
// Relied on (Swift 6.3, 64-bit, no Objective-C interop):
//   • Class metadata: instance size u32 @24, nominal descriptor @40. A class's generic
//     arguments start at word (positive size − immediate members) of its metadata, both u32 in
//     the class descriptor @28 and @32, when the class has no resilient superclass.
//   • `_ContiguousArrayStorage<Element>`: count (Int) @16, elements from @32 rounded up to the
//     element's alignment.
//   • `_DictionaryStorage<Key, Value>` / `_SetStorage<Element>`: stored fields `_scale` (Int8),
//     `_rawKeys`/`_rawValues` (dictionary) or `_rawElements` (set); the occupied-bucket bitmap
//     is tail-allocated at the instance size; `1 << _scale` buckets.

import ObjectGraph
import RetainGraphUtilities

extension LayoutCompiler {
    private enum StorageKind { case array, dictionary, set }

    /// Storage class descriptors, found from live collections of the running standard library.
    private static let storageDescriptors: [UInt: StorageKind] = {
        var known: [UInt: StorageKind] = [:]
        func add(_ storage: AnyObject, _ kind: StorageKind) {
            let isa = UnsafeRawPointer(Unmanaged.passUnretained(storage).toOpaque())
            if let metadata = RuntimeABI.pointer(at: isa),
                let descriptor = TypeMetadata(address: metadata).nominalDescriptor
            {
                known[UInt(bitPattern: descriptor.address)] = kind
            }
        }
        var array = [AnyObject]()
        array.reserveCapacity(1)
        var dictionary = [Int: AnyObject]()
        dictionary.reserveCapacity(1)
        var set = Set<Int>()
        set.reserveCapacity(1)
        add(unsafeBitCast(array, to: AnyObject.self), .array)
        add(unsafeBitCast(dictionary, to: AnyObject.self), .dictionary)
        add(unsafeBitCast(set, to: AnyObject.self), .set)
        return known
    }()

    /// The `index`th generic argument of a generic class's metadata.
    static func classGenericArgument(_ metadata: TypeMetadata, _ index: Int) -> TypeMetadata? {
        guard metadata.kind == .class,
            let descriptor = RuntimeABI.pointer(at: metadata.address, offset: 40, alignment: 4)
        else { return nil }
        let flags = descriptor.loadUnaligned(as: UInt32.self)
        let hasResilientSuperclass = flags & (1 << 29) != 0
        guard !hasResilientSuperclass else { return nil }
        let positive = Int(descriptor.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        let immediate = Int(descriptor.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
        let word = positive - immediate + index
        guard word > 5, word < 1 << 16,
            let argument = RuntimeABI.pointer(at: metadata.address, offset: 8 * word)
        else { return nil }
        let type = TypeMetadata(address: argument)
        return type.kind.isValueOrClass ? type : nil
    }

    /// The layout of a standard collection's storage object, or nil for other classes.
    static func collectionStorageLayout(_ metadata: TypeMetadata) -> ObjectLayout? {
        guard let descriptor = metadata.nominalDescriptor,
            let kind = storageDescriptors[UInt(bitPattern: descriptor.address)]
        else { return nil }
        let instanceSize = Int(metadata.address.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
        switch kind {
        case .array:
            guard let element = classGenericArgument(metadata, 0) else {
                return unreadableStorage("array storage", "element type unknown")
            }
            // Arrays of class instances share `_ContiguousArrayStorage<AnyObject>`.
            let isObjects = element.type == AnyObject.self
            let name = isObjects ? "array" : "[\(_typeName(element.type, qualified: false))]"
            var layout = ObjectLayout(
                shape: .collectionStorage, typeName: isObjects ? "array storage" : "\(name) storage"
            )
            let shape = RuntimeABI.valueLayout(of: element.type)
            guard !shape.isPOD else { return layout }
            var elementLayout = ValueLayout()
            appendValue(
                element, at: 0, base: .element(isObjects ? "an array" : name), path: "",
                into: &elementLayout, nesting: 0)
            let start = (32 + shape.alignment - 1) & ~(shape.alignment - 1)
            layout.regions = [
                ElementRegion(
                    counting: .prefix(countOffset: 16, start: start),
                    stride: strideOf(element),
                    element: elementLayout)
            ]
            return layout
        case .dictionary:
            guard let key = classGenericArgument(metadata, 0),
                let value = classGenericArgument(metadata, 1)
            else { return unreadableStorage("dictionary storage", "key or value type unknown") }
            let name =
                "[\(_typeName(key.type, qualified: false)): \(_typeName(value.type, qualified: false))]"
            var layout = ObjectLayout(shape: .collectionStorage, typeName: "\(name) storage")
            let fields = fieldOffsets(metadata)
            guard let scale = fields["_scale"], let keys = fields["_rawKeys"],
                let values = fields["_rawValues"]
            else { return unreadableStorage(layout.typeName, "storage fields not found") }
            for (type, base, role) in [
                (key, keys, RoleBase.key(name)), (value, values, RoleBase.value(name)),
            ] where !RuntimeABI.valueLayout(of: type.type).isPOD {
                var elementLayout = ValueLayout()
                appendValue(type, at: 0, base: role, path: "", into: &elementLayout, nesting: 0)
                layout.regions.append(
                    ElementRegion(
                        counting: .hashed(
                            scaleOffset: scale, bitmapOffset: instanceSize, baseOffset: base),
                        stride: strideOf(type), element: elementLayout))
            }
            return layout
        case .set:
            guard let element = classGenericArgument(metadata, 0) else {
                return unreadableStorage("set storage", "element type unknown")
            }
            let name = "Set<\(_typeName(element.type, qualified: false))>"
            var layout = ObjectLayout(shape: .collectionStorage, typeName: "\(name) storage")
            let fields = fieldOffsets(metadata)
            guard let scale = fields["_scale"], let base = fields["_rawElements"] else {
                return unreadableStorage(layout.typeName, "storage fields not found")
            }
            guard !RuntimeABI.valueLayout(of: element.type).isPOD else { return layout }
            var elementLayout = ValueLayout()
            appendValue(
                element, at: 0, base: .element(name), path: "", into: &elementLayout, nesting: 0)
            layout.regions = [
                ElementRegion(
                    counting: .hashed(
                        scaleOffset: scale, bitmapOffset: instanceSize, baseOffset: base),
                    stride: strideOf(element), element: elementLayout)
            ]
            return layout
        }
    }

    private static func strideOf(_ metadata: TypeMetadata) -> Int {
        func measure<T>(_: T.Type) -> Int { MemoryLayout<T>.stride }
        return max(1, measure(metadata.type))
    }

    private static func fieldOffsets(_ metadata: TypeMetadata) -> [String: Int] {
        var offsets: [String: Int] = [:]
        for field in RuntimeABI.storedFields(of: metadata) { offsets[field.name] = field.offset }
        return offsets
    }

    private static func unreadableStorage(_ name: String, _ problem: String) -> ObjectLayout {
        var layout = ObjectLayout(shape: .collectionStorage, typeName: name)
        layout.problem = problem
        return layout
    }

    /// The layout of a closure context or a box of a captured `var`.
    ///
    /// A context with generic bindings has a layout of its own per instance (the bindings are
    /// read from the object): given the object (retained by the caller), it is decoded from
    /// it; without one (the census reads no object while compiling), its captures are read
    /// conservatively and ``ObjectLayout/dependsOnInstance`` says so.
    static func contextLayout(_ metadata: TypeMetadata, object: UnsafeRawPointer? = nil)
        -> ObjectLayout
    {
        let isGenericBox = metadata.kind == .heapGenericLocalVariable
        var layout = ObjectLayout(
            shape: isGenericBox ? .box : .closureContext,
            typeName: isGenericBox ? "box" : "closure context")
        layout.problemKind = .undecodableClosure
        if !isGenericBox {
            guard
                let descriptor = RuntimeABI.pointer(at: metadata.address, offset: 16, alignment: 4)
            else {
                layout.problem = "no capture descriptor (reflection metadata not emitted)"
                return layout
            }
            guard RuntimeABI.isInLoadedImage(descriptor) else {
                layout.problem = "capture descriptor outside any loaded image"
                return layout
            }
            if descriptor.loadUnaligned(fromByteOffset: 8, as: UInt32.self) != 0, object == nil {
                layout.problem = "generic closure context: captures read conservatively"
                layout.conservativeFrom = firstCaptureOffset(metadata)
                layout.dependsOnInstance = true
                return layout
            }
        }
        let context = RuntimeABI.contextLayout(of: object ?? metadata.address, metadata: metadata)
        var captured: [String] = []
        for slot in context.slots {
            switch slot.content {
            case .value(let type, let ownership):
                let name = captureName(type)
                captured.append(name)
                let base: RoleBase = isGenericBox ? .boxed : .capture(name)
                if ownership == .strong {
                    appendValue(
                        TypeMetadata(type), at: slot.offset, base: base, path: "",
                        into: &layout.fields, nesting: 0)
                } else {
                    layout.fields.slots.append(
                        LayoutSlot(offset: slot.offset, ownership: ownership, role: base.role("")))
                }
            case .box:
                captured.append("var")
                layout.fields.slots.append(
                    LayoutSlot(offset: slot.offset, ownership: .strong, role: .capture(name: "var"))
                )
            case .function(.thick):
                captured.append("closure")
                layout.fields.slots.append(
                    LayoutSlot(
                        offset: slot.offset + 8, ownership: .strong,
                        role: .capture(name: "closure"),
                        isFunctionContext: true))
            case .function(.thin):
                continue
            }
        }
        layout.captures = captured
        if !isGenericBox, !captured.isEmpty {
            layout.typeName = "closure context (captures \(captured.joined(separator: ", ")))"
        }
        if let problem = context.problem {
            // The captures after the last decoded one are read conservatively.
            layout.problem = problem + "; later captures read conservatively"
            var end = firstCaptureOffset(metadata)
            if let last = context.slots.last {
                switch last.content {
                case .value(let type, _): end = last.offset + RuntimeABI.valueLayout(of: type).size
                case .box: end = last.offset + 8
                case .function(let storage): end = last.offset + (storage == .thick ? 16 : 8)
                }
            }
            layout.conservativeFrom = end
        }
        return layout
    }

    private static func firstCaptureOffset(_ metadata: TypeMetadata) -> Int {
        Int(metadata.address.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    }

    /// The name a capture is shown under: its type without module or `Optional`.
    static func captureName(_ type: Any.Type) -> String {
        let metadata = TypeMetadata(type)
        if metadata.kind == .optional, let wrapped = metadata.valueGenericArgument(0) {
            return _typeName(wrapped.type, qualified: false)
        }
        return _typeName(type, qualified: false)
    }
}
