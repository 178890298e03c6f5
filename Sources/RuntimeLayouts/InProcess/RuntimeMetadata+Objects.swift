// PRIVATE SWIFT RUNTIME DETAILS (this process's runtime): standard library storage classes,
// closure contexts and per-value decoding.
//
// Relied on (Swift 6.3, 64-bit, no Objective-C interop):
//   • Class metadata: instance size u32 @24, nominal descriptor @40. A class's generic arguments
//     start at word (positive size − immediate members) of its metadata, both u32 in the class
//     descriptor @28 and @32, when the class has no resilient superclass (flags bit 29).
//   • `_DictionaryStorage<Key, Value>` / `_SetStorage<Element>`: stored fields `_scale` (Int8),
//     `_rawKeys`/`_rawValues` or `_rawElements`; the bitmap of occupied buckets is
//     tail-allocated at the instance size.
//   • The value witness table is the word before a type's metadata: flags u32 @80 (bit 17: the
//     value is not stored inline in an existential buffer); an enum's table adds getEnumTag
//     @88 and destructiveProjectEnumData @96, which take (value, metadata) in the first two
//     argument registers and neither retain nor release. getEnumTag numbers the cases with
//     payloads first, in the order of the enum's field records; the enum descriptor's u32 @20
//     holds the payload case count in its low 24 bits; a field record's flags bit 0 marks an
//     indirect case (its payload is a box).
//   • An opaque existential container: three words of buffer, then the dynamic type @24.

import Locking
import ObjectGraph

extension RuntimeMetadata {
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

    package func collectionStorage(ofClassMetadata metadata: UInt) -> CollectionStorage? {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return nil }
        let type = TypeMetadata(address: pointer)
        guard let descriptor = type.nominalDescriptor,
            let kind = Self.storageDescriptors[UInt(bitPattern: descriptor.address)]
        else { return nil }
        func argument(_ index: Int) -> TypeHandle? {
            Self.classGenericArgument(type, index).map {
                TypeHandle(UInt64(UInt(bitPattern: $0.address)))
            }
        }
        switch kind {
        case .array:
            return CollectionStorage(kind: .array, arguments: argument(0).map { [$0] } ?? [])
        case .dictionary, .set:
            let arguments = kind == .set ? [argument(0)] : [argument(0), argument(1)]
            var storage = CollectionStorage(
                kind: kind == .set ? .set : .dictionary, arguments: arguments.compactMap { $0 })
            var offsets: [String: Int] = [:]
            for field in RuntimeABI.storedFields(of: type) { offsets[field.name] = field.offset }
            storage.scaleOffset = offsets["_scale"] ?? 0
            storage.baseOffsets = (kind == .set ? ["_rawElements"] : ["_rawKeys", "_rawValues"])
                .compactMap { offsets[$0] }
            storage.instanceSize = instanceSize(ofClassMetadata: metadata) ?? 0
            return storage
        }
    }

    /// The `index`th generic argument of a generic class's metadata.
    static func classGenericArgument(_ metadata: TypeMetadata, _ index: Int) -> TypeMetadata? {
        guard metadata.kind == .class,
            let descriptor = RuntimeABI.pointer(at: metadata.address, offset: 40, alignment: 4)
        else { return nil }
        let flags = descriptor.loadUnaligned(as: UInt32.self)
        guard flags & (1 << 29) == 0 else { return nil }  // a resilient superclass
        let positive = Int(descriptor.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
        let immediate = Int(descriptor.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
        let word = positive - immediate + index
        guard word > 5, word < 1 << 16,
            let argument = RuntimeABI.pointer(at: metadata.address, offset: 8 * word)
        else { return nil }
        let type = TypeMetadata(address: argument)
        return type.kind.isValueOrClass ? type : nil
    }

    package func captures(ofContextMetadata metadata: UInt, sample: UInt?) -> ContextCaptures {
        var result = ContextCaptures()
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return result }
        let type = TypeMetadata(address: pointer)
        result.firstCaptureOffset = Int(pointer.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard let descriptor = RuntimeABI.pointer(at: pointer, offset: 16, alignment: 4) else {
            result.problem = "no capture descriptor (reflection metadata not emitted)"
            return result
        }
        guard RuntimeABI.isInLoadedImage(descriptor) else {
            result.problem = "capture descriptor outside any loaded image"
            return result
        }
        result.typeNames = RuntimeABI.captureTypeNames(ofContext: type)
        let object = sample.flatMap { UnsafeRawPointer(bitPattern: $0) }
        if descriptor.loadUnaligned(fromByteOffset: 8, as: UInt32.self) != 0, object == nil {
            result.problem = "generic closure context: captures read conservatively"
            result.dependsOnInstance = true
            return result
        }
        let context = RuntimeABI.contextLayout(of: object ?? pointer, metadata: type)
        for slot in context.slots {
            switch slot.content {
            case .value(let captured, let ownership):
                let storage: ValueKind?
                switch ownership {
                case .weak: storage = .weakReference
                case .unowned: storage = .unownedReference
                case .unownedUnsafe: storage = .unmanagedReference
                case .strong, .conservative: storage = nil
                }
                result.captures.append(
                    .init(
                        offset: slot.offset,
                        content: .value(
                            TypeHandle(UInt64(UInt(bitPattern: TypeMetadata(captured).address))),
                            storage: storage),
                        name: Self.captureName(captured)))
                result.decodedEnd = slot.offset + RuntimeABI.valueLayout(of: captured).size
            case .box:
                result.captures.append(.init(offset: slot.offset, content: .box, name: "var"))
                result.decodedEnd = slot.offset + 8
            case .function(let storage):
                result.captures.append(
                    .init(
                        offset: slot.offset,
                        content: storage == .thick ? .thickFunction : .thinFunction,
                        name: "closure"))
                result.decodedEnd = slot.offset + (storage == .thick ? 16 : 8)
            }
        }
        if let problem = context.problem {
            result.problem = problem + "; later captures read conservatively"
        }
        return result
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
