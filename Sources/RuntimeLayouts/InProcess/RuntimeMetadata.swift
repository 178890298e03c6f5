// PRIVATE SWIFT RUNTIME DETAILS (this process's runtime): the metadata source over the running
// runtime. Types are metadata addresses; everything is read from metadata, value witness tables
// and the compiler's field and capture descriptors (RuntimeABI/), and the runtime's own
// reflection entry points resolve field and capture types to metadata.

import Locking
import ObjectGraph
import RetainGraphUtilities

/// The metadata source of this process: its runtime's metadata.
///
/// Every metadata address it is asked about was checked to be metadata first (an object's
/// first word through ``objectKind(ofMetadata:)``, a type through the runtime that handed it
/// out), and metadata is never freed, so reading it cannot fault.
package final class RuntimeMetadata: MetadataSource, @unchecked Sendable {
    /// The one instance (the runtime has no state of its own to keep).
    package static let shared = RuntimeMetadata()

    private init() {}

    private func metadata(_ type: TypeHandle) -> TypeMetadata? {
        UnsafeRawPointer(bitPattern: UInt(type.raw)).map(TypeMetadata.init(address:))
    }

    private func handle(_ type: Any.Type) -> TypeHandle {
        TypeHandle(UInt64(UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))))
    }

    private func handle(_ metadata: TypeMetadata) -> TypeHandle {
        TypeHandle(UInt64(UInt(bitPattern: metadata.address)))
    }

    package func objectKind(ofMetadata metadata: UInt) -> HeapObjectKind? {
        guard MetadataValidation.isObjectMetadata(metadata),
            let pointer = UnsafeRawPointer(bitPattern: metadata)
        else { return nil }
        return HeapObjectKind(metadataKind: RuntimeABI.word(at: pointer))
    }

    package func classType(ofMetadata metadata: UInt) -> TypeHandle? {
        metadata == 0 ? nil : TypeHandle(UInt64(metadata))
    }

    package func superclass(ofClassMetadata metadata: UInt) -> UInt? {
        guard let type = self.metadata(TypeHandle(UInt64(metadata))),
            let superclass = type.superclass
        else { return nil }
        return UInt(bitPattern: superclass.address)
    }

    package func name(of type: TypeHandle) -> String? {
        guard let metadata = metadata(type) else { return nil }
        return TypeNames.readable(_typeName(metadata.type, qualified: true))
    }

    package func containerName(of type: TypeHandle) -> String {
        guard let metadata = metadata(type) else { return "Any" }
        return _typeName(metadata.type, qualified: false)
    }

    package func instanceSize(ofClassMetadata metadata: UInt) -> Int? {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return nil }
        return Int(pointer.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
    }

    package func boxedValue(ofBoxMetadata metadata: UInt) -> (type: TypeHandle?, offset: Int) {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return (nil, 16) }
        let offset = Int(pointer.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard let boxed = RuntimeABI.pointer(at: pointer, offset: 16),
            TypeMetadata(address: boxed).kind.isValueOrClass
        else { return (nil, offset) }
        return (handle(TypeMetadata(address: boxed)), offset)
    }

    package func classFields(ofMetadata metadata: UInt) -> (fields: [TypeChild], problem: String?)?
    {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return nil }
        let type = TypeMetadata(address: pointer)
        var hasFieldMetadata = false
        var current: TypeMetadata? = type
        var hops = 0
        while let each = current, hops < 64 {
            guard let descriptor = each.nominalDescriptor else { return nil }
            if descriptor.fields != nil { hasFieldMetadata = true }
            current = each.superclass
            hops += 1
        }
        guard hasFieldMetadata else { return nil }
        return (fields(of: type), nil)
    }

    /// The stored properties of a class (superclasses' first) or struct, as children: each
    /// field's type resolved, a noncopyable field's declared type recovered (or left untyped),
    /// a weak or unowned field marked with its storage.
    func fields(of metadata: TypeMetadata) -> [TypeChild] {
        let fields = RuntimeABI.storedFields(of: metadata)
        let descriptor = metadata.nominalDescriptor.map { UInt(bitPattern: $0.address) }
        var children: [TypeChild] = []
        for field in fields {
            let name =
                descriptor.map { Self.isLookedThrough(field.name, of: $0) } == true
                ? "" : field.name
            var fieldType = TypeMetadata(field.type)
            if field.type == Void.self, let pointer = field.namePointer {
                switch RuntimeABI.declaredFieldType(ofFieldNamed: pointer, in: metadata) {
                case .resolved(let declared)?: fieldType = TypeMetadata(declared)
                case .hidden?:
                    children.append(TypeChild(name: name, offset: field.offset, type: nil))
                    continue
                case nil: break
                }
            }
            if case .unknown = fieldType.kind { continue }
            var storage: ValueKind?
            if !field.isStrong {
                let ownership = field.namePointer.flatMap {
                    RuntimeABI.ownership(ofFieldNamed: $0, name: field.name, in: metadata)
                }
                switch ownership {
                case .weak?: storage = .weakReference
                case .unowned?: storage = .unownedReference
                case .unownedUnsafe?: storage = .unmanagedReference
                default: continue
                }
            }
            children.append(
                TypeChild(
                    name: name, offset: field.offset, type: handle(fieldType), storage: storage))
        }
        return children.sorted { $0.offset < $1.offset }
    }

    /// The descriptors of the package's lock (`Locked`, a struct whose `storage` is a buffer
    /// holding the value as its `header`): paths go through them without naming them, so a
    /// timer's state reads `.state.action`, as the code that wrote it says.
    private static let lockDescriptors: (locked: UInt, storage: UInt) = {
        let locked = TypeMetadata(Locked<Int>.self).nominalDescriptor
        let storage = TypeMetadata(LockStorageIdentity.sampleStorageClass as Any.Type)
            .nominalDescriptor
        return (
            locked.map { UInt(bitPattern: $0.address) } ?? 0,
            storage.map { UInt(bitPattern: $0.address) } ?? 0
        )
    }()

    /// Whether the path to the field `name` of the type of `descriptor` leaves the field out.
    private static func isLookedThrough(_ name: String, of descriptor: UInt) -> Bool {
        (descriptor == lockDescriptors.locked && name == "storage")
            || (descriptor == lockDescriptors.storage && name == "header")
    }
}
