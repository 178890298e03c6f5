#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A core of this process written while it runs on: a forked child writes the copy-on-write
/// image it has of the process, and the process is held only for the `fork`.
///
/// The core is an ELF core file that `retain-graph core FILE` (and gdb) read: heaps, stacks,
/// global variables and each image's relocated data, the memory map, the files mapped, and
/// notes saying what a forked child cannot see.
///
/// ```swift
/// import HeapDumps
///
/// let dump = try HeapDump.write(toFile: "/var/tmp/web.core")
/// print("held \(dump.pause), written in \(dump.duration)")
/// // then, anywhere: retain-graph core /var/tmp/web.core --who-holds App.Session
/// ```
///
/// **What a forked child sees.** The child has one thread, the one that called ``write(toFile:)``:
/// its registers are in the core. The other threads' registers at the fork are lost, so their
/// stacks are read whole and conservatively, as "a thread's stack at fork": a word below a
/// stack pointer may be stale and name an object no longer held there, and an object held only
/// in another thread's register is not seen. A thread in the middle of `malloc` or of a
/// reference count update at the fork may leave its block half made in the copy, as in any stop
/// that is not at a safe point. The core's notes say so, and `retain-graph core` lists it under
/// its limits.
///
/// **How it forks.** A raw `clone(2)` without `CLONE_VM` and without an exit signal: no
/// `pthread_atfork` handler (user code) runs, no allocator lock is taken, and the process's own
/// `SIGCHLD` handling never sees the child. The child runs under `SCHED_IDLE` (nice 19 where
/// that policy is refused), so it takes the CPU time the process leaves (a server keeps its
/// throughput; on a saturated machine the dump takes longer, and the process's copied pages
/// stay copied that much longer). It offers itself to the
/// OOM killer first, and writes with async-signal-safe calls only (no allocation, no lock):
/// `open`/`read` of `/proc/self/maps`, its memory read directly, `write`, `lseek`, `_exit`.
/// Pages of zeros are left as holes, so the file takes about the process's resident memory on
/// disk. While the child writes, pages the process changes are copied by the kernel: the
/// process's memory grows by what it writes meanwhile.
public enum HeapDump {
    /// Writes a core of this process to `path` from a forked child, and waits for the child.
    ///
    /// The calling thread waits for the child; every other thread runs on, and the process as
    /// a whole is held only for the `fork` (``HeapDumpResult/pause``).
    ///
    /// - Parameter path: The file to create (mode 0600: a core holds the process's secrets).
    ///   An existing file is not overwritten.
    /// - Returns: How long the process was held and the dump took, and the core's size.
    /// - Throws: ``HeapDumpError`` when the file cannot be created, the fork fails, or the
    ///   child could not write the core (the partial file is removed).
    /// - Complexity: The fork copies the process's page tables (about 2 MB per GiB resident);
    ///   the child then reads every resident page once.
    @discardableResult
    public static func write(toFile path: String) throws(HeapDumpError) -> HeapDumpResult {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HeapDumpError(path: path, code: errno, step: "creating the file")
        }
        defer { close(descriptor) }
        let result = HeapDumpDoor.write(to: descriptor)
        if let code = result.errorCode {
            unlink(path)
            throw HeapDumpError(path: path, code: code, step: "writing the core")
        }
        return HeapDumpResult(
            path: path, pause: result.pause, pauseCPUTime: result.pauseCPUTime,
            duration: result.duration,
            fileSize: result.fileSize, diskSize: result.diskSize,
            residentBytes: result.residentBytes, errorCode: nil)
    }

    /// This process's resident memory in bytes (`/proc/self/statm`).
    public static var residentBytes: Int { HeapDumpDoor.residentBytes }
}

/// What one dump did.
public struct HeapDumpResult: Sendable, Equatable {
    /// The core file, when one was created.
    public let path: String?
    /// How long the process was held: the `fork` (the calling thread inside `clone`).
    public let pause: Duration
    /// The CPU time the calling thread spent inside `clone` (copying the page tables): the
    /// pause's own cost, without the time it waited for a CPU on a busy machine.
    public let pauseCPUTime: Duration
    /// From the fork to the child's end: the time the core took to write.
    public let duration: Duration
    /// The core's length in bytes.
    public let fileSize: Int
    /// The bytes it takes on disk (pages of zeros are holes).
    public let diskSize: Int
    /// The process's resident memory when the dump started.
    public let residentBytes: Int
    /// The `errno` of the step that failed, or nil when the core was written.
    public let errorCode: Int32?

    /// Creates a result.
    public init(
        path: String?, pause: Duration, pauseCPUTime: Duration, duration: Duration,
        fileSize: Int, diskSize: Int, residentBytes: Int, errorCode: Int32?
    ) {
        self.path = path
        self.pause = pause
        self.pauseCPUTime = pauseCPUTime
        self.duration = duration
        self.fileSize = fileSize
        self.diskSize = diskSize
        self.residentBytes = residentBytes
        self.errorCode = errorCode
    }
}

/// A dump that could not be written.
public struct HeapDumpError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The core file.
    public let path: String
    /// The `errno` (or 128 + the signal that ended the child).
    public let code: Int32
    /// What failed.
    public let step: String

    /// An error of `step` on `path` with `errno` `code`.
    public init(path: String, code: Int32, step: String) {
        self.path = path
        self.code = code
        self.step = step
    }

    /// A message for a person.
    public var description: String {
        let reason =
            code > 128 && code < 192
            ? "the child ended by signal \(code - 128)"
            : String(cString: strerror(code))
        return "heap dump \(path): \(step) failed: \(reason)"
    }
}
