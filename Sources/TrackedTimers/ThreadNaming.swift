import Foundation

/// Thread names and ids from glibc: `pthread_getname_np` and `gettid`, which Swift's `Glibc`
/// module does not declare (they need `_GNU_SOURCE`), looked up once with `dlsym`. When a C
/// library lacks them, names are unknown and reports fall back to addresses.
enum ThreadNaming {
    private typealias GetName =
        @convention(c) (pthread_t, UnsafeMutablePointer<CChar>?, Int) ->
        Int32
    private typealias GetThreadID = @convention(c) () -> Int32

    private static let getName: GetName? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "pthread_getname_np"
    ).map { unsafeBitCast($0, to: GetName.self) }

    private static let getThreadID: GetThreadID? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0), "gettid"
    ).map { unsafeBitCast($0, to: GetThreadID.self) }

    /// The current thread's pthread name (at most 15 bytes on Linux), as
    /// `pthread_getname_np(pthread_self(), …)` reads it.
    static func currentPthreadName() -> String? {
        guard let getName else { return nil }
        var buffer = [CChar](repeating: 0, count: 64)
        guard getName(pthread_self(), &buffer, buffer.count) == 0 else { return nil }
        return String(
            decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The process's name as the kernel keeps it (`/proc/self/comm`, the main thread's name):
    /// what a thread that never named itself inherits.
    static func processName() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8) else {
            return nil
        }
        return text.trimmingCharacters(in: .newlines)
    }

    /// The kernel's id of the current thread (`gettid`), as `top -H` and gdb show it.
    static func currentThreadID() -> Int32? {
        getThreadID?()
    }
}
