// C door: stopping another process with ptrace, waiting for its threads, reading its memory.
//
// `ptrace` is variadic and the `wait` status macros are macros, so Swift cannot call them
// directly: these `static inline` wrappers give each request a fixed signature. Nothing here is
// stable API; only one Swift file (Sources/ProcessAttach/ProcessAccess.swift) imports this
// module. Every wrapper returns -1 with `errno` set on failure, as the call it wraps does.

#ifndef RETAINGRAPH_CPROCESSACCESS_H
#define RETAINGRAPH_CPROCESSACCESS_H

#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// Attaches to thread `tid` without stopping it (`PTRACE_SEIZE`, no options).
static inline int rg_ptrace_seize(pid_t tid) {
    return (int)ptrace(PTRACE_SEIZE, tid, NULL, NULL);
}

/// Asks seized thread `tid` to stop (`PTRACE_INTERRUPT`); the stop is reported by `waitpid`.
static inline int rg_ptrace_interrupt(pid_t tid) {
    return (int)ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
}

/// Detaches from thread `tid` and lets it run, delivering `signal` (0 for none) as it goes.
static inline int rg_ptrace_detach(pid_t tid, int signal) {
    return (int)ptrace(PTRACE_DETACH, tid, NULL, (void *)(intptr_t)signal);
}

/// The number of 64-bit words `rg_ptrace_registers` may write.
#define RG_REGISTER_WORDS 64

/// Copies the general-purpose registers of stopped thread `tid` into `words` (at most
/// `RG_REGISTER_WORDS`), and its stack pointer into `*stack_pointer`
/// (`PTRACE_GETREGSET`, `NT_PRSTATUS`). Returns the number of words written, or -1.
static inline int rg_ptrace_registers(pid_t tid, uint64_t *words, uint64_t *stack_pointer) {
#if defined(__x86_64__)
    struct user_regs_struct regs;
#elif defined(__aarch64__)
    struct user_pt_regs regs;
#else
    errno = ENOSYS;
    return -1;
#endif
    struct iovec vector = {.iov_base = &regs, .iov_len = sizeof regs};
    if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &vector) == -1) return -1;
    size_t count = vector.iov_len / sizeof(uint64_t);
    if (count > RG_REGISTER_WORDS) count = RG_REGISTER_WORDS;
    const uint64_t *source = (const uint64_t *)&regs;
    for (size_t index = 0; index < count; index++) words[index] = source[index];
#if defined(__x86_64__)
    *stack_pointer = regs.rsp;
#elif defined(__aarch64__)
    *stack_pointer = regs.sp;
#endif
    return (int)count;
}

/// Looks at thread `tid`'s state without consuming it: `waitid(P_PID, tid, …, WEXITED |
/// WSTOPPED | WNOHANG | WNOWAIT | __WALL)`.
///
/// `WNOWAIT` matters: a wait that consumes a signal-delivery-stop clears the signal the kernel
/// keeps for the thread (`exit_code`), so if this process then died, the kernel would let the
/// thread go without it and the signal would be lost. Unconsumed, it is delivered either way.
///
/// Returns -1 (`errno` set), 0 when there is nothing to report (the thread runs), 1 when it is
/// in a ptrace stop (`*signal`: its signal; `*event`: the ptrace event, `PTRACE_EVENT_STOP` for
/// an interrupt or a group stop, 0 for a signal on its way), 2 when it is gone.
static inline int rg_peek_thread(pid_t tid, int *signal, int *event) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)tid, &info, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) == -1)
        return -1;
    if (info.si_pid == 0) return 0;
    if (info.si_code == CLD_TRAPPED || info.si_code == CLD_STOPPED) {
        *signal = info.si_status & 0xFF;
        *event = (info.si_status >> 8) & 0xFF;
        return 1;
    }
    if (info.si_code == CLD_EXITED || info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED)
        return 2;
    return 0;
}

/// Reaps thread `tid` once it is gone (`waitpid(tid, …, WNOHANG | __WALL)`): a traced thread
/// that dies waits for its tracer, and an exec in its process waits for it.
static inline pid_t rg_reap_thread(pid_t tid) {
    int status = 0;
    return waitpid(tid, &status, WNOHANG | __WALL);
}

/// `PTRACE_EVENT_STOP`.
static inline int rg_event_stop(void) { return PTRACE_EVENT_STOP; }

/// Copies `count` ranges of another process's memory into local buffers in one call
/// (`process_vm_readv`, at most `IOV_MAX` ranges). Returns the bytes copied, or -1.
static inline ssize_t rg_read_process(
    pid_t pid, const uint64_t *local, const uint64_t *remote, const uint64_t *lengths,
    unsigned long count) {
    struct iovec locals[64];
    struct iovec remotes[64];
    if (count > 64) count = 64;
    for (unsigned long index = 0; index < count; index++) {
        locals[index].iov_base = (void *)(uintptr_t)local[index];
        locals[index].iov_len = (size_t)lengths[index];
        remotes[index].iov_base = (void *)(uintptr_t)remote[index];
        remotes[index].iov_len = (size_t)lengths[index];
    }
    return process_vm_readv(pid, locals, count, remotes, count, 0);
}

/// The calling thread's kernel id (`gettid`).
static inline pid_t rg_current_thread(void) { return (pid_t)syscall(SYS_gettid); }

/// Whether process `pid` exists and may be signalled by the caller (`kill(pid, 0)`).
static inline int rg_process_exists(pid_t pid) { return kill(pid, 0); }

#endif
