// PRIVATE SWIFT RUNTIME DETAILS: decoding enums and opaque existentials from private copies.
//
// Relied on:
//   • The value witness table is the word before a type's metadata: size @64, flags u32 @80
//     (bit 17: the value is not stored inline in an existential buffer); an enum's table adds
//     getEnumTag @88 and destructiveProjectEnumData @96. Both take (value, metadata), pass
//     them in the first two argument registers and neither retains nor releases anything.
//   • getEnumTag numbers the cases with payloads first, in the order of the enum's field
//     records; the enum descriptor's u32 @20 holds the payload case count in its low 24 bits;
//     a field record's flags bit 0 marks an indirect case (its payload is a box).
//   • An opaque existential container: three words of buffer, then the dynamic type @24.

import Locking
import ObjectGraph

/// Decodes the references of dynamic values (see ``DynamicSlot``) from bytes copied out of an
/// object (by the census under its lock, by the walk from an object it retains), so nothing
/// here reads memory another thread may free.
package enum DynamicValues {
    /// The largest dynamic value the census copies.
    package static let maximumCopy = 512

    private typealias GetEnumTag = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt32
    private typealias ProjectEnumData =
        @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer)
        -> Void

    private struct CaseKey: Hashable {
        let metadata: UInt
        let tag: UInt32
    }

    private struct CaseLayout {
        let layout: ValueLayout
        let isIndirect: Bool
        let name: String
    }

    private static let cases = Locked([CaseKey: CaseLayout?]())

    /// Calls `visit` with every reference word of the dynamic value copied at `copy`, as a
    /// slot at offset 0 of the copy's word (its ownership, its role, whether it is a function
    /// context).
    ///
    /// - Parameters:
    ///   - slot: The value's slot; its `size` bytes are at `copy`, which this may modify.
    ///   - visit: Receives each stored word and the slot it was read from.
    package static func decode(
        _ slot: DynamicSlot, copy: UnsafeMutableRawPointer, _ visit: (UInt, LayoutSlot) -> Void
    ) {
        decode(slot, copy: copy, nesting: 0, visit)
    }

    private static func decode(
        _ slot: DynamicSlot, copy: UnsafeMutableRawPointer, nesting: Int,
        _ visit: (UInt, LayoutSlot) -> Void
    ) {
        guard nesting < LayoutCompiler.maximumNesting,
            let metadata = UnsafeRawPointer(bitPattern: slot.metadata)
        else { return }
        switch slot.shape {
        case .existential:
            // The copy may be of an object not yet initialised: the type word is checked to be
            // metadata before anything is read through it.
            let type = copy.loadUnaligned(fromByteOffset: 24, as: UInt.self)
            guard MetadataValidation.isTypeMetadata(type),
                let dynamic = UnsafeRawPointer(bitPattern: type),
                let witnesses = RuntimeABI.pointer(at: dynamic, offset: -8)
            else { return }
            let flags = witnesses.loadUnaligned(fromByteOffset: 80, as: UInt32.self)
            // The path names the box: `slot (Any)` for the value an `Any` holds.
            let path = Self.joined(slot.path, "(\(containerName(slot.metadata)))", separator: " ")
            if flags & 0x2_0000 != 0 {
                // Stored out of line: the buffer's first word is a box holding the value.
                visit(
                    copy.loadUnaligned(as: UInt.self),
                    LayoutSlot(
                        offset: 0, ownership: .strong, role: slot.base.role(path), isBox: true))
            } else {
                apply(
                    LayoutCompiler.valueLayout(of: dynamic), to: copy, base: slot.base,
                    path: path, nesting: nesting, visit)
            }
        case .enumValue:
            guard let witnesses = RuntimeABI.pointer(at: metadata, offset: -8),
                let tagFunction = RuntimeABI.pointer(at: witnesses, offset: 88),
                let projectFunction = RuntimeABI.pointer(at: witnesses, offset: 96)
            else { return }
            let tag = unsafeBitCast(tagFunction, to: GetEnumTag.self)(copy, metadata)
            guard let payload = caseLayout(metadata, tag: tag) else { return }
            unsafeBitCast(projectFunction, to: ProjectEnumData.self)(copy, metadata)
            // An optional's case is not part of the path (`action`, not `action.some`); other
            // enums name their case (`state.running`).
            let isOptional = TypeMetadata(address: metadata).kind == .optional
            let path = isOptional ? slot.path : Self.joined(slot.path, payload.name)
            if payload.isIndirect {
                visit(
                    copy.loadUnaligned(as: UInt.self),
                    LayoutSlot(
                        offset: 0, ownership: .strong, role: slot.base.role(path), isBox: true))
            } else {
                apply(
                    payload.layout, to: copy, base: slot.base, path: path, nesting: nesting, visit)
            }
        }
    }

    /// Visits the slots of `layout` (a value's, compiled as properties) in the value copied at
    /// `copy`, their roles rebased onto `base` at `path`.
    private static func apply(
        _ layout: ValueLayout, to copy: UnsafeMutableRawPointer, base: RoleBase, path: String,
        nesting: Int, _ visit: (UInt, LayoutSlot) -> Void
    ) {
        for slot in layout.slots {
            var rebased = slot
            rebased.role = base.role(joined(path, propertyPath(slot.role)))
            visit(copy.loadUnaligned(fromByteOffset: slot.offset, as: UInt.self), rebased)
        }
        for inner in layout.dynamics {
            var nested = inner
            nested.base = base
            nested.path = joined(path, inner.path)
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: inner.size, alignment: 16)
            defer { buffer.deallocate() }
            buffer.copyMemory(from: copy + inner.offset, byteCount: inner.size)
            decode(nested, copy: buffer, nesting: nesting + 1, visit)
        }
    }

    /// The path of a slot compiled as a property of a value.
    private static func propertyPath(_ role: ReferenceRole) -> String {
        if case .storedProperty(let name) = role { return name }
        return ""
    }

    private static func joined(_ head: String, _ tail: String, separator: String = ".") -> String {
        head.isEmpty ? tail : tail.isEmpty ? head : head + separator + tail
    }

    /// The name of an existential container's type, such as `Any` or `any Sendable`.
    private static func containerName(_ metadata: UInt) -> String {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return "Any" }
        return _typeName(unsafeBitCast(pointer, to: Any.Type.self), qualified: false)
    }

    /// The payload layout of case `tag` of an enum, or nil for a case without payload.
    private static func caseLayout(_ metadata: UnsafeRawPointer, tag: UInt32) -> CaseLayout? {
        let key = CaseKey(metadata: UInt(bitPattern: metadata), tag: tag)
        if let cached = cases.withLock({ $0[key] }) { return cached }
        let layout = makeCaseLayout(TypeMetadata(address: metadata), tag: Int(tag))
        cases.withLock { $0[key] = layout }
        return layout
    }

    private static func makeCaseLayout(_ metadata: TypeMetadata, tag: Int) -> CaseLayout? {
        guard let descriptor = metadata.nominalDescriptor, let fields = descriptor.fields else {
            return nil
        }
        let payloadCases = Int(
            descriptor.address.loadUnaligned(fromByteOffset: 20, as: UInt32.self) & 0xFF_FFFF)
        guard tag < payloadCases, tag < fields.count,
            let name = fields.mangledTypeName(at: tag), let length = name.length, length > 0
        else { return nil }
        let record = fields.address + 16 + 12 * tag
        let isIndirect = record.loadUnaligned(as: UInt32.self) & 1 != 0
        let caseName =
            fields.namePointer(at: tag).map {
                String(cString: $0.assumingMemoryBound(to: CChar.self))
            } ?? "case \(tag)"
        if isIndirect {
            return CaseLayout(layout: ValueLayout(), isIndirect: true, name: caseName)
        }
        guard
            let type = _getTypeByMangledNameInContext(
                name.start.assumingMemoryBound(to: UInt8.self), UInt(length),
                genericContext: descriptor.address,
                genericArguments: metadata.address + 16)
        else { return nil }
        let layout = LayoutCompiler.valueLayout(of: TypeMetadata(type).address)
        return CaseLayout(layout: layout, isIndirect: false, name: caseName)
    }
}
