// PRIVATE SWIFT RUNTIME DETAILS (this process's runtime): decoding enum and existential values
// from private copies, through the value witnesses (see RuntimeMetadata+Objects.swift for the
// layouts relied on). Nothing here reads memory another thread may free: the values are copies.

import Locking
import ObjectGraph

extension RuntimeMetadata {
    private typealias GetEnumTag = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt32
    private typealias ProjectEnumData =
        @convention(c) (UnsafeMutableRawPointer, UnsafeRawPointer) -> Void

    private struct CaseKey: Hashable {
        let metadata: UInt
        let tag: UInt32
    }

    private struct CaseInfo: Sendable {
        let name: String
        let payload: TypeHandle?
        let isIndirect: Bool
    }

    private static let cases = Locked([CaseKey: CaseInfo?]())

    package func enumCase(of type: TypeHandle, copy: UnsafeMutableRawPointer, address: UInt)
        -> (name: String, payload: TypeHandle?, isIndirect: Bool)?
    {
        guard let metadata = UnsafeRawPointer(bitPattern: UInt(type.raw)),
            let witnesses = RuntimeABI.pointer(at: metadata, offset: -8),
            let tagFunction = RuntimeABI.pointer(at: witnesses, offset: 88),
            let projectFunction = RuntimeABI.pointer(at: witnesses, offset: 96)
        else { return nil }
        let tag = unsafeBitCast(tagFunction, to: GetEnumTag.self)(copy, metadata)
        let key = CaseKey(metadata: UInt(bitPattern: metadata), tag: tag)
        let info: CaseInfo?
        if let cached = Self.cases.withLock({ $0[key] }) {
            info = cached
        } else {
            info = Self.caseInfo(TypeMetadata(address: metadata), tag: Int(tag))
            Self.cases.withLock { $0[key] = info }
        }
        guard let info else { return nil }
        unsafeBitCast(projectFunction, to: ProjectEnumData.self)(copy, metadata)
        return (info.name, info.payload, info.isIndirect)
    }

    private static func caseInfo(_ metadata: TypeMetadata, tag: Int) -> CaseInfo? {
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
        if isIndirect { return CaseInfo(name: caseName, payload: nil, isIndirect: true) }
        guard
            let type = _getTypeByMangledNameInContext(
                name.start.assumingMemoryBound(to: UInt8.self), UInt(length),
                genericContext: descriptor.address, genericArguments: metadata.address + 16)
        else { return nil }
        return CaseInfo(
            name: caseName,
            payload: TypeHandle(UInt64(UInt(bitPattern: TypeMetadata(type).address))),
            isIndirect: false)
    }

    package func existentialContents(of type: TypeHandle, copy: UnsafeRawPointer, address: UInt)
        -> (type: TypeHandle, isBoxed: Bool)?
    {
        // The copy may be of an object not yet initialised: the type word is checked to be
        // metadata before anything is read through it.
        let word = copy.loadUnaligned(fromByteOffset: 24, as: UInt.self)
        guard MetadataValidation.isTypeMetadata(word),
            let dynamic = UnsafeRawPointer(bitPattern: word),
            let witnesses = RuntimeABI.pointer(at: dynamic, offset: -8)
        else { return nil }
        let flags = witnesses.loadUnaligned(fromByteOffset: 80, as: UInt32.self)
        return (TypeHandle(UInt64(word)), flags & 0x2_0000 != 0)
    }
}
