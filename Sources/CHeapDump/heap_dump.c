// The fork: the parent's side of a dump. A raw clone(2) without CLONE_VM gives the child a
// copy-on-write image of the process; the child writes it (heap_dump_child.c) while the
// process runs on. No exit signal: the process's SIGCHLD handling never sees the child, which
// the calling thread reaps with waitpid(__WALL).
#define _GNU_SOURCE
#include "include/CHeapDump.h"
#include "heap_dump_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t nanoseconds_between(struct timespec from, struct timespec to) {
    return (int64_t)(to.tv_sec - from.tv_sec) * 1000000000 + (to.tv_nsec - from.tv_nsec);
}

uint64_t rg_resident_bytes(void) {
    char text[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    const char *at = text;
    while (*at && *at != ' ') at++;  // size
    while (*at == ' ') at++;
    uint64_t pages = 0;
    while (*at >= '0' && *at <= '9') pages = pages * 10 + (uint64_t)(*at++ - '0');
    return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

#if defined(__x86_64__)
/// The registers the child has on its way out of clone: the callee-saved ones hold what the
/// forking thread had (its caller's values are on the stack, which the core holds).
__attribute__((always_inline)) static inline void capture_registers(uint64_t registers[27]) {
    memset(registers, 0, 27 * sizeof registers[0]);
    __asm__ volatile(
        "movq %%r15, 0(%0)\n\t"
        "movq %%r14, 8(%0)\n\t"
        "movq %%r13, 16(%0)\n\t"
        "movq %%r12, 24(%0)\n\t"
        "movq %%rbp, 32(%0)\n\t"
        "movq %%rbx, 40(%0)\n\t"
        "movq %%rsp, 152(%0)\n\t"
        "leaq 0(%%rip), %%rax\n\t"
        "movq %%rax, 128(%0)\n\t"
        "movq %%fs:0, %%rax\n\t"
        "movq %%rax, 168(%0)\n\t"
        : : "r"(registers) : "rax", "memory");
}
#endif

/// How long a child under SCHED_IDLE may write before it competes for the CPU at nice 19.
#define RG_DUMP_IDLE_GRACE_MS 1000

/// Waits for the child to end; each time the grace period passes with it still writing, moves
/// it from SCHED_IDLE (which a saturated machine may never schedule) to SCHED_OTHER at its
/// nice 19. The child took SCHED_IDLE only where that move is allowed; where pidfds are not
/// (Linux before 5.3), it keeps its policy.
static void promote_while_running(pid_t child) {
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (pidfd < 0) return;
    struct pollfd exited = {.fd = pidfd, .events = POLLIN};
    for (;;) {
        int ready = poll(&exited, 1, RG_DUMP_IDLE_GRACE_MS);
        if (ready > 0 || (ready < 0 && errno != EINTR)) break;
        if (ready == 0) {
            struct sched_param normal = {0};
            (void)sched_setscheduler(child, SCHED_OTHER, &normal);
        }
    }
    close(pidfd);
}

int rg_dump_write(int fd, rg_dump_result *result) {
    memset(result, 0, sizeof *result);
#if !defined(__x86_64__)
    result->error = ENOSYS;
    return -1;
#else
    struct rg_dump_context context;  // on this stack: the child reads its own copy
    memset(&context, 0, sizeof context);
    context.fd = fd;
    context.process_id = getpid();
    context.parent_id = getppid();
    context.thread_id = (int32_t)syscall(SYS_gettid);
    prctl(PR_GET_NAME, context.thread_name, 0, 0, 0);
    context.thread_name[15] = 0;
    clock_gettime(CLOCK_REALTIME, &context.time);
    result->resident_bytes = (int64_t)rg_resident_bytes();

    struct timespec before, after, done, cpu_before, cpu_after;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_before);
    clock_gettime(CLOCK_MONOTONIC, &before);
    long child = syscall(SYS_clone, 0UL, 0UL, 0UL, 0UL, 0UL);
    if (child == 0) {
        capture_registers(context.registers);
        rg_dump_child(&context);
    }
    clock_gettime(CLOCK_MONOTONIC, &after);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu_after);
    result->pause_nanoseconds = nanoseconds_between(before, after);
    result->pause_cpu_nanoseconds = nanoseconds_between(cpu_before, cpu_after);
    if (child < 0) {
        result->error = errno;
        return -1;
    }
    promote_while_running((pid_t)child);
    int status = 0;
    while (waitpid((pid_t)child, &status, __WALL) < 0) {
        if (errno != EINTR) {
            result->error = errno;
            return -1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &done);
    result->dump_nanoseconds = nanoseconds_between(before, done);
    if (WIFEXITED(status)) {
        result->child_status = WEXITSTATUS(status);
    } else {
        result->child_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : EIO;
    }
    struct stat info;
    if (fstat(fd, &info) == 0) {
        result->file_size = info.st_size;
        result->disk_size = (int64_t)info.st_blocks * 512;
    }
    return result->child_status == 0 ? 0 : -1;
#endif
}
