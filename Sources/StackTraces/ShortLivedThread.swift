#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs work on a thread of its own that ends with it, so that what the work leaves in
/// thread-local storage goes with the thread.
///
/// The `Runtime` module keeps every ELF image it reads for symbolication in a per-thread cache
/// (`ElfImageCache`, released only when its thread exits): a thread that symbolicated a heap
/// profile's stacks once held about 500 `Runtime.ImageSource.Storage` objects and the mappings
/// of every image's file for the rest of its life. Symbolicating on a short-lived thread
/// releases them as soon as the lookups are done; the symbolicator's own cache of frames per
/// address keeps the answers.
enum ShortLivedThread {
    /// The work and its result, handed to the new thread.
    private final class Work {
        let body: () -> Void

        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread and waits for it; on the calling thread if no thread can be
    /// started.
    ///
    /// The corresponding C functions are `pthread_create` and `pthread_join`.
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returned.
    /// - Complexity: `body`'s cost plus a thread's start and end (tens of microseconds).
    static func run<T>(_ body: () -> T) -> T {
        withoutActuallyEscaping(body) { body -> T in
            var result: T?
            let work = Work { result = body() }
            let context = Unmanaged.passRetained(work).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { raw in
                    guard let raw else { return nil }
                    Unmanaged<Work>.fromOpaque(raw).takeRetainedValue().body()
                    return nil
                }, context)
            if started == 0 {
                pthread_join(thread, nil)
            } else {
                Unmanaged<Work>.fromOpaque(context).release()
            }
            if let result { return result }
            return body()
        }
    }
}
