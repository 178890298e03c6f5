#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over a `pthread_mutex_t`, shared by the package's modules.
///
/// `Synchronization.Mutex` locks with a futex that ThreadSanitizer does not intercept on Linux,
/// so correct code guarded by it is reported as racy. A pthread mutex is understood by TSan, which
/// keeps the package's concurrency stress tests meaningful.
///
/// Never call user code while holding the lock: ``withLock(_:)`` is meant for short critical
/// sections over the caller's own state.
package final class PthreadLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked, non-recursive lock.
    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and returns its result.
    ///
    /// The corresponding C functions are `pthread_mutex_lock` and `pthread_mutex_unlock`.
    @inline(__always)
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value guarded by a ``PthreadLock``.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = PthreadLock()
    private var value: Value

    /// Creates a guarded value.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
