// C door, part two: the stop guard. Lets a stopped target go when this process is about to die
// of a signal while it holds the target stopped (a crash, SIGTERM, SIGABRT), before the crash
// handlers, the core dump or the teardown of this process's memory run; and holds back the
// job-control stops (SIGTSTP, SIGTTIN, SIGTTOU) that would freeze this process, and so the
// target, until the stop is over.
//
// Without it the target would still be let go, but later: the kernel detaches a tracer's
// tracees when the tracer thread exits, which comes after a core dump, after the Swift
// backtracer, and after the kernel has freed this process's memory (a large copy of the target).
//
// The handler runs in signal context: it uses only async-signal-safe calls (ptrace, waitid,
// waitpid, sigaction, tgkill, clock_gettime, sched_yield) and lock-free atomics on static
// storage. Like every function of this module, these `static inline` functions and their
// `static` data are emitted once, into the one Swift file that imports the module.

#ifndef RETAINGRAPH_CPROCESSACCESS_STOP_GUARD_H
#define RETAINGRAPH_CPROCESSACCESS_STOP_GUARD_H

#include "process_access.h"

/// The most threads the guard keeps at once (more are still let go by the kernel at exit).
#define RG_GUARD_CAPACITY 16384
/// The longest the handler waits for an interrupted thread to reach its stop, in nanoseconds.
#define RG_GUARD_WAIT_NS 50000000LL

/// One seized thread: the thread that traces it (0 for a free slot), its id, and the signal
/// its detach must deliver.
typedef struct {
    pid_t tracer;
    pid_t tid;
    int signal;
} rg_guard_slot;

/// The guard's state, in one static object (a function's static: the Swift compiler emits
/// the functions of an imported header it calls, but no file-scope variable).
typedef struct {
    rg_guard_slot slots[RG_GUARD_CAPACITY];
    /// Slots ever used (the handler scans these).
    int used;
    /// Attaches in progress (the handlers are installed while it is above 0), under `mutex`.
    int users;
    pthread_mutex_t mutex;
    struct sigaction previous[65];
    unsigned char installed[65];
    /// Job-control signals held back, one bit each, raised again when the last attach ends.
    unsigned int deferred;
} rg_guard_state;

static inline rg_guard_state *rg_guard(void) {
    static rg_guard_state state = {.mutex = PTHREAD_MUTEX_INITIALIZER};
    return &state;
}

static inline int rg_guard_is_job_control(int sig) {
    return sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/// Lets go every thread the calling thread traces (detaching with its pending signal), waiting
/// at most `RG_GUARD_WAIT_NS` for threads interrupted but not stopped yet; reaps dead ones.
/// Returns the number of slots it freed.
static inline int rg_guard_release_own(void) {
    pid_t self = (pid_t)syscall(SYS_gettid);
    int used = __atomic_load_n(&rg_guard()->used, __ATOMIC_SEQ_CST);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int freed = 0;
    for (;;) {
        int left = 0;
        for (int index = 0; index < used; index++) {
            rg_guard_slot *slot = &rg_guard()->slots[index];
            if (__atomic_load_n(&slot->tracer, __ATOMIC_SEQ_CST) != self) continue;
            pid_t tid = __atomic_load_n(&slot->tid, __ATOMIC_SEQ_CST);
            if (tid == 0) continue;
            int gone = 0;
            int pending = __atomic_load_n(&slot->signal, __ATOMIC_SEQ_CST);
            if (ptrace(PTRACE_DETACH, tid, NULL, (void *)(intptr_t)pending) != 0) {
                int signal = 0, event = 0;
                int state = rg_peek_thread(tid, &signal, &event);
                if (state == 2) rg_reap_thread(tid);
                gone = state == 2 || state == -1;
                if (!gone) {
                    left++;
                    continue;
                }
            }
            __atomic_store_n(&slot->tid, 0, __ATOMIC_SEQ_CST);
            __atomic_store_n(&slot->tracer, 0, __ATOMIC_SEQ_CST);
            freed++;
        }
        if (left == 0) break;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long elapsed = (long long)(now.tv_sec - start.tv_sec) * 1000000000LL
            + (now.tv_nsec - start.tv_nsec);
        if (elapsed > RG_GUARD_WAIT_NS) {
            // Still not stopped: let the kernel let them go when this thread exits, and never
            // come back to them (a signal passed from tracer to tracer must not bounce).
            for (int index = 0; index < used; index++) {
                rg_guard_slot *slot = &rg_guard()->slots[index];
                if (__atomic_load_n(&slot->tracer, __ATOMIC_SEQ_CST) != self) continue;
                __atomic_store_n(&slot->tid, 0, __ATOMIC_SEQ_CST);
                __atomic_store_n(&slot->tracer, 0, __ATOMIC_SEQ_CST);
            }
            break;
        }
        sched_yield();
    }
    return freed;
}

/// The tracer of some slot still in use, or 0.
static inline pid_t rg_guard_any_tracer(void) {
    int used = __atomic_load_n(&rg_guard()->used, __ATOMIC_SEQ_CST);
    for (int index = 0; index < used; index++) {
        pid_t tracer = __atomic_load_n(&rg_guard()->slots[index].tracer, __ATOMIC_SEQ_CST);
        if (tracer != 0 && __atomic_load_n(&rg_guard()->slots[index].tid, __ATOMIC_SEQ_CST) != 0)
            return tracer;
    }
    return 0;
}

static void rg_guard_handler(int sig, siginfo_t *info, void *context) {
    int saved = errno;
    if (rg_guard_is_job_control(sig)) {
        __atomic_or_fetch(&rg_guard()->deferred, 1u << sig, __ATOMIC_SEQ_CST);
        errno = saved;
        return;
    }
    rg_guard_release_own();
    int fault = info != NULL && info->si_code > 0
        && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
    // A signal sent to the process lands on any thread: pass it on to a thread that still holds
    // a target stopped, which lets its target go and passes it on again, or dies of it.
    pid_t tracer = fault ? 0 : rg_guard_any_tracer();
    if (tracer != 0 && tracer != (pid_t)syscall(SYS_gettid)) {
        syscall(SYS_tgkill, getpid(), tracer, sig);
        errno = saved;
        return;
    }
    struct sigaction previous = rg_guard()->previous[sig];
    sigaction(sig, &previous, NULL);
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        // The crash handler that was there before (the Swift runtime's backtracer).
        if (previous.sa_flags & SA_SIGINFO) {
            previous.sa_sigaction(sig, info, context);
        } else {
            previous.sa_handler(sig);
        }
    } else if (!fault) {
        // Pending until this handler returns, then the default action (a fault instead
        // happens again when the instruction runs again).
        raise(sig);
    }
    errno = saved;
}

/// Installs the handlers if no attach is in progress yet: over the crash signals always
/// (chaining to what was there), over the signals that end or stop a process only where
/// their action is the default one (a program's own handler is left alone).
static inline void rg_guard_arm(void) {
    static const int crashes[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
    static const int defaults[] = {
        SIGTERM, SIGHUP,   SIGINT,    SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
        SIGXCPU, SIGXFSZ,  SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSTKFLT,
        SIGTSTP, SIGTTIN, SIGTTOU};
    pthread_mutex_lock(&rg_guard()->mutex);
    if (rg_guard()->users++ == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = rg_guard_handler;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        sigemptyset(&action.sa_mask);
        for (size_t index = 0; index < sizeof crashes / sizeof *crashes; index++) {
            int sig = crashes[index];
            rg_guard()->installed[sig] = sigaction(sig, &action, &rg_guard()->previous[sig]) == 0;
        }
        for (size_t index = 0; index < sizeof defaults / sizeof *defaults; index++) {
            int sig = defaults[index];
            rg_guard()->installed[sig] = 0;
            if (sigaction(sig, NULL, &rg_guard()->previous[sig]) != 0) continue;
            if (rg_guard()->previous[sig].sa_handler != SIG_DFL) continue;
            rg_guard()->installed[sig] = sigaction(sig, &action, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&rg_guard()->mutex);
}

/// Ends an attach: when it was the last, puts the handlers back and raises the job-control
/// signals held back meanwhile (this process then stops, its targets running).
static inline void rg_guard_disarm(void) {
    pthread_mutex_lock(&rg_guard()->mutex);
    unsigned int deferred = 0;
    if (rg_guard()->users > 0 && --rg_guard()->users == 0) {
        for (int sig = 1; sig < 65; sig++) {
            if (!rg_guard()->installed[sig]) continue;
            sigaction(sig, &rg_guard()->previous[sig], NULL);
            rg_guard()->installed[sig] = 0;
        }
        deferred = __atomic_exchange_n(&rg_guard()->deferred, 0u, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&rg_guard()->mutex);
    for (int sig = 1; sig < 32; sig++) {
        if (deferred & (1u << sig)) raise(sig);
    }
}

/// Records that the calling thread is about to seize `tid`. Returns the slot to pass to
/// `rg_guard_set_signal` and `rg_guard_remove`, or -1 when every slot is taken (the thread is
/// then let go by the kernel alone, at this thread's exit).
static inline int rg_guard_add(pid_t tid) {
    pid_t self = (pid_t)syscall(SYS_gettid);
    for (int index = 0; index < RG_GUARD_CAPACITY; index++) {
        pid_t free_slot = 0;
        rg_guard_slot *slot = &rg_guard()->slots[index];
        if (__atomic_load_n(&slot->tracer, __ATOMIC_SEQ_CST) != 0) continue;
        if (!__atomic_compare_exchange_n(
                &slot->tracer, &free_slot, self, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            continue;
        __atomic_store_n(&slot->signal, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&slot->tid, tid, __ATOMIC_SEQ_CST);
        int used = __atomic_load_n(&rg_guard()->used, __ATOMIC_SEQ_CST);
        while (used < index + 1
               && !__atomic_compare_exchange_n(
                   &rg_guard()->used, &used, index + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        }
        return index;
    }
    return -1;
}

/// Slot `index` if it still holds `tid` for the calling thread (the handler frees slots), or
/// NULL.
static inline rg_guard_slot *rg_guard_own_slot(int index, pid_t tid) {
    if (index < 0 || index >= RG_GUARD_CAPACITY) return NULL;
    rg_guard_slot *slot = &rg_guard()->slots[index];
    pid_t self = (pid_t)syscall(SYS_gettid);
    if (__atomic_load_n(&slot->tracer, __ATOMIC_SEQ_CST) != self) return NULL;
    if (__atomic_load_n(&slot->tid, __ATOMIC_SEQ_CST) != tid) return NULL;
    return slot;
}

/// Records the signal the detach of `tid` (in slot `index`) must deliver.
static inline void rg_guard_set_signal(int index, pid_t tid, int signal) {
    rg_guard_slot *slot = rg_guard_own_slot(index, tid);
    if (slot != NULL) __atomic_store_n(&slot->signal, signal, __ATOMIC_SEQ_CST);
}

/// Frees slot `index` once `tid` is detached or gone.
static inline void rg_guard_remove(int index, pid_t tid) {
    rg_guard_slot *slot = rg_guard_own_slot(index, tid);
    if (slot == NULL) return;
    __atomic_store_n(&slot->tid, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&slot->tracer, 0, __ATOMIC_SEQ_CST);
}

#endif
