#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import RetainGraphUtilities

/// Stops every thread of a process, including those created while it does so.
///
/// Seizes and interrupts each thread listed in `/proc/PID/task`, waits until each reports its
/// stop, then lists the threads again: a thread not yet stopped may have created another. When
/// a listing shows no new thread, every thread is stopped (a stopped thread creates none).
struct ThreadStopper {
    let processID: Int32
    let options: AttachOptions
    private(set) var threads: [StoppedThread] = []
    private(set) var pendingSignals: [Int32: Int32] = [:]
    private(set) var firstStop: ContinuousClock.Instant?
    /// Threads seized so far (each must be detached).
    private var seized: [Int32] = []

    init(processID: Int32, options: AttachOptions) {
        self.processID = processID
        self.options = options
    }

    /// Stops every thread and reads their registers.
    mutating func stopAll() throws(AttachError) {
        var stopped = Set<Int32>()
        var listings = 0
        while true {
            guard let ids = ProcessFiles.threadIDs(of: processID), !ids.isEmpty else {
                throw seized.isEmpty
                    ? .noSuchProcess(processID: processID)
                    : .processExited(processID: processID, during: "its threads were stopped")
            }
            let new = ids.filter { !seized.contains($0) }
            if new.isEmpty { break }
            listings += 1
            var waiting: [Int32] = []
            for tid in new {
                let error = ProcessAccess.seize(tid)
                if error == ESRCH { continue }  // the thread ended meanwhile
                if error == EPERM {
                    throw .permissionDenied(
                        processID: processID, reason: ProcessChecks.permissionReason(processID))
                }
                guard error == 0 else {
                    throw .systemError(
                        processID: processID, operation: "PTRACE_SEIZE of thread \(tid)",
                        reason: Errno(error).description)
                }
                if firstStop == nil { firstStop = .now }
                seized.append(tid)
                if ProcessAccess.interrupt(tid) == 0 { waiting.append(tid) }
            }
            try wait(for: waiting, stopped: &stopped)
            guard listings < 10_000 else { break }  // a process spawning threads forever
        }
        guard stopped.contains(processID) else {
            throw .processExited(processID: processID, during: "its threads were stopped")
        }
        try readRegisters(of: stopped.sorted())
    }

    /// Waits until each of `tids` reports its stop, within the stop limit.
    private mutating func wait(for tids: [Int32], stopped: inout Set<Int32>) throws(AttachError) {
        var waiting = tids
        let limit = max(options.maximumStop, .milliseconds(10))
        var spins = 0
        while !waiting.isEmpty {
            var still: [Int32] = []
            for tid in waiting {
                switch ProcessAccess.wait(tid, blocking: false) {
                case .stopped(let signal):
                    stopped.insert(tid)
                    if let signal { pendingSignals[tid] = signal }
                case .gone:
                    continue
                case .running:
                    still.append(tid)
                case .failed(let error):
                    throw .systemError(
                        processID: processID, operation: "waitpid of thread \(tid)",
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

    private mutating func readRegisters(of tids: [Int32]) throws(AttachError) {
        for tid in tids {
            switch ProcessAccess.registers(tid) {
            case .success(let registers):
                threads.append(
                    StoppedThread(
                        id: tid, name: ProcessFiles.name(of: processID, thread: tid) ?? "?",
                        stackPointer: UInt(registers.stackPointer),
                        registers: registers.words.map { UInt($0) }))
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

    /// Detaches every thread seized so far.
    func letGo() {
        Self.release(seized, signals: pendingSignals)
    }

    /// Detaches `tids`, delivering the signals that arrived while they were stopped.
    ///
    /// A thread can only be detached in a ptrace stop: one interrupted but not stopped yet
    /// (the attach was cancelled, or timed out) is waited for, 2 s at most, then detached; one
    /// that died meanwhile is reaped (a traced thread that dies waits for its tracer, and its
    /// process cannot be reaped by its parent until then). A thread still not stopped after
    /// that is let go by the kernel when this process ends.
    static func release(_ tids: [Int32], signals: [Int32: Int32]) {
        var pending: [Int32] = []
        for tid in tids where ProcessAccess.detach(tid, signal: signals[tid] ?? 0) != 0 {
            pending.append(tid)
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while !pending.isEmpty, ContinuousClock.now < deadline {
            pending = pending.filter { tid in
                switch ProcessAccess.wait(tid, blocking: false) {
                case .stopped(let signal):
                    ProcessAccess.detach(tid, signal: signal ?? signals[tid] ?? 0)
                    return false
                case .running:
                    return true
                case .gone, .failed:
                    return false
                }
            }
            if !pending.isEmpty { usleep(100) }
        }
    }
}
