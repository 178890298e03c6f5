import Foundation

/// Sets the current thread's pthread name with `pthread_setname_np` (looked up with `dlsym`:
/// Swift's `Glibc` module does not declare it), as a C library or a thread pool names its
/// threads.
///
/// Tests use it rather than `Thread.current.name = …`: on Linux that setter names the pthread
/// only once `start()` has stored the thread's handle, which races with the thread's first
/// lines, and under ThreadSanitizer it does not stick at all.
///
/// - Parameter name: At most 15 bytes (Linux's limit); longer names are refused.
/// - Returns: Whether the name was set.
@discardableResult
public func setCurrentPthreadName(_ name: String) -> Bool {
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else {
        return false
    }
    let setName = unsafeBitCast(symbol, to: SetName.self)
    return name.withCString { setName(pthread_self(), $0) } == 0
}
