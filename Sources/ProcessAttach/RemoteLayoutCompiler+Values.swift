import ObjectGraph
import RuntimeLayouts
import RetainGraphUtilities

extension RemoteLayoutCompiler {
    /// The standard library's collection structs: one word, the storage object, is all the
    /// census follows of them.
    private static let collectionStructs: Set<Substring> = [
        "Swift.Array", "Swift.ContiguousArray", "Swift.ArraySlice", "Swift.Dictionary",
        "Swift.Set",
    ]

    /// Whether a struct is one of the standard library's, whose storage never explains a leak
    /// (`String`, `Substring`, `Character`…), as the census skips them. The concurrency
    /// library's types demangle under `Swift.` too, but their mangled names use its own
    /// substitutions (`ScT…` for a `Task`): those are read (a `Task` holds its task).
    private func isStandardLibraryValue(_ typeRef: UInt64, name: String) -> Bool {
        guard name.hasPrefix("Swift.") else { return false }
        return mirror.mangledName(of: typeRef).map { !$0.hasPrefix("Sc") } ?? true
    }

    /// The builtin types that are one strong reference.
    private static let referenceBuiltins: Set<String> = [
        "Builtin.NativeObject", "Builtin.UnknownObject",
    ]

    /// The references of a field, capture or case payload, relative to its start, with their
    /// paths inside it.
    ///
    /// - Parameters:
    ///   - child: The field as the mirror describes it.
    ///   - end: Where the next field starts, if known: an undescribed field is read
    ///     conservatively up to it.
    func childSlots(_ child: MirrorChild, end: Int?, nesting: Int) -> ValueSlots {
        var slots = ValueSlots()
        if let reference = Self.reference(child.kind) {
            slots.slots = [reference]
            return slots
        }
        switch child.kind {
        case .structure, .tuple, .singlePayloadEnum, .multiPayloadEnum, .opaqueExistential,
            .unknown:
            if let value = valueSlots(of: child.typeRef, nesting: nesting + 1) { return value }
            // No description (a noncopyable `Mutex`, a type without reflection metadata):
            // every word up to the next field may be a reference, read conservatively (as the
            // census reads a field whose type the compiler hides).
            let words = min(max(((end ?? child.offset + 8) - child.offset) / 8, 1), 64)
            slots.slots = (0..<words).map {
                ValueSlots.Slot(offset: 8 * $0, ownership: .conservative, path: "")
            }
        case .builtin:
            // `Builtin.NativeObject` and the like are references; other builtins hold none.
            return valueSlots(of: child.typeRef, nesting: nesting + 1) ?? slots
        case .strongReference, .classExistential, .errorExistential, .weakReference,
            .unownedReference, .unmanagedReference, .thickFunction:
            break  // answered above
        case .rawPointer, .noPayloadEnum, .existentialMetatype, .classInstance, .closureContext:
            break
        }
        return slots
    }

    /// The slot of a value that is one reference (at its start, or a thick function's context
    /// at +8), or nil for other kinds.
    private static func reference(_ kind: MirrorKind) -> ValueSlots.Slot? {
        switch kind {
        case .strongReference, .classExistential, .errorExistential:
            return ValueSlots.Slot(offset: 0, ownership: .strong, path: "")
        case .weakReference: return ValueSlots.Slot(offset: 0, ownership: .weak, path: "")
        case .unownedReference: return ValueSlots.Slot(offset: 0, ownership: .unowned, path: "")
        case .unmanagedReference:
            return ValueSlots.Slot(offset: 0, ownership: .unownedUnsafe, path: "")
        case .thickFunction:
            return ValueSlots.Slot(offset: 8, ownership: .strong, path: "", isFunctionContext: true)
        default: return nil
        }
    }

    /// The references of a value of type `typeRef`, relative to the value's start; nil when
    /// the mirror cannot describe the type.
    func valueSlots(of typeRef: UInt64, nesting: Int) -> ValueSlots? {
        if let cached = valueCache[typeRef] { return cached }
        guard nesting < Self.maximumNesting, typeRef != 0 else { return nil }
        let typeName = name(of: typeRef) ?? ""
        let base = TypeNames.genericBase(typeName)
        guard let layout = mirror.layout(ofType: typeRef) else { return nil }
        var slots = ValueSlots()
        if let reference = Self.reference(layout.kind) {
            slots.slots = [reference]
            valueCache[typeRef] = slots
            return slots
        }
        switch layout.kind {
        case .structure where Self.collectionStructs.contains(base):
            // Array, ContiguousArray, ArraySlice, Set, Dictionary: one word, the storage object
            // (a `Builtin.BridgeObject` for Set and Dictionary, which the mirror calls builtin).
            slots.slots = [ValueSlots.Slot(offset: 0, ownership: .strong, path: "")]
        case .builtin where Self.referenceBuiltins.contains(typeName):
            // A `Task`'s handle, a managed buffer: a strong reference, as the census reads it.
            slots.slots = [ValueSlots.Slot(offset: 0, ownership: .strong, path: "")]
        case .structure where isStandardLibraryValue(typeRef, name: typeName):
            break  // String, Substring and the standard library's other values hold none
        case .structure, .tuple:
            for (index, child) in layout.children.enumerated() {
                let end =
                    index + 1 < layout.children.count
                    ? layout.children[index + 1].offset : layout.size
                let name = child.name.isEmpty ? "\(index)" : child.name
                slots.append(
                    childSlots(child, end: end, nesting: nesting).placed(
                        at: child.offset, under: name))
            }
        case .singlePayloadEnum:
            // An optional (or any one-payload enum) holds its payload at its start; an empty
            // case's bits are never a live object's address, so reading them is harmless.
            if let payload = layout.children.first(where: { $0.typeRef != 0 }) {
                let isOptional = base == "Swift.Optional"
                slots.append(
                    childSlots(payload, end: layout.size, nesting: nesting).placed(
                        at: 0, under: isOptional ? "" : payload.name))
            }
        case .multiPayloadEnum:
            slots.dynamics = [
                DynamicSlot(
                    offset: 0, shape: .enumValue, typeRef: typeRef, base: .property, path: "")
            ]
        case .opaqueExistential:
            slots.dynamics = [
                DynamicSlot(
                    offset: 0, shape: .existential, typeRef: typeRef, base: .property, path: "")
            ]
        case .builtin, .rawPointer, .noPayloadEnum, .existentialMetatype, .unknown,
            .classInstance, .closureContext, .strongReference, .classExistential,
            .errorExistential, .weakReference, .unownedReference, .unmanagedReference,
            .thickFunction:
            break
        }
        valueCache[typeRef] = slots
        return slots
    }

    /// Decodes a dynamic value stored at target address `address`: calls `visit` with each
    /// reference word it holds and the slot it was read from (its role a number in the role
    /// table), naming the path as the census does: an enum's case (`state.running`, an
    /// optional's case left out), an existential's container (`slot (Any)`).
    func decode(
        _ slot: DynamicSlot, at address: UInt, nesting: Int = 0,
        _ visit: (UInt, RemoteSlot) -> Void
    ) {
        guard nesting < 4 else { return }
        let inner: ValueSlots?
        let start: UInt
        switch slot.shape {
        case .enumValue:
            guard let index = mirror.enumCase(at: address, typeRef: slot.typeRef),
                let layout = mirror.layout(ofType: slot.typeRef), index < layout.children.count
            else { return }
            let payload = layout.children[index]
            guard payload.typeRef != 0 else { return }
            let isOptional = TypeNames.genericBase(name(of: slot.typeRef) ?? "") == "Swift.Optional"
            let path = isOptional ? slot.path : ValueSlots.joined(slot.path, payload.name)
            inner = childSlots(payload, end: layout.size, nesting: nesting).placed(
                at: 0, under: path)
            start = address
        case .existential:
            guard let (type, value) = mirror.projectExistential(at: address, typeRef: slot.typeRef)
            else { return }
            let container = TypeNames.unqualified(name(of: slot.typeRef) ?? "Any")
            let path = ValueSlots.joined(slot.path, "(\(container))", separator: " ")
            if value != address {
                // A value too large for the container lives in a box the container holds.
                if let box = memory.word(at: address) {
                    visit(
                        box,
                        RemoteSlot(
                            offset: 0, ownership: .strong, role: roleNumber(slot.base.role(path)),
                            isBox: true))
                }
                return
            }
            inner = valueSlots(of: type, nesting: nesting + 1)?.placed(at: 0, under: path)
            start = value
        }
        guard let inner else { return }
        for item in remoteSlots(inner, base: slot.base) {
            if let word = memory.word(at: start + UInt(item.offset)) { visit(word, item) }
        }
        for dynamic in inner.dynamics {
            var nested = dynamic
            nested.base = slot.base
            decode(nested, at: start + UInt(dynamic.offset), nesting: nesting + 1, visit)
        }
    }
}
