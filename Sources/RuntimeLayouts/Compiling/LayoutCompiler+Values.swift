import ObjectGraph

extension LayoutCompiler {
    /// Appends the references of a value of `type` stored at `offset`, held by `base` at
    /// `path`.
    func appendValue(
        _ type: TypeHandle, at offset: Int, base: RoleBase, path: String,
        into layout: inout ValueLayout, nesting: Int
    ) {
        guard nesting < Self.maximumNesting, let shape = source.shape(of: type) else { return }
        appendValue(
            shape, type: type, at: offset, base: base, path: path, into: &layout,
            nesting: nesting)
    }

    func appendValue(
        _ shape: TypeShape, type: TypeHandle, at offset: Int, base: RoleBase, path: String,
        into layout: inout ValueLayout, nesting: Int
    ) {
        guard Self.hasRoom(&layout) else { return }
        func slot(
            _ ownership: Ownership, at offset: Int, isFunctionContext: Bool = false,
            isStringObject: Bool = false
        ) {
            layout.slots.append(
                LayoutSlot(
                    offset: offset, ownership: ownership, role: base.role(path),
                    isFunctionContext: isFunctionContext, isStringObject: isStringObject))
        }
        switch shape.kind {
        case .strongReference, .standardCollection: slot(.strong, at: offset)
        case .weakReference: slot(.weak, at: offset)
        case .unownedReference: slot(.unowned, at: offset)
        case .unmanagedReference: slot(.unownedUnsafe, at: offset)
        case .thickFunction: slot(.strong, at: offset + 8, isFunctionContext: true)
        case .string: slot(.strong, at: offset + 8, isStringObject: true)
        case .plain: return
        case .aggregate:
            for (index, child) in shape.children.enumerated() {
                let end =
                    index + 1 < shape.children.count
                    ? shape.children[index + 1].offset : shape.size
                appendChild(
                    child, end: end, at: offset, base: base, path: Self.joined(path, child.name),
                    into: &layout, nesting: nesting + 1)
            }
        case .singlePayloadEnum, .rawLayout:
            // An optional's empty case is a null word (or spare bits no object address has):
            // the value reads like its payload.
            for child in shape.children {
                let name = shape.isOptional || shape.kind == .rawLayout ? "" : child.name
                appendChild(
                    child, end: shape.size, at: offset, base: base,
                    path: Self.joined(path, name), into: &layout, nesting: nesting + 1)
            }
        case .multiPayloadEnum:
            appendDynamic(
                .enumValue, type: type, size: shape.size, at: offset, base: base,
                path: path, into: &layout)
        case .opaqueExistential:
            appendDynamic(
                .existential, type: type, size: 32, at: offset, base: base, path: path,
                into: &layout)
        }
    }

    /// Appends a stored property, capture or payload `child` of what starts at `start`, whose
    /// bytes end at `end` (the next child's offset, or the container's size): typed when the
    /// source named its type, every word read conservatively otherwise.
    func appendChild(
        _ child: TypeChild, end: Int?, at start: Int, base: RoleBase, path: String,
        into layout: inout ValueLayout, nesting: Int
    ) {
        guard Self.hasRoom(&layout) else { return }
        let offset = start + child.offset
        if let storage = child.storage {
            switch storage {
            case .thickFunction:
                layout.slots.append(
                    LayoutSlot(
                        offset: offset + 8, ownership: .strong, role: base.role(path),
                        isFunctionContext: true))
            case .weakReference, .unownedReference, .unmanagedReference, .strongReference:
                let ownership: Ownership =
                    storage == .weakReference
                    ? .weak
                    : storage == .unownedReference
                        ? .unowned : storage == .unmanagedReference ? .unownedUnsafe : .strong
                layout.slots.append(
                    LayoutSlot(offset: offset, ownership: ownership, role: base.role(path)))
            default:
                break
            }
            return
        }
        guard nesting < Self.maximumNesting, let type = child.type,
            let shape = source.shape(of: type)
        else {
            // A field whose type the compiler hid and the source could not name: its bytes are
            // all there is. A word becomes a reference only if it is a known object's address.
            let fieldEnd = start + max(end ?? child.offset + 8, child.offset + 8)
            var word = 0
            var at = (offset + 7) & ~7
            while at + 8 <= fieldEnd, word < Self.maximumConservativeWords {
                layout.slots.append(
                    LayoutSlot(offset: at, ownership: .conservative, role: base.role(path)))
                at += 8
                word += 1
            }
            return
        }
        appendValue(
            shape, type: type, at: offset, base: base, path: path, into: &layout, nesting: nesting)
    }

    private func appendDynamic(
        _ shape: DynamicSlot.Shape, type: TypeHandle, size: Int, at offset: Int, base: RoleBase,
        path: String, into layout: inout ValueLayout
    ) {
        guard size > 0, size <= DynamicSlot.maximumSize else { return }
        layout.dynamics.append(
            DynamicSlot(
                offset: offset, size: size, shape: shape, type: type, base: base,
                path: path))
    }

    /// Counts a visit to a value or child of `layout`; false once the layout has
    /// ``maximumSlots`` slots or took four times that many visits.
    static func hasRoom(_ layout: inout ValueLayout) -> Bool {
        layout.visits += 1
        return layout.visits <= 4 * maximumSlots
            && layout.slots.count + layout.dynamics.count < maximumSlots
    }

    /// `head.tail`, or whichever is not empty.
    static func joined(_ head: String, _ tail: String, separator: String = ".") -> String {
        head.isEmpty ? tail : tail.isEmpty ? head : head + separator + tail
    }
}
