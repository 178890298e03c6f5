import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Stops every thread of a process, including those created while it does so.
///
/// Seizes and interrupts each thread listed in `/proc/PID/task` (`PTRACE_SEIZE`, then
/// `PTRACE_INTERRUPT`), waits until each reports its stop, then lists the threads again: a
/// thread not yet stopped may have created another (`clone` has linked the new thread into
/// the list before the creating thread returns to user space, where it stops). When a listing
/// shows no new thread, every thread is stopped: a stopped thread creates none.
///
/// What the kernel guarantees, and what this code relies on (`ptrace(2)`, and
/// `kernel/ptrace.c` `exit_ptrace`, `__ptrace_unlink`):
/// - **The tracer's death lets the target go.** When the thread that seized the target's
///   threads exits, however it exits (SIGKILL included), the kernel detaches every thread it
///   traces and wakes each one in a ptrace stop. Hence the seize is never done with
///   `PTRACE_O_EXITKILL` (which would kill the target instead), nor with any other option.
/// - **`PTRACE_SEIZE`, not `PTRACE_ATTACH`:** seizing sends no SIGSTOP (`PTRACE_ATTACH` does,
///   and a SIGSTOP still queued when the tracer dies would stop the whole target for good);
///   stops are requested with `PTRACE_INTERRUPT` and reported as `PTRACE_EVENT_STOP`, and an
///   `execve` in the target raises no extra SIGTRAP.
/// - **Group stops are kept:** a target already stopped by SIGSTOP reports a
///   `PTRACE_EVENT_STOP` for its group stop, and a detach (or the tracer's death) puts it back
///   in its group stop: a process someone else stopped stays stopped, and one no one stopped
///   runs.
/// - **Signals are not lost:** a signal that arrives while a thread is in its stop stays
///   queued, and is delivered once the thread runs; one that arrives on a thread's way to its
///   stop makes a signal-delivery-stop, which is looked at without being consumed
///   (``ProcessAccess/peek(_:)``, `WNOWAIT`) so that the kernel still holds the signal, and
///   the detach delivers it. Should this process die before the detach, the kernel delivers it.
/// - **Threads that end, fork or exec:** a thread that exits meanwhile is reaped (a traced
///   thread waits for its tracer, and so does an `execve` in its process). A `fork` makes a
///   process that is not traced. A thread that exits leaves no trace; a main thread that has
///   exited (`pthread_exit`, `dispatchMain()`) is a zombie, skipped.
///
/// On top of that, ``SeizedThreads`` registers each thread with the stop guard, which lets the
/// target go as soon as this process gets a crash or a fatal signal, before its crash handlers
/// or its core dump (which come before the kernel's detach), and holds back job-control stops
/// (SIGTSTP) of this process until the target runs again. What is left: a SIGSTOP sent to this
/// process (it cannot be caught) keeps the target stopped until this process is continued.
struct ThreadStopper {
    let processID: Int32
    let options: AttachOptions
    private(set) var threads: [StoppedThread] = []
    private(set) var firstStop: ContinuousClock.Instant?
    /// Every thread seized and not let go yet.
    private(set) var seized = SeizedThreads()

    init(processID: Int32, options: AttachOptions) {
        self.processID = processID
        self.options = options
    }

    /// Stops every thread and reads their registers.
    mutating func stopAll() throws(AttachError) {
        var stopped = Set<Int32>()
        var zombies = Set<Int32>()
        let limit = max(options.maximumStop, .milliseconds(10))
        while true {
            guard let ids = ProcessFiles.threadIDs(of: processID), !ids.isEmpty else {
                throw seized.ids.isEmpty
                    ? .noSuchProcess(processID: processID)
                    : .processExited(processID: processID, during: "its threads were stopped")
            }
            let new = ids.filter { !seized.contains($0) && !zombies.contains($0) }
            if new.isEmpty { break }
            StopPoints.reach("listed \(ids.count) threads, \(new.count) new")
            var waiting: [Int32] = []
            for tid in new {
                guard try seize(tid) else {
                    if isZombie(state(of: tid)) { zombies.insert(tid) }
                    continue
                }
                if ProcessAccess.interrupt(tid) == 0 {
                    StopPoints.reach("interrupted thread \(tid)")
                    waiting.append(tid)
                } else {
                    forgetIfGone(tid)
                }
            }
            try wait(for: waiting, stopped: &stopped)
            if options.isCancelled() { throw .cancelled(processID: processID) }
            if let firstStop, ContinuousClock.now - firstStop > limit {
                throw .stopLimitExceeded(processID: processID, limit: limit)
            }
        }
        guard !stopped.isEmpty else {
            throw .processExited(processID: processID, during: "its threads were stopped")
        }
        try readRegisters(of: stopped.sorted())
    }

    /// Lets every thread seized so far go (see ``SeizedThreads/release()``).
    mutating func letGo() {
        seized.release()
    }

    /// Seizes `tid`: true once seized, false when it ended (or turned zombie) meanwhile.
    private mutating func seize(_ tid: Int32) throws(AttachError) -> Bool {
        seized.enter(tid)
        let error = ProcessAccess.seize(tid)
        if error == 0 {
            if firstStop == nil { firstStop = .now }
            StopPoints.reach("seized thread \(tid)")
            return true
        }
        seized.forget(tid)
        // ESRCH: the thread ended; EPERM on a thread that has exited: a zombie main thread.
        if error == ESRCH { return false }
        if error == EPERM, case let state = state(of: tid), state == nil || isZombie(state) {
            return false
        }
        if error == EPERM {
            throw .permissionDenied(
                processID: processID, reason: ProcessChecks.permissionReason(processID))
        }
        throw .systemError(
            processID: processID, operation: "PTRACE_SEIZE of thread \(tid)",
            reason: Errno(error).description)
    }

    /// Waits until each of `tids` reports its stop, within the stop limit.
    private mutating func wait(for tids: [Int32], stopped: inout Set<Int32>) throws(AttachError) {
        var waiting = tids
        let limit = max(options.maximumStop, .milliseconds(10))
        var spins = 0
        while !waiting.isEmpty {
            var still: [Int32] = []
            for tid in waiting {
                switch ProcessAccess.peek(tid) {
                case .stopped(let signal):
                    stopped.insert(tid)
                    if let signal { seized.deliver(signal, to: tid) }
                    StopPoints.reach("thread \(tid) stopped")
                case .gone:
                    forgetIfGone(tid)
                case .running:
                    still.append(tid)
                case .failed(let error):
                    throw .systemError(
                        processID: processID, operation: "waitid of thread \(tid)",
                        reason: Errno(error).description)
                }
            }
            waiting = still
            guard !waiting.isEmpty else { return }
            if options.isCancelled() { throw .cancelled(processID: processID) }
            if let firstStop, ContinuousClock.now - firstStop > limit {
                throw .threadsDidNotStop(processID: processID, threads: waiting, limit: limit)
            }
            // A thread takes a few microseconds to reach its stop; yield first, then nap.
            spins += 1
            if spins < 100 { sched_yield() } else { usleep(50) }
        }
    }

    /// Reaps `tid` and forgets it if it is gone.
    private mutating func forgetIfGone(_ tid: Int32) {
        guard case .gone = ProcessAccess.peek(tid) else { return }
        ProcessAccess.reap(tid)
        seized.forget(tid)
    }

    /// Thread `tid`'s state letter in its `stat` (`R`, `S`, `t`, `Z`…), or nil when it is gone.
    private func state(of tid: Int32) -> Character? {
        guard let stat = ProcessFiles.text("/proc/\(processID)/task/\(tid)/stat"),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].first { $0 != " " }
    }

    /// Whether a state letter says the thread has exited: zombie (`Z`) or dead (`X`).
    private func isZombie(_ state: Character?) -> Bool { state == "Z" || state == "X" }

    private mutating func readRegisters(of tids: [Int32]) throws(AttachError) {
        for tid in tids {
            switch ProcessAccess.registers(tid) {
            case .success(let registers):
                threads.append(
                    StoppedThread(
                        id: tid, name: ProcessFiles.name(of: processID, thread: tid) ?? "?",
                        stackPointer: UInt(registers.stackPointer),
                        registers: registers.words.map { UInt($0) }))
                StopPoints.reach("read the registers of thread \(tid)")
            case .failure(let error) where error.code == ESRCH:
                // Killed while stopped (only SIGKILL gets through a ptrace stop).
                if tid == processID {
                    throw .processExited(processID: processID, during: "it was stopped")
                }
            case .failure(let error):
                throw .systemError(
                    processID: processID, operation: "PTRACE_GETREGSET of thread \(tid)",
                    reason: error.description)
            }
        }
    }
}
