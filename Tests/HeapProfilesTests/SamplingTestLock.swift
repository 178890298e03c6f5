import Foundation

/// Serializes the tests that change the process-wide sampling settings, across test targets
/// (Swift Testing runs suites in parallel, and every target's tests share one process): an
/// advisory lock on a file, which excludes other open descriptions in the same process too.
/// `Tests/HeapCensusTests` has the same helper on the same file.
enum SamplingTestLock {
    static func withLock<T>(_ body: () throws -> T) rethrows -> T {
        let descriptor = open(
            NSTemporaryDirectory() + "/retaingraph-sampling-tests.lock", O_RDWR | O_CREAT, 0o600)
        if descriptor >= 0 { flock(descriptor, LOCK_EX) }
        defer {
            if descriptor >= 0 {
                flock(descriptor, LOCK_UN)
                close(descriptor)
            }
        }
        return try body()
    }
}
