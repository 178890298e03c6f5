import ObjectGraph

extension LayoutCompiler {
    /// Calls `visit` with every reference word of a dynamic value (``DynamicSlot``), as a slot
    /// at offset 0 of the word (its ownership, its role, whether it is a function's context or
    /// a box): an enum's payload named by its case (`state.running`; an optional's case left
    /// out), an existential's value named by its container (`slot (Any)`).
    ///
    /// - Parameters:
    ///   - slot: The value's slot.
    ///   - copy: The value's `slot.size` bytes, copied out of the object (decoding may modify
    ///     them).
    ///   - address: Where the value is in the memory the source reads (a remote mirror reads
    ///     it there; this process's runtime reads the copy).
    ///   - visit: Receives each stored word and the slot it was read from.
    package func decode(
        _ slot: DynamicSlot, copy: UnsafeMutableRawPointer, address: UInt,
        _ visit: (UInt, LayoutSlot) -> Void
    ) {
        decode(slot, copy: copy, address: address, nesting: 0, visit)
    }

    private func decode(
        _ slot: DynamicSlot, copy: UnsafeMutableRawPointer, address: UInt, nesting: Int,
        _ visit: (UInt, LayoutSlot) -> Void
    ) {
        // The value's own layout says where its words are, but the type it holds is named by
        // the value's bytes (another process's, when the heap is): every word visited lies in
        // the copy's `slot.size` bytes.
        guard nesting < 4, slot.size >= 8 else { return }
        switch slot.shape {
        case .existential:
            guard
                let contents = source.existentialContents(
                    of: slot.type, copy: copy, address: address)
            else { return }
            let path = Self.joined(
                slot.path, "(\(source.containerName(of: slot.type)))", separator: " ")
            if contents.isBoxed {
                // Stored out of line: the buffer's first word is a box holding the value.
                visit(
                    copy.loadUnaligned(as: UInt.self),
                    LayoutSlot(
                        offset: 0, ownership: .strong, role: slot.base.role(path), isBox: true))
            } else {
                apply(
                    valueLayout(of: contents.type), to: copy, size: slot.size, address: address,
                    base: slot.base, path: path, nesting: nesting, visit)
            }
        case .enumValue:
            guard let value = source.enumCase(of: slot.type, copy: copy, address: address) else {
                return
            }
            let isOptional = source.shape(of: slot.type)?.isOptional ?? false
            let path = isOptional ? slot.path : Self.joined(slot.path, value.name)
            if value.isIndirect {
                visit(
                    copy.loadUnaligned(as: UInt.self),
                    LayoutSlot(
                        offset: 0, ownership: .strong, role: slot.base.role(path), isBox: true))
            } else if let payload = value.payload {
                apply(
                    valueLayout(of: payload), to: copy, size: slot.size, address: address,
                    base: slot.base, path: path, nesting: nesting, visit)
            }
        }
    }

    /// Visits the slots of `layout` (a value's, compiled as properties) in the value copied at
    /// `copy`, `size` bytes, their roles rebased onto `base` at `path`; slots and values that
    /// do not lie inside those bytes are skipped.
    private func apply(
        _ layout: ValueLayout, to copy: UnsafeMutableRawPointer, size: Int, address: UInt,
        base: RoleBase, path: String, nesting: Int, _ visit: (UInt, LayoutSlot) -> Void
    ) {
        for slot in layout.slots where slot.offset >= 0 && slot.offset <= size - 8 {
            var rebased = slot
            rebased.role = base.role(Self.joined(path, Self.propertyPath(slot.role)))
            let word = copy.loadUnaligned(fromByteOffset: slot.offset, as: UInt.self)
            visit(slot.isStringObject ? StringObject.storage(word) : word, rebased)
        }
        for inner in layout.dynamics
        where inner.offset >= 0 && inner.size > 0 && inner.offset <= size - inner.size {
            var nested = inner
            nested.base = base
            nested.path = Self.joined(path, inner.path)
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: inner.size, alignment: 16)
            defer { buffer.deallocate() }
            buffer.copyMemory(from: copy + inner.offset, byteCount: inner.size)
            decode(
                nested, copy: buffer, address: address &+ UInt(inner.offset),
                nesting: nesting + 1, visit)
        }
    }

    /// The path of a slot compiled as a property of a value.
    private static func propertyPath(_ role: ReferenceRole) -> String {
        if case .storedProperty(let name) = role { return name }
        return ""
    }
}
