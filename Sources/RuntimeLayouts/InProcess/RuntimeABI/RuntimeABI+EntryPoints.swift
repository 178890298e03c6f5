// PRIVATE SWIFT RUNTIME DETAILS: runtime entry points that libswiftCore exports but does not
// declare publicly.
//
//   • swift_reflectionMirror_* use the Swift calling convention and are declared here exactly as
//     the standard library declares them for `Mirror` and `_forEachField` (stdlib
//     ReflectionMirror.swift). They are only ever called on struct and class metadata: for
//     other kinds the runtime dereferences the (absent) value or traps.
//   • swift_weakLoadStrong and swift_tryRetain use the C calling convention and are looked up
//     with `dlsym`, so a runtime without them degrades to "weak/unowned targets unknown"
//     instead of failing to load.

internal import SwiftShims

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@_silgen_name("swift_reflectionMirror_recursiveCount")
private func _rrRecursiveFieldCount(_ type: Any.Type) -> Int

@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func _rrRecursiveFieldMetadata(
    _ type: Any.Type, index: Int, fieldMetadata: UnsafeMutablePointer<_FieldReflectionMetadata>
) -> Any.Type

@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func _rrRecursiveFieldOffset(_ type: Any.Type, index: Int) -> Int

/// One stored property as the runtime reports it.
struct RuntimeField {
    var name: String
    /// The address of the name string inside the field record (used to find the record).
    var namePointer: UnsafeRawPointer?
    var type: Any.Type
    var offset: Int
    var isStrong: Bool
}

extension RuntimeABI {
    /// The stored properties of a class (superclasses' first) or struct.
    ///
    /// - Precondition: `metadata.kind` is `.class` or `.struct` and its descriptor has field
    ///   metadata (checked by the caller); the runtime entry points are not safe otherwise.
    static func storedFields(of metadata: TypeMetadata) -> [RuntimeField] {
        let type = metadata.type
        let count = _rrRecursiveFieldCount(type)
        guard count > 0, count < 1 << 16 else { return [] }
        var result: [RuntimeField] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            var field = _FieldReflectionMetadata()
            let fieldType = _rrRecursiveFieldMetadata(type, index: index, fieldMetadata: &field)
            let offset = _rrRecursiveFieldOffset(type, index: index)
            let name = field.name.map { String(cString: $0) } ?? "#\(index)"
            let namePointer = field.name.map { UnsafeRawPointer($0) }
            if let free = field.freeFunc, let pointer = field.name { free(pointer) }
            result.append(
                RuntimeField(
                    name: name, namePointer: field.freeFunc == nil ? namePointer : nil,
                    type: fieldType, offset: offset, isStrong: field.isStrong))
        }
        return result
    }

    private typealias LoadStrongFunction = @convention(c) (UnsafeRawPointer) -> UnsafeRawPointer?
    /// `swift_tryRetain` returns the object when it retained it and null otherwise in this
    /// runtime (older runtimes returned a C `bool`); the walker only tests for non-zero.
    private typealias TryRetainFunction = @convention(c) (UnsafeRawPointer) -> UnsafeRawPointer?

    private static func lookUp(_ name: String) -> UnsafeMutableRawPointer? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
    }

    /// `swift_weakLoadStrong(WeakReference *)`: +1 strong reference or null.
    private static let weakLoadStrong: LoadStrongFunction? = lookUp("swift_weakLoadStrong").map {
        unsafeBitCast($0, to: LoadStrongFunction.self)
    }

    /// `swift_tryRetain(HeapObject *)`: retains (+1) unless the object is being deinitialised.
    private static let tryRetain: TryRetainFunction? = lookUp("swift_tryRetain").map {
        unsafeBitCast($0, to: TryRetainFunction.self)
    }

    /// Whether the entry points for weak and unowned targets are available.
    static var canLoadWeakAndUnowned: Bool { weakLoadStrong != nil && tryRetain != nil }

    /// Loads the target of a native weak reference stored at `address`, retained (+1), or nil
    /// when it is nil or its target is deinitialising. The word at `address` is never used as
    /// an object pointer.
    static func loadWeakRetained(at address: UnsafeRawPointer) -> UnsafeRawPointer? {
        weakLoadStrong?(address)
    }

    /// Retains the object an unowned reference points to, unless it is being deinitialised.
    ///
    /// Safe on a deinitialised object because an unowned reference keeps the object's memory
    /// (and its reference counts) allocated; the caller must hold the object that stores the
    /// unowned reference, so that reference cannot be released meanwhile.
    static func retainUnownedTarget(_ object: UnsafeRawPointer) -> Bool {
        tryRetain?(object) != nil
    }
}
