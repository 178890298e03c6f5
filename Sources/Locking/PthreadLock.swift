#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One heap allocation holding a `pthread_mutex_t` (the buffer's single element) and the value
/// it guards (the buffer's header).
///
/// A `ManagedBuffer` gives the mutex a stable address without a second allocation; the header
/// is destroyed by `ManagedBuffer` itself, the mutex by this class's `deinit`.
@usableFromInline
final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// Makes a buffer guarding `value` with an initialised, unlocked mutex.
    @inlinable
    static func make(_ value: consuming Value) -> LockStorage<Value> {
        // Moved, not copied, into the header: a copy of a state holding closures and objects
        // costs a retain and a release of each.
        var pending = Optional(value)
        let buffer = create(minimumCapacity: 1) { _ in pending.take().unsafelyUnwrapped }
        let storage = unsafeDowncast(buffer, to: LockStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            _ = mutex.deinitialize(count: 1)
        }
    }
}

/// A mutual-exclusion lock over a `pthread_mutex_t`, shared by the package's modules.
///
/// `Synchronization.Mutex` locks with a futex that ThreadSanitizer does not intercept on Linux,
/// so correct code guarded by it is reported as racy. A pthread mutex is understood by TSan, which
/// keeps the package's concurrency stress tests meaningful.
///
/// The lock is a handle on one heap allocation (the mutex): copies lock the same mutex.
///
/// Never call user code while holding the lock: ``withLock(_:)`` is meant for short critical
/// sections over the caller's own state.
///
/// ## Why `public` in a package-internal module
/// Swift 6.3 neither inlines nor specialises a `package` `@inlinable` function in another module
/// (checked with `objdump`: the callers call the generic entry points). Unspecialised, creating a
/// ``Locked`` looks `LockStorage<Value>`'s generic metadata up at run time (about 330
/// instructions) and every ``Locked/withLock(_:)`` goes through value witnesses. `Locking` is no
/// product of the package, so `public` here reaches only the package's own modules.
public struct PthreadLock: @unchecked Sendable {
    @usableFromInline let storage: LockStorage<Void>

    /// Creates an unlocked, non-recursive lock.
    @inlinable
    public init() { storage = .make(()) }

    /// Runs `body` with the lock held and returns its result.
    ///
    /// The corresponding C functions are `pthread_mutex_lock` and `pthread_mutex_unlock`.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        try storage.withUnsafeMutablePointerToElements { (mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body()
        }
    }
}

/// A value guarded by a ``PthreadLock``'s mutex, both in one heap allocation.
///
/// A handle, like the lock: copies share the value and the mutex. `public` for the reason given
/// on ``PthreadLock``.
public struct Locked<Value>: @unchecked Sendable {
    @usableFromInline let storage: LockStorage<Value>

    /// Creates a guarded value.
    ///
    /// - Parameter value: The initial value.
    @inlinable
    public init(_ value: consuming Value) { storage = .make(value) }

    /// Runs `body` with exclusive access to the value.
    ///
    /// The corresponding C functions are `pthread_mutex_lock` and `pthread_mutex_unlock`.
    @inlinable @inline(__always)
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        try storage.withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// What the package's readers of memory ask of a lock's storage: whether an object is one.
///
/// The reflection walk looks through the buffer behind a `Locked` value (an instrumented
/// timer's thread-safe state), so reports read `RunLoopTimer ⇒ .state.action ⇒ closure`
/// rather than naming the buffer.
package enum LockStorageIdentity {
    /// Whether `object` is the storage of a `Locked` value.
    package static func isLockStorage(_ object: AnyObject) -> Bool {
        object is any LockStorageMarker
    }

    /// The class of `Locked<Int>`'s storage, whose nominal descriptor all of them share.
    package static var sampleStorageClass: AnyClass { LockStorage<Int>.self }
}

/// Marks ``LockStorage`` for ``LockStorageIdentity``.
protocol LockStorageMarker: AnyObject {}

extension LockStorage: LockStorageMarker {}
