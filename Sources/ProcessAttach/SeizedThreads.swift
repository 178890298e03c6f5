import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The threads of a target that the calling thread has seized, and must let go.
///
/// Each thread is entered in the stop guard before it is seized: should this process get a
/// crash or a fatal signal while the target is stopped, the guard's handler detaches every
/// thread at once, before any crash handler, core dump or teardown runs. Should it be killed
/// with SIGKILL, the kernel detaches them when the tracing thread exits (see ``ThreadStopper``).
/// ``release()`` is the normal way out.
///
/// Used only on the thread that seized the threads (the kernel takes tracing requests from
/// that thread only).
struct SeizedThreads {
    /// The seized threads, in the order they were seized.
    private(set) var ids: [Int32] = []
    /// Each thread's slot in the stop guard (-1 when the guard was full).
    private var slots: [Int32: Int32] = [:]

    /// Creates an empty set and arms the stop guard: call ``release()`` exactly once.
    init() {
        ProcessAccess.armGuard()
    }

    /// Whether `tid` was seized.
    func contains(_ tid: Int32) -> Bool { slots[tid] != nil }

    /// Enters `tid` before its seize (so that no moment exists when it is seized unguarded).
    mutating func enter(_ tid: Int32) {
        slots[tid] = ProcessAccess.guardThread(tid)
        ids.append(tid)
    }

    /// Forgets `tid`: its seize failed, or it is gone.
    mutating func forget(_ tid: Int32) {
        unguard(tid)
        ids.removeAll { $0 == tid }
    }

    /// Takes `tid` out of the stop guard.
    private mutating func unguard(_ tid: Int32) {
        guard let slot = slots.removeValue(forKey: tid) else { return }
        ProcessAccess.unguardThread(tid, slot: slot)
    }

    /// Records that `tid`'s detach must deliver `signal` (one that arrived on its way to a stop),
    /// so that the guard delivers it too.
    func deliver(_ signal: Int32, to tid: Int32) {
        guard let slot = slots[tid] else { return }
        ProcessAccess.guardSignal(tid, slot: slot, signal: signal)
    }

    /// Lets every thread go, then disarms the stop guard.
    ///
    /// A thread in a ptrace stop is detached with the signal its stop holds (a signal that
    /// arrived on its way to the stop is delivered, never lost; a group stop is resumed by the
    /// kernel as a group stop, so a process someone else stopped stays stopped). A thread
    /// interrupted but not stopped yet (the stop was cut short) is waited for, 2 s at most,
    /// then detached; one that died is reaped. One still not stopped after that (blocked in
    /// the kernel) is let go by the kernel when the calling thread exits.
    ///
    /// - Complexity: Two system calls per thread, plus the waits for stragglers.
    mutating func release() {
        var pending: [Int32] = []
        for tid in ids where !letGo(tid) {
            pending.append(tid)
        }
        let deadline = ContinuousClock.now + .seconds(2)
        while !pending.isEmpty, ContinuousClock.now < deadline {
            pending.removeAll { letGo($0) }
            if !pending.isEmpty { usleep(100) }
        }
        for tid in pending {
            unguard(tid)
        }
        ids.removeAll()
        ProcessAccess.disarmGuard()
    }

    /// Detaches `tid` if it is in a stop, or reaps it if it is gone: true when it needs nothing
    /// more.
    private mutating func letGo(_ tid: Int32) -> Bool {
        switch ProcessAccess.peek(tid) {
        case .stopped(let signal):
            guard ProcessAccess.detach(tid, signal: signal ?? 0) == 0 else { return false }
            unguard(tid)
            StopPoints.reach("detached thread \(tid)")
            return true
        case .running:
            return false
        case .gone:
            ProcessAccess.reap(tid)
            unguard(tid)
            return true
        case .failed:
            unguard(tid)
            return true
        }
    }
}
