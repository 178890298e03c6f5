import RetainGraphUtilities

/// Why an attach failed. Whatever the failure, the target was let go before the error was
/// thrown: every thread that was stopped was detached and runs again.
///
/// Each case's ``description`` is a complete message for a person, naming the process and
/// what to do about it.
///
/// ```swift
/// do {
///     let heap = try HeapSnapshot.capture(processID: pid)
/// } catch {
///     print(error.description)  // "process 4242 does not exist"
/// }
/// ```
public enum AttachError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No process has this id.
    case noSuchProcess(processID: Int32)
    /// The kernel refused to let this process trace the target; `reason` says why (not root
    /// and no `CAP_SYS_PTRACE`, `kernel.yama.ptrace_scope`, or another tracer already
    /// attached).
    case permissionDenied(processID: Int32, reason: String)
    /// The target maps no Swift runtime and no image with Swift type metadata.
    case notSwift(processID: Int32, command: String)
    /// The target's main thread has exited (`pthread_exit`) while its other threads run on:
    /// Linux shows no memory map and no files of such a process under `/proc/PID`, through
    /// which this attach reads it. It was not stopped.
    case mainThreadExited(processID: Int32)
    /// The target exited (or was killed) while it was being read.
    case processExited(processID: Int32, during: String)
    /// A thread did not stop within the limit (it may be blocked in the kernel).
    case threadsDidNotStop(processID: Int32, threads: [Int32], limit: Duration)
    /// Reading the stopped target took longer than ``AttachOptions/maximumStop``; it was let go
    /// before finishing.
    case stopLimitExceeded(processID: Int32, limit: Duration)
    /// The attach was cancelled (``AttachOptions/isCancelled``, such as after SIGINT).
    case cancelled(processID: Int32)
    /// A ``StoppedProcess`` was used from a thread other than the one that stopped it (the
    /// kernel accepts tracing requests only from that thread).
    case wrongThread(processID: Int32)
    /// The toolchain's `libswiftRemoteMirror.so` could not be loaded.
    case remoteMirrorUnavailable(reason: String)
    /// The target runs another Swift runtime (`target`, read from file `runtime`) than the one
    /// the remote mirror library reads (`mirror`, library `library`): its heap could be
    /// misread, so it was not stopped. ``AttachOptions/remoteMirrorPath`` (`--remote-mirror`)
    /// names the library of the target's toolchain.
    case runtimeMismatch(
        processID: Int32, target: String, runtime: String, mirror: String, library: String)
    /// The analysis of the copy gave up (the target was let go long before): `reason` says why
    /// (it took longer than ``AttachOptions/maximumAnalysis``, needed more memory than
    /// ``AttachOptions/maximumAnalysisMemory`` from counts read in the target, or the reader
    /// crashed on the target's memory). A corrupted or hostile heap ends so, not in a hang.
    case gaveUp(processID: Int32, reason: String)
    /// A system call failed in a way none of the other cases describe.
    case systemError(processID: Int32, operation: String, reason: String)

    /// A message for a person.
    public var description: String {
        switch self {
        case .noSuchProcess(let pid):
            return "process \(pid) does not exist"
        case .permissionDenied(let pid, let reason):
            return "not permitted to attach to process \(pid): \(reason); the process was not "
                + "touched"
        case .notSwift(let pid, let command):
            return
                "process \(pid) (\(PrintableText.escaped(command))) is not a Swift program: it maps no "
                + "libswiftCore.so and no image with Swift type metadata; it was let go untouched"
        case .mainThreadExited(let pid):
            return "process \(pid): its main thread has exited (pthread_exit) while its other "
                + "threads run on, and Linux shows no memory map for such a process under "
                + "/proc/\(pid); it cannot be read, and was let go untouched"
        case .processExited(let pid, let phase):
            return "process \(pid) exited while \(phase); nothing was reported"
        case .threadsDidNotStop(let pid, let threads, let limit):
            let list = threads.map(String.init).joined(separator: ", ")
            return "process \(pid): thread\(threads.count == 1 ? "" : "s") \(list) did not "
                + "stop within \(limit.shortDescription) (blocked in the kernel?); every "
                + "thread was let go"
        case .stopLimitExceeded(let pid, let limit):
            return "process \(pid) would have stayed stopped longer than "
                + "\(limit.shortDescription) (--max-stop); it was let go before the read "
                + "finished, nothing was reported"
        case .cancelled(let pid):
            return "attach to process \(pid) cancelled; the process was let go"
        case .wrongThread(let pid):
            return "process \(pid) was stopped by another thread: a stopped process must be "
                + "read and resumed on the thread that stopped it"
        case .remoteMirrorUnavailable(let reason):
            return "cannot load the Swift toolchain's libswiftRemoteMirror.so: \(reason)"
        case .runtimeMismatch(let pid, let target, let runtime, let mirror, let library):
            return "process \(pid) runs Swift \(target) (\(runtime)), but this tool reads Swift "
                + "\(mirror) (\(library)); the process was not stopped. Attach with the "
                + "libswiftRemoteMirror.so of a Swift \(target) toolchain: --remote-mirror "
                + "PATH (in a toolchain, usr/lib/swift/linux/libswiftRemoteMirror.so)"
        case .gaveUp(let pid, let reason):
            return "process \(pid): gave up: \(reason); the process was let go, nothing was "
                + "reported"
        case .systemError(let pid, let operation, let reason):
            return "process \(pid): \(operation) failed: \(reason)"
        }
    }
}
