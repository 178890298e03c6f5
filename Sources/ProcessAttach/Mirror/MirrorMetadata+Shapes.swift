// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3, 64-bit), read remotely.
//
// Relied on: the standard library's collection structs (`Array`, `ContiguousArray`,
// `ArraySlice`, `Set`, `Dictionary`) hold one word, their storage object. Synchronization's
// `_Cell<Value>` and `Atomic<Value>` have raw layouts like their value (the mirror cannot lower
// them; an atomic's storage is its value's representation, read here as the value); a
// `Mutex<Value>` is its handle (a 32-bit futex word on Linux) then a `_Cell<Value>` at the
// value's alignment.

import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

extension MirrorMetadata {
    /// The standard library's collection structs: one word, the storage object.
    private static let collectionStructs: Set<Substring> = [
        "Swift.Array", "Swift.ContiguousArray", "Swift.ArraySlice", "Swift.Dictionary",
        "Swift.Set",
    ]

    /// The builtin types that are one strong reference.
    private static let referenceBuiltins: Set<String> = [
        "Builtin.NativeObject", "Builtin.UnknownObject",
    ]

    func shape(of type: TypeHandle) -> TypeShape? {
        if let cached = shapeCache[type.raw] { return cached }
        let shape = makeShape(type)
        shapeCache[type.raw] = shape
        return shape
    }

    private func makeShape(_ type: TypeHandle) -> TypeShape? {
        let name = self.name(of: type) ?? ""
        let base = TypeNames.genericBase(name)
        if base == "Synchronization._Cell" || base == "Synchronization.Atomic"
            || base == "Synchronization.Mutex"
        {
            return synchronizationShape(type, isMutex: base == "Synchronization.Mutex")
        }
        guard let layout = mirror.layout(ofType: type.raw) else { return nil }
        func sized(_ kind: ValueKind) -> TypeShape {
            TypeShape(
                kind: kind, size: layout.size, alignment: layout.alignment, stride: layout.stride)
        }
        if let reference = Self.referenceKind(layout.kind) { return sized(reference) }
        switch layout.kind {
        case .classInstance:
            // A class type describes its instances; a value of it is one strong reference.
            return TypeShape(kind: .strongReference, size: 8, alignment: 8, stride: 8)
        case .structure where Self.collectionStructs.contains(base):
            return sized(.standardCollection)
        case .structure where name == "Swift.String" || name == "Swift.Character":
            return sized(.string)
        case .builtin where Self.referenceBuiltins.contains(name):
            // A `Task`'s handle, a managed buffer: a strong reference.
            return sized(.strongReference)
        case .structure where isStandardLibraryValue(type, name: name):
            return sized(.plain)  // Substring and the standard library's other values
        case .structure, .tuple:
            var shape = sized(.aggregate)
            shape.children = layout.children.enumerated().map { index, child in
                self.child(child, name: child.name.isEmpty ? "\(index)" : child.name)
            }
            return shape
        case .singlePayloadEnum:
            // An optional (or any one-payload enum) holds its payload at its start; an empty
            // case's bits are never a live object's address.
            var shape = sized(.singlePayloadEnum)
            shape.isOptional = base == "Swift.Optional"
            if let payload = layout.children.first(where: { $0.typeRef != 0 }) {
                shape.children = [child(payload, name: payload.name)]
            }
            return shape
        case .multiPayloadEnum:
            var shape = sized(.multiPayloadEnum)
            shape.isOptional = base == "Swift.Optional"
            return shape
        case .opaqueExistential:
            return sized(.opaqueExistential)
        default:
            return sized(.plain)
        }
    }

    /// A field, capture or case as a child: references known from the mirror's kind alone keep
    /// that kind; anything else is described by its type (none when the mirror gives none: it
    /// is then read conservatively).
    func child(_ child: MirrorChild, name: String) -> TypeChild {
        if let reference = Self.referenceKind(child.kind) {
            return TypeChild(name: name, offset: child.offset, type: nil, storage: reference)
        }
        return TypeChild(
            name: name, offset: child.offset,
            type: child.typeRef == 0 ? nil : TypeHandle(child.typeRef))
    }

    /// The value kind of a mirror kind that is one reference, or nil.
    static func referenceKind(_ kind: MirrorKind) -> ValueKind? {
        switch kind {
        case .strongReference, .classExistential, .errorExistential: return .strongReference
        case .weakReference: return .weakReference
        case .unownedReference: return .unownedReference
        case .unmanagedReference: return .unmanagedReference
        case .thickFunction: return .thickFunction
        default: return nil
        }
    }

    /// Whether a struct is one of the standard library's, whose storage never explains a leak
    /// (`String`, `Substring`, `Character`…). The concurrency library's types demangle under
    /// `Swift.` too, but their mangled names use its own substitutions (`ScT…` for a `Task`):
    /// those are read (a `Task` holds its task).
    private func isStandardLibraryValue(_ type: TypeHandle, name: String) -> Bool {
        guard name.hasPrefix("Swift.") else { return false }
        return mirror.mangledName(of: type.raw).map { !$0.hasPrefix("Sc") } ?? true
    }

    /// Synchronization's raw layouts, which the mirror cannot lower: `_Cell<Value>` and
    /// `Atomic<Value>` are laid out like their value; a `Mutex<Value>` is a 4-byte handle, then
    /// its value's cell.
    private func synchronizationShape(_ type: TypeHandle, isMutex: Bool) -> TypeShape? {
        guard let argument = mirror.genericArguments(of: type.raw).first, argument != 0,
            let value = shape(of: TypeHandle(argument))
        else { return nil }
        guard isMutex else {
            var cell = TypeShape(
                kind: .rawLayout, size: value.size, alignment: value.alignment,
                stride: value.stride)
            cell.children = [TypeChild(name: "", offset: 0, type: TypeHandle(argument))]
            return cell
        }
        let offset = max(4, value.alignment)
        let size = offset + value.size
        let alignment = max(4, value.alignment)
        var mutex = TypeShape(
            kind: .aggregate, size: size, alignment: alignment,
            stride: (size + alignment - 1) / alignment * alignment)
        // The path goes through the cell without naming it, as in this process's reading.
        mutex.children = [TypeChild(name: "value", offset: offset, type: TypeHandle(argument))]
        return mutex
    }
}
