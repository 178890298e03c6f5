// PRIVATE SWIFT RUNTIME DETAILS. Everything under RuntimeABI/ reads memory layouts that the Swift
// runtime does not promise to keep (Swift 6.3, Linux, 64-bit, no Objective-C interop). The rest
// of the module only talks to these files through the small typed helpers they define.
//
// Assumptions (each is checked at run time where it can be, and the walker reports a diagnostic
// instead of reading when a check fails):
//   • Metadata records start with a pointer-sized kind word. On Linux, class metadata stores 0
//     (`MetadataKind::Class`); value kinds are the runtime's enumerated values below (≤ 0x7FF).
//   • Class metadata (no Objective-C interop): superclass at +8, nominal descriptor at +40.
//     Struct/enum/optional metadata: descriptor at +8, generic arguments from +16.
//   • Heap objects start with their metadata pointer, then the reference counts (16 bytes).
//   • Swift images are never unloaded, so metadata and descriptors stay valid for the process.

import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Namespace for the private runtime layouts the walker depends on.
enum RuntimeABI {
    /// Whether this build targets a platform whose layouts the walker was written and tested for.
    static let isSupportedPlatform: Bool = {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        return MemoryLayout<UnsafeRawPointer>.size == 8
        #else
        return false
        #endif
    }()

    /// The lowest address a valid pointer can have (the runtime's `LeastValidPointerValue`).
    static let leastValidPointer: UInt = 4096

    /// Whether `raw` looks like a pointer to a heap object or metadata record: not null, not in
    /// the first page, pointer-aligned, and inside the user half of a 57-bit address space.
    ///
    /// This cannot prove that memory is readable; the walker only calls it on words that the type
    /// system already says hold a reference, as a guard against misreading a layout.
    /// - Parameter alignment: The target's alignment: 8 for metadata and heap objects, 4 for
    ///   compiler-emitted descriptors.
    static func isPlausiblePointer(_ raw: UInt, alignment: UInt = 8) -> Bool {
        raw >= leastValidPointer && raw & (alignment - 1) == 0 && raw < (1 << 56)
    }

    /// Reads a pointer-sized word.
    @inline(__always)
    static func word(at address: UnsafeRawPointer, offset: Int = 0) -> UInt {
        address.loadUnaligned(fromByteOffset: offset, as: UInt.self)
    }

    /// Reads a pointer that must be plausible, or returns `nil`.
    static func pointer(at address: UnsafeRawPointer, offset: Int = 0, alignment: UInt = 8)
        -> UnsafeRawPointer?
    {
        let raw = word(at: address, offset: offset)
        guard isPlausiblePointer(raw, alignment: alignment) else { return nil }
        return UnsafeRawPointer(bitPattern: raw)
    }

    /// Resolves a 32-bit relative direct pointer stored at `address` (nil when the offset is 0).
    static func relativeDirect(at address: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = address.loadUnaligned(as: Int32.self)
        guard offset != 0 else { return nil }
        return address + Int(offset)
    }

    /// Resolves a relative pointer that may be indirect (low bit set: it points at a pointer).
    static func relativeIndirectable(at address: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = address.loadUnaligned(as: Int32.self)
        guard offset != 0 else { return nil }
        if offset & 1 == 0 { return address + Int(offset) }
        let slot = address + Int(offset & ~1)
        return pointer(at: slot, alignment: 4)
    }

    /// Whether `address` lies inside a loaded image (an executable or shared library), which is
    /// where compiler-emitted descriptors and mangled names live.
    ///
    /// The corresponding C function is `dladdr` (a GNU extension the `Glibc` module does not
    /// import, so it is looked up with `dlsym`; its `Dl_info` is four pointers). When it cannot
    /// be found the check passes, and only the other plausibility checks apply.
    static func isInLoadedImage(_ address: UnsafeRawPointer) -> Bool {
        guard let dladdr = dladdrFunction else { return true }
        var info: (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?, UnsafeRawPointer?) =
            (nil, nil, nil, nil)
        return withUnsafeMutableBytes(of: &info) { buffer in
            dladdr(address, buffer.baseAddress!) != 0
        } && info.1 != nil
    }

    private typealias DladdrFunction =
        @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer) -> Int32

    private static let dladdrFunction: DladdrFunction? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "dladdr"
    ).map { unsafeBitCast($0, to: DladdrFunction.self) }
}

/// The kind word at the start of every metadata record (`MetadataKind` in the runtime).
enum MetadataKind: Equatable, CustomStringConvertible {
    case `class`, `struct`, `enum`, optional, foreignClass, foreignReferenceType
    case opaque, tuple, function, existential, metatype, existentialMetatype
    case extendedExistential, fixedArray
    case heapLocalVariable, heapGenericLocalVariable, errorObject, task, job
    /// A value the walker does not know; it never follows such metadata.
    case unknown(UInt)

    init(rawValue: UInt) {
        switch rawValue {
        case 0: self = .class
        case 0x200: self = .struct
        case 0x201: self = .enum
        case 0x202: self = .optional
        case 0x203: self = .foreignClass
        case 0x204: self = .foreignReferenceType
        case 0x300: self = .opaque
        case 0x301: self = .tuple
        case 0x302: self = .function
        case 0x303: self = .existential
        case 0x304: self = .metatype
        case 0x306: self = .existentialMetatype
        case 0x307: self = .extendedExistential
        case 0x308: self = .fixedArray
        case 0x400: self = .heapLocalVariable
        case 0x500: self = .heapGenericLocalVariable
        case 0x501: self = .errorObject
        case 0x502: self = .task
        case 0x503: self = .job
        default: self = .unknown(rawValue)
        }
    }

    var description: String {
        switch self {
        case .unknown(let raw): return "unknown metadata kind 0x\(String(raw, radix: 16))"
        default: return "\(self)"
        }
    }
}

/// A metadata record, as a typed view over its address.
struct TypeMetadata: Hashable {
    let address: UnsafeRawPointer

    init(_ type: Any.Type) { address = unsafeBitCast(type, to: UnsafeRawPointer.self) }
    init(address: UnsafeRawPointer) { self.address = address }

    /// The Swift type this metadata stands for. Only valid for metadata of a type (not for
    /// heap-local metadata such as closure contexts).
    var type: Any.Type { unsafeBitCast(address, to: Any.Type.self) }

    var kind: MetadataKind { MetadataKind(rawValue: RuntimeABI.word(at: address)) }

    /// The nominal type descriptor of a class, struct, enum or optional; nil for other kinds or
    /// when the pointer is implausible.
    var nominalDescriptor: TypeDescriptor? {
        let offset: Int
        switch kind {
        case .class: offset = 40
        case .struct, .enum, .optional: offset = 8
        default: return nil
        }
        guard let pointer = RuntimeABI.pointer(at: address, offset: offset, alignment: 4) else {
            return nil
        }
        let descriptor = TypeDescriptor(address: pointer)
        guard let descriptorKind = descriptor.kind,
            descriptorKind.matches(kind)
        else { return nil }
        return descriptor
    }

    /// The superclass metadata of a class, if it is a Swift class.
    var superclass: TypeMetadata? {
        guard kind == .class, let pointer = RuntimeABI.pointer(at: address, offset: 8) else {
            return nil
        }
        let superclass = TypeMetadata(address: pointer)
        return superclass.kind == .class ? superclass : nil
    }

    /// The `index`th generic argument of a struct, enum or optional (arguments start at +16).
    func valueGenericArgument(_ index: Int) -> TypeMetadata? {
        guard kind == .struct || kind == .enum || kind == .optional,
            let pointer = RuntimeABI.pointer(at: address, offset: 16 + 8 * index)
        else { return nil }
        return TypeMetadata(address: pointer)
    }
}
