// PRIVATE SWIFT RUNTIME DETAILS for the executors of compiled layouts: reading a word, telling
// what kind of heap object a pointer names from its metadata, and the runtime's entry points
// for weak and unowned targets. See RuntimeABI/ for the layouts relied on.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads of live objects for the executors of compiled layouts (the reflection walk).
package enum ObjectMemory {
    /// Whether this platform and runtime are the ones the layouts were written for.
    package static var isSupportedPlatform: Bool { RuntimeABI.isSupportedPlatform }

    /// Reads a pointer-sized word.
    @inline(__always)
    package static func word(at address: UnsafeRawPointer, offset: Int = 0) -> UInt {
        RuntimeABI.word(at: address, offset: offset)
    }

    /// Whether `raw` looks like a pointer to a heap object: not null, not in the first page,
    /// aligned, in the user half of the address space. It proves nothing about what is there;
    /// call it on words the type system says hold a reference.
    package static func isPlausiblePointer(_ raw: UInt) -> Bool {
        RuntimeABI.isPlausiblePointer(raw)
    }

    /// The kind of heap object `pointer` names, read from its metadata's kind word; nil when
    /// its first word is not a plausible metadata pointer.
    ///
    /// - Parameter pointer: A word the type system says holds a strong reference, whose holder
    ///   the caller has retained (so the object cannot be freed meanwhile).
    package static func kind(ofObjectAt pointer: UnsafeRawPointer) -> HeapObjectKind? {
        guard let metadata = RuntimeABI.pointer(at: pointer) else { return nil }
        return HeapObjectKind(metadataKind: RuntimeABI.word(at: metadata))
    }

    /// Whether the entry points for weak and unowned targets are available.
    package static var canLoadWeakAndUnowned: Bool { RuntimeABI.canLoadWeakAndUnowned }

    /// Loads the target of a native weak reference stored at `address`, retained (+1), or nil
    /// when it is nil or its target is deinitialising (`swift_weakLoadStrong`).
    package static func loadWeakRetained(at address: UnsafeRawPointer) -> UnsafeRawPointer? {
        RuntimeABI.loadWeakRetained(at: address)
    }

    /// Retains the object an unowned reference points to, unless it is being deinitialised
    /// (`swift_tryRetain`); the caller holds the object that stores the unowned reference.
    package static func retainUnownedTarget(_ object: UnsafeRawPointer) -> Bool {
        RuntimeABI.retainUnownedTarget(object)
    }

    /// The bytes of the heap block at `pointer` (the allocator's usable size): where a
    /// collection's tail-allocated elements must end.
    ///
    /// The corresponding C function is glibc's `malloc_usable_size` (looked up with `dlsym`:
    /// the `Glibc` module does not import `malloc.h`); 0 when it cannot be found.
    package static func blockSize(ofObjectAt pointer: UnsafeRawPointer) -> Int {
        usableSize?(pointer) ?? 0
    }

    private typealias UsableSize = @convention(c) (UnsafeRawPointer) -> Int

    private static let usableSize: UsableSize? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"
    ).map { unsafeBitCast($0, to: UsableSize.self) }

    /// The name a capture of `object` is shown under: its class's name without its module.
    package static func captureName(of object: AnyObject) -> String {
        _typeName(type(of: object), qualified: false)
    }
}
