// The only Swift file that imports the attach's process-access C door (Sources/CProcessAccess).
internal import CProcessAccess

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Thin, typed calls into ptrace, waitpid and process_vm_readv.
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

    /// `waitpid(tid, …, __WALL)`, without blocking when `blocking` is false.
    static func wait(_ tid: Int32, blocking: Bool) -> WaitResult {
        var status: Int32 = 0
        let result = rg_wait_thread(tid, &status, blocking ? 0 : 1)
        if result == 0 { return .running }
        if result < 0 { return errno == ECHILD ? .gone : .failed(errno) }
        if rg_status_is_gone(status) != 0 { return .gone }
        guard rg_status_is_stopped(status) != 0 else { return .running }
        let signal = rg_status_stop_signal(status)
        // An interrupt or a group stop is a PTRACE_EVENT_STOP; a stop with no event is a signal
        // on its way to the thread, which the detach must deliver.
        if rg_status_event(status) == rg_event_stop() || signal == SIGTRAP {
            return .stopped(pendingSignal: nil)
        }
        return .stopped(pendingSignal: signal)
    }

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
