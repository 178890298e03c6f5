import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A running process with every thread stopped by this one, to be read and let go.
///
/// Creating one stops the target: each thread is seized and interrupted with ptrace
/// (`PTRACE_SEIZE`, `PTRACE_INTERRUPT`), again and again until no new thread appears, so threads
/// created meanwhile are stopped too. ``captureMemory()`` copies what an analysis needs while
/// nothing changes; ``resume()`` lets every thread go, delivering any signal that arrived while
/// it was stopped. Nothing is written to the target and nothing is injected.
///
/// The stop is bounded: ``AttachOptions/maximumStop`` caps the time from the first thread
/// stopped to the last one let go (checked between steps), and ``AttachOptions/isCancelled``
/// is polled.
///
/// **The target is never left stopped.** Every thread is let go on every path:
/// - on success (``resume()``), on an error (before it is thrown), and when the value is
///   dropped without ``resume()`` (its `deinit`);
/// - when this process crashes (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS) or
///   gets a signal whose default action ends it (SIGTERM, SIGHUP, SIGQUIT, SIGPIPE…, where no
///   handler of its own is installed): a signal handler installed for the length of the stop
///   detaches every thread first, then hands the signal on to the handler that was there
///   before (the Swift runtime's backtracer) or to the default action;
/// - when this process is killed with SIGKILL, at any moment: the kernel detaches the threads
///   a dying thread traces, and wakes them;
/// - with the signals that arrived meanwhile delivered, not lost, and a process that was
///   already stopped by SIGSTOP left stopped (it is not ours to continue).
///
/// What cannot be helped: a SIGSTOP sent to this process stops it and so prolongs the target's
/// stop until this process is continued (SIGTSTP, SIGTTIN and SIGTTOU are held back until the
/// target runs); a crash on another thread than the tracer's lets the target go when this
/// process has finished dying; a thread blocked in the kernel (state `D`) when the stop was cut
/// short stops when it leaves the kernel and is then let go when the tracer thread exits. A
/// target thread interrupted in a blocking system call resumes it where the kernel restarts
/// it; the few calls Linux does not restart after a stop (`epoll_wait`, `sem_timedwait`…, see
/// `signal(7)`) return `EINTR`, as after a SIGSTOP and SIGCONT.
///
/// A stopped process must be read and resumed on the thread that stopped it: the kernel takes
/// tracing requests only from that thread. Hence it is noncopyable and not `Sendable`.
///
/// ```swift
/// let process = try StoppedProcess(processID: pid)
/// let memory = try process.captureMemory()
/// let stop = process.resume()                  // the target runs again
/// let heap = try HeapSnapshot(memory)    // analysed while it runs
/// print("stopped for \(stop)")
/// ```
public struct StoppedProcess: ~Copyable {
    /// The target's process id.
    public let processID: Int32
    /// The target's name (`/proc/PID/comm`).
    public let command: String
    /// Every thread of the target, stopped, in id order.
    public let threads: [StoppedThread]
    let options: AttachOptions
    /// When the first thread was stopped.
    let stoppedAt: ContinuousClock.Instant
    /// The thread that stopped the target: the only one allowed to read and resume it.
    let tracer: Int32
    /// Every thread seized, to let go (with the signals that arrived on their way to a stop).
    let seized: SeizedThreads
    private var isResumed = false

    /// Stops every thread of process `processID`.
    ///
    /// Before stopping anything, checks that the process exists, that this process may trace
    /// it, that it is a Swift program (a `sleep` is let alone), and that its Swift runtime is
    /// the version the remote mirror library reads (unless ``AttachOptions/remoteMirrorPath``
    /// names the library).
    ///
    /// - Parameters:
    ///   - processID: The target.
    ///   - options: The stop's limits.
    /// - Throws: ``AttachError/noSuchProcess(processID:)``,
    ///   ``AttachError/permissionDenied(processID:reason:)``,
    ///   ``AttachError/notSwift(processID:command:)``,
    ///   ``AttachError/runtimeMismatch(processID:target:runtime:mirror:library:)``,
    ///   ``AttachError/threadsDidNotStop(processID:threads:limit:)``,
    ///   ``AttachError/processExited(processID:during:)``, ``AttachError/cancelled(processID:)``.
    ///   Every thread stopped so far is let go before the error is thrown.
    /// - Complexity: Two system calls per thread, plus the waits for the threads to stop.
    public init(processID: Int32, options: AttachOptions = AttachOptions()) throws(AttachError) {
        try ProcessChecks.checkAttachable(processID)
        let command = ProcessFiles.name(of: processID) ?? "?"
        guard try ProcessChecks.isSwiftProgram(processID) else {
            throw .notSwift(processID: processID, command: command)
        }
        try ProcessChecks.checkRuntime(processID, options: options)
        var stopper = ThreadStopper(processID: processID, options: options)
        do {
            try stopper.stopAll()
        } catch {
            stopper.letGo()
            throw error
        }
        self.processID = processID
        self.command = command
        self.threads = stopper.threads
        self.options = options
        self.stoppedAt = stopper.firstStop ?? .now
        self.tracer = ProcessAccess.currentThreadID
        self.seized = stopper.seized
    }

    /// How long the target has been stopped so far.
    public var stoppedFor: Duration { .now - stoppedAt }

    /// Lets every thread of the target run again.
    ///
    /// - Returns: How long the target was stopped.
    @discardableResult
    public consuming func resume() -> Duration {
        letGo()
        isResumed = true
        return stoppedFor
    }

    deinit {
        if !isResumed { letGo() }
    }

    /// Detaches every thread (delivering the signals that arrived meanwhile). Does nothing on
    /// another thread than the tracer's: the kernel would refuse, and it detaches the threads
    /// itself when the tracer thread ends.
    private func letGo() {
        guard ProcessAccess.currentThreadID == tracer else { return }
        var threads = seized
        threads.release()
    }

    /// Throws unless the caller is the thread that stopped the target, or when the stop has
    /// lasted too long or was cancelled.
    func checkStillInCharge() throws(AttachError) {
        guard ProcessAccess.currentThreadID == tracer else {
            throw .wrongThread(processID: processID)
        }
        if options.isCancelled() { throw .cancelled(processID: processID) }
        if stoppedFor > options.maximumStop {
            throw .stopLimitExceeded(processID: processID, limit: options.maximumStop)
        }
    }
}

/// One thread of a ``StoppedProcess``, as it was when stopped.
public struct StoppedThread: Sendable, Hashable {
    /// The thread's kernel id (the process id for the main thread).
    public let id: Int32
    /// The thread's name (`/proc/PID/task/TID/comm`).
    public let name: String
    /// Its stack pointer.
    public let stackPointer: UInt
    /// Its general-purpose registers, in the kernel's `user_regs_struct` order.
    public let registers: [UInt]
}
