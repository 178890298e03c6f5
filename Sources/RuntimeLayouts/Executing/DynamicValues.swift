import ObjectGraph

/// What a dynamic value's bytes say it holds: an existential's dynamic type, or an enum's case.
package struct DynamicContents: Equatable, Sendable {
    /// The type of the value held: an existential's contents, an enum case's payload; nil for a
    /// case without payload or an indirect case.
    package var type: TypeHandle?
    /// The enum case's name; nil for an existential.
    package var caseName: String?
    /// Whether the value is held out of line, in a box its first word points to: an
    /// existential's value too large for its buffer, an indirect case's payload.
    package var isBoxed: Bool
}

/// The words a dynamic value of one slot holds once its contents are known, their roles rebased
/// onto the slot's base and path: made once per slot and contents, read in every value alike.
package struct DynamicPlan: Sendable {
    /// The box that holds the value out of line (the value's first word), if it is boxed.
    package var box: LayoutSlot?
    /// The reference words, relative to the value's start; every one lies inside the value.
    package var slots: [LayoutSlot] = []
    /// The dynamic values inside it, decoded in turn; every one lies inside the value.
    package var dynamics: [DynamicSlot] = []

    /// How deep dynamic values inside dynamic values are decoded: a value at this depth (0
    /// for an object's own) is not.
    package static var maximumNesting: Int { 4 }
}

extension DynamicSlot {
    /// The largest dynamic value copied for decoding.
    package static var maximumSize: Int { 512 }
}

extension LayoutCompiler {
    /// Calls `visit` with every reference word of a dynamic value (``DynamicSlot``), as a slot
    /// at offset 0 of the word (its ownership, its role, whether it is a function's context or
    /// a box): an enum's payload named by its case (`state.running`; an optional's case left
    /// out), an existential's value named by its container (`slot (Any)`).
    ///
    /// A reader of many values of one slot asks ``contents(of:copy:address:)`` per value and
    /// keeps each contents' ``plan(for:contents:)`` (the heap snapshot's builder does); this
    /// does both, every time.
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

    /// What the value of `slot` copied at `copy` holds, read through the source: an
    /// existential's dynamic type, an enum's case (the copy is then projected: the case's bits
    /// are cleared from the payload's words).
    ///
    /// - Returns: nil when the value holds nothing to decode (a slot under one word) or the
    ///   source cannot say (a type word that is not metadata: memory not yet initialised).
    package func contents(
        of slot: DynamicSlot, copy: UnsafeMutableRawPointer, address: UInt
    ) -> DynamicContents? {
        // The value's own layout says where its words are, but the type it holds is named by
        // the value's bytes (another process's, when the heap is): every word visited lies in
        // the copy's `slot.size` bytes.
        guard slot.size >= 8 else { return nil }
        switch slot.shape {
        case .existential:
            guard let held = source.existentialContents(of: slot.type, copy: copy, address: address)
            else { return nil }
            return DynamicContents(type: held.type, caseName: nil, isBoxed: held.isBoxed)
        case .enumValue:
            guard let value = source.enumCase(of: slot.type, copy: copy, address: address) else {
                return nil
            }
            return DynamicContents(
                type: value.payload, caseName: value.name, isBoxed: value.isIndirect)
        }
    }

    /// The words a value of `slot` holding `contents` holds, named by the container
    /// (`slot (Any)`) or the case (`state.running`; an optional's case left out).
    package func plan(for slot: DynamicSlot, contents: DynamicContents) -> DynamicPlan {
        let path: String
        switch slot.shape {
        case .existential:
            path = Self.joined(
                slot.path, "(\(source.containerName(of: slot.type)))", separator: " ")
        case .enumValue:
            let isOptional = source.shape(of: slot.type)?.isOptional ?? false
            path = isOptional ? slot.path : Self.joined(slot.path, contents.caseName ?? "")
        }
        var plan = DynamicPlan()
        if contents.isBoxed {
            plan.box = LayoutSlot(
                offset: 0, ownership: .strong, role: slot.base.role(path), isBox: true)
            return plan
        }
        guard let type = contents.type else { return plan }
        let layout = valueLayout(of: type)
        let size = slot.size
        for inner in layout.slots where inner.offset >= 0 && inner.offset <= size - 8 {
            var rebased = inner
            rebased.role = slot.base.role(Self.joined(path, Self.propertyPath(inner.role)))
            plan.slots.append(rebased)
        }
        for inner in layout.dynamics
        where inner.offset >= 0 && inner.size > 0 && inner.offset <= size - inner.size {
            var nested = inner
            nested.base = slot.base
            nested.path = Self.joined(path, inner.path)
            plan.dynamics.append(nested)
        }
        return plan
    }

    /// Calls `visit` with the words `plan` names in the value copied at `copy`, and decodes the
    /// values inside it.
    ///
    /// - Parameter nesting: How deep the value lies in dynamic values (0 for an object's own).
    private func apply(
        _ plan: DynamicPlan, to copy: UnsafeMutableRawPointer, address: UInt, nesting: Int,
        _ visit: (UInt, LayoutSlot) -> Void
    ) {
        if let box = plan.box {
            visit(copy.loadUnaligned(as: UInt.self), box)
            return
        }
        for slot in plan.slots {
            let word = copy.loadUnaligned(fromByteOffset: slot.offset, as: UInt.self)
            visit(slot.isStringObject ? StringObject.storage(word) : word, slot)
        }
        for inner in plan.dynamics {
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: inner.size, alignment: 16)
            defer { buffer.deallocate() }
            buffer.copyMemory(from: copy + inner.offset, byteCount: inner.size)
            decode(
                inner, copy: buffer, address: address &+ UInt(inner.offset),
                nesting: nesting + 1, visit)
        }
    }

    private func decode(
        _ slot: DynamicSlot, copy: UnsafeMutableRawPointer, address: UInt, nesting: Int,
        _ visit: (UInt, LayoutSlot) -> Void
    ) {
        guard nesting < DynamicPlan.maximumNesting,
            let contents = contents(of: slot, copy: copy, address: address)
        else { return }
        apply(
            plan(for: slot, contents: contents), to: copy, address: address, nesting: nesting,
            visit)
    }

    /// The path of a slot compiled as a property of a value.
    private static func propertyPath(_ role: ReferenceRole) -> String {
        if case .storedProperty(let name) = role { return name }
        return ""
    }
}

/// Decodes dynamic values: the layout compiler, over whichever metadata source reads the heap.
package protocol DynamicValueDecoding: AnyObject, Sendable {
    /// See ``LayoutCompiler/contents(of:copy:address:)``.
    func contents(of slot: DynamicSlot, copy: UnsafeMutableRawPointer, address: UInt)
        -> DynamicContents?
    /// See ``LayoutCompiler/plan(for:contents:)``.
    func plan(for slot: DynamicSlot, contents: DynamicContents) -> DynamicPlan
}

extension LayoutCompiler: DynamicValueDecoding {}
