// The only Swift file that imports the attach's process-access C door (Sources/CProcessAccess).
internal import CProcessAccess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Thin, typed calls into ptrace, waitid, waitpid and process_vm_readv, and the stop guard.
///
/// Each call returns the `errno` of a failure (0 on success) or an optional result: the callers
/// turn them into ``AttachError``s. Every ptrace request must come from the thread that seized
/// the target's threads (the kernel ties a tracee to one tracing thread).
enum ProcessAccess {
    /// What waiting for a thread reported.
    enum WaitResult: Equatable {
        /// The thread is in a ptrace stop. `signal` is the signal it was about to receive when
        /// the stop is a signal-delivery stop (to deliver at detach), else nil.
        case stopped(pendingSignal: Int32?)
        /// The thread exited or was killed.
        case gone
        /// Nothing yet (the thread has not stopped).
        case running
        /// `waitpid` failed with this `errno`.
        case failed(Int32)
    }

    /// The calling thread's kernel id (`gettid`).
    static var currentThreadID: Int32 { rg_current_thread() }

    /// `PTRACE_SEIZE`: attaches to thread `tid` without stopping it. Returns `errno`, or 0.
    static func seize(_ tid: Int32) -> Int32 {
        rg_ptrace_seize(tid) == 0 ? 0 : errno
    }

    /// `PTRACE_INTERRUPT`: asks seized thread `tid` to stop. Returns `errno`, or 0.
    static func interrupt(_ tid: Int32) -> Int32 {
        rg_ptrace_interrupt(tid) == 0 ? 0 : errno
    }

    /// `PTRACE_DETACH`: lets thread `tid` run again, delivering `signal` (0 for none).
    /// Returns `errno`, or 0.
    @discardableResult
    static func detach(_ tid: Int32, signal: Int32) -> Int32 {
        rg_ptrace_detach(tid, signal) == 0 ? 0 : errno
    }

    /// What thread `tid` is doing, without consuming what it reports (`waitid` with
    /// `WNOHANG | WNOWAIT | __WALL`).
    ///
    /// A signal-delivery-stop stays unconsumed: were this process to die before the detach,
    /// the kernel would still deliver the signal when it lets the thread go (a consuming
    /// `waitpid` would clear it, and the signal would be lost).
    static func peek(_ tid: Int32) -> WaitResult {
        var signal: Int32 = 0
        var event: Int32 = 0
        switch rg_peek_thread(tid, &signal, &event) {
        case 0: return .running
        case 1: break
        case 2: return .gone
        default: return errno == ECHILD ? .gone : .failed(errno)
        }
        // An interrupt or a group stop is a PTRACE_EVENT_STOP; a stop with no event is a signal
        // on its way to the thread, which the detach must deliver.
        if event == rg_event_stop() || signal == SIGTRAP { return .stopped(pendingSignal: nil) }
        return .stopped(pendingSignal: signal)
    }

    /// Reaps thread `tid` once it is gone (`waitpid` with `WNOHANG | __WALL`): a traced thread
    /// that dies waits for its tracer, and an `execve` in its process waits for it.
    static func reap(_ tid: Int32) {
        _ = rg_reap_thread(tid)
    }

    /// Arms the stop guard for an attach (`CProcessAccess/stop_guard.h`, used by
    /// ``SeizedThreads``): installs its signal handlers if no attach is in progress yet.
    static func armGuard() { rg_guard_arm() }

    /// Ends an attach's guard; when it was the last, raises held-back job-control signals.
    static func disarmGuard() { rg_guard_disarm() }

    /// Records that the calling thread is about to seize `tid`; the guard's slot for it, or -1.
    static func guardThread(_ tid: Int32) -> Int32 { rg_guard_add(tid) }

    /// Records the signal the detach of `tid` (in guard slot `slot`) must deliver.
    static func guardSignal(_ tid: Int32, slot: Int32, signal: Int32) {
        rg_guard_set_signal(slot, tid, signal)
    }

    /// Forgets `tid` (detached or gone) in the guard.
    static func unguardThread(_ tid: Int32, slot: Int32) { rg_guard_remove(slot, tid) }

    /// The general-purpose registers of stopped thread `tid` and its stack pointer
    /// (`PTRACE_GETREGSET`, `NT_PRSTATUS`), or the `errno` of the failure.
    static func registers(_ tid: Int32) -> Result<(words: [UInt64], stackPointer: UInt64), Errno> {
        var words = [UInt64](repeating: 0, count: Int(RG_REGISTER_WORDS))
        var stackPointer: UInt64 = 0
        let count = words.withUnsafeMutableBufferPointer {
            rg_ptrace_registers(tid, $0.baseAddress, &stackPointer)
        }
        guard count >= 0 else { return .failure(Errno(errno)) }
        return .success((Array(words.prefix(Int(count))), stackPointer))
    }

    /// Copies `ranges` of process `pid`'s memory (`process_vm_readv`, up to 64 per call).
    ///
    /// - Returns: The bytes copied (the kernel stops at the first range it cannot read), or
    ///   the `errno` of the failure (`ESRCH` once the process is gone, `EFAULT` when the first
    ///   range is unreadable, `EPERM` without permission).
    static func read(
        _ pid: Int32, ranges: [(local: UnsafeMutableRawPointer, remote: UInt, count: Int)]
    ) -> Result<Int, Errno> {
        guard !ranges.isEmpty else { return .success(0) }
        let locals = ranges.map { UInt64(UInt(bitPattern: $0.local)) }
        let remotes = ranges.map { UInt64($0.remote) }
        let counts = ranges.map { UInt64($0.count) }
        let copied = rg_read_process(pid, locals, remotes, counts, UInt(ranges.count))
        return copied < 0 ? .failure(Errno(errno)) : .success(copied)
    }

    /// Whether process `pid` exists (`kill(pid, 0)`): its `errno` (`ESRCH` when it does not,
    /// `EPERM` when it does but belongs to someone else), or 0.
    static func probe(_ pid: Int32) -> Int32 {
        rg_process_exists(pid) == 0 ? 0 : errno
    }
}

/// An `errno` value.
struct Errno: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }

    /// `strerror` of the code.
    var description: String { String(cString: strerror(code)) }
}
