// The watcher thread: a dump when a signal asks for one or when resident memory passes a
// threshold, at most `limit` dumps, into a directory, when the file system has room.
//
// The signal's handler only writes a byte to a pipe (write(2) is async-signal-safe); the
// watcher polls that pipe with a timeout, reading /proc/self/statm between waits. Not sigwait:
// a process-directed signal goes to any thread that does not block it, and the threads made
// before the watcher started do not, so the signal's default action (the end of the process)
// could win. The watcher runs no user code and holds no lock across the fork: its mutex guards
// the list of finished dumps, taken after the child has been reaped.
#define _GNU_SOURCE
#include "include/CHeapDump.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_DUMPS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t watcher;
static int running;
static int wake_fds[2] = {-1, -1};
static volatile sig_atomic_t stopping;
static rg_watch_config settings;
static struct sigaction previous_action;
static int count;
static rg_dump_result results[MAX_DUMPS];
static char paths[MAX_DUMPS][1100];

static void on_signal(int number) {
    (void)number;
    int saved = errno;
    (void)!write(wake_fds[1], "d", 1);
    errno = saved;
}

uint64_t rg_parse_bytes(const char *text) {
    if (!text) return 0;
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || value <= 0) return 0;
    while (*end == ' ') end++;
    double scale = 1;
    switch (*end) {
    case 'k': case 'K': scale = 1024.0; break;
    case 'm': case 'M': scale = 1024.0 * 1024; break;
    case 'g': case 'G': scale = 1024.0 * 1024 * 1024; break;
    case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
    case 0: case 'b': case 'B': break;
    default: return 0;
    }
    return (uint64_t)(value * scale);
}

int rg_watch_config_from_environment(rg_watch_config *config) {
    memset(config, 0, sizeof *config);
    const char *directory = getenv("RETAINGRAPH_DUMP_DIR");
    snprintf(config->directory, sizeof config->directory, "%s",
             directory && *directory ? directory : ".");
    config->resident_threshold = rg_parse_bytes(getenv("RETAINGRAPH_DUMP_ON_RSS"));
    const char *limit = getenv("RETAINGRAPH_DUMP_LIMIT");
    config->limit = limit ? atoi(limit) : 2;
    const char *signal_name = getenv("RETAINGRAPH_DUMP_SIGNAL");
    if (signal_name && (strcmp(signal_name, "SIGUSR2") == 0 || strcmp(signal_name, "USR2") == 0
                        || strcmp(signal_name, "1") == 0 || strcmp(signal_name, "on") == 0))
        config->signal_number = SIGUSR2;
    else if (signal_name && (strcmp(signal_name, "SIGUSR1") == 0 || strcmp(signal_name, "USR1") == 0))
        config->signal_number = SIGUSR1;
    const char *poll_ms = getenv("RETAINGRAPH_DUMP_POLL_MS");
    config->poll_milliseconds = poll_ms ? atoi(poll_ms) : 1000;
    return config->resident_threshold > 0 || config->signal_number != 0;
}

/// Opens DIR/core.COMM.PID.N for the first N whose core and sidecar (PATH.txt) are both free,
/// mode 0600, so that no leftover of an earlier process with the same PID (a core moved away,
/// its sidecar left) is overwritten; -1 when none can be made. (Only this process's watcher
/// thread makes names with this PID.)
static int open_dump_file(char *path, size_t size) {
    char comm[32] = {0};
    prctl(PR_GET_NAME, comm, 0, 0, 0);  // this thread's; the process's is read below
    FILE *file = fopen("/proc/self/comm", "re");
    if (file) {
        if (fgets(comm, sizeof comm, file)) comm[strcspn(comm, "\n/ ")] = 0;
        fclose(file);
    }
    for (int n = 1; n < 10000; n++) {
        snprintf(path, size, "%s/core.%s.%d.%d", settings.directory, comm, (int)getpid(), n);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == EEXIST) continue;
            return -1;
        }
        char sidecar[1200];
        snprintf(sidecar, sizeof sidecar, "%s.txt", path);
        if (access(sidecar, F_OK) != 0) return fd;
        close(fd);
        unlink(path);
    }
    errno = EEXIST;
    return -1;
}

/// Writes PATH.txt beside a core: what the dump cost, for a person or a script (the core's own
/// notes cannot hold the pause: the child writes them before the parent has measured it). It
/// appears whole, once the dump has ended (written as PATH.txt.partial, then renamed): a script
/// may wait for it.
static void write_sidecar(const char *core, const rg_dump_result *result) {
    char path[1200], partial[1220];
    snprintf(path, sizeof path, "%s.txt", core);
    snprintf(partial, sizeof partial, "%s.partial", path);
    int fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    FILE *file = fdopen(fd, "w");
    if (!file) {
        close(fd);
        unlink(partial);
        return;
    }
    fprintf(file,
            "pause_ns %lld\npause_cpu_ns %lld\ndump_ns %lld\nfile_size %lld\ndisk_size %lld\n"
            "resident %lld\nstatus %d\nerror %d\n",
            (long long)result->pause_nanoseconds, (long long)result->pause_cpu_nanoseconds,
            (long long)result->dump_nanoseconds,
            (long long)result->file_size, (long long)result->disk_size,
            (long long)result->resident_bytes, result->child_status, result->error);
    if (fclose(file) != 0 || rename(partial, path) != 0) unlink(partial);
}

/// Takes one dump, if the directory has room; records it.
static void dump_once(void) {
    rg_dump_result result;
    memset(&result, 0, sizeof result);
    char path[1100] = {0};
    struct statvfs space;
    uint64_t resident = rg_resident_bytes();
    if (statvfs(settings.directory, &space) == 0
        && (uint64_t)space.f_bavail * space.f_frsize < resident + resident / 10 + (64u << 20))
    {
        result.error = ENOSPC;  // not started: the core could fill the file system
    } else {
        int fd = open_dump_file(path, sizeof path);
        if (fd < 0) {
            result.error = errno;
        } else {
            rg_dump_write(fd, &result);
            close(fd);
        }
    }
    if (path[0]) write_sidecar(path, &result);
    pthread_mutex_lock(&lock);
    if (count < MAX_DUMPS) {
        results[count] = result;
        memcpy(paths[count], path, sizeof path);
    }
    count++;
    pthread_mutex_unlock(&lock);
}

static void *watch(void *unused) {
    (void)unused;
    prctl(PR_SET_NAME, "rg-heap-dump", 0, 0, 0);
    // Every signal blocked but the one that asks for a dump: this thread accepts that one even
    // where every other thread blocks it (a child inherits its parent's mask).
    sigset_t mask;
    sigfillset(&mask);
    if (settings.signal_number > 0) sigdelset(&mask, settings.signal_number);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    uint64_t mark = settings.resident_threshold;
    int taken = 0;
    while (!stopping && taken < settings.limit) {
        struct pollfd wake = {.fd = wake_fds[0], .events = POLLIN};
        int ready = poll(&wake, 1, settings.poll_milliseconds);
        if (stopping) break;
        int asked = 0;
        if (ready > 0) {
            char bytes[64];
            while (read(wake_fds[0], bytes, sizeof bytes) > 0) asked = 1;
        }
        uint64_t resident = mark ? rg_resident_bytes() : 0;
        if (!asked && !(mark && resident >= mark)) continue;
        dump_once();
        taken++;
        if (mark && resident >= mark) mark = resident + resident / 2;
    }
    return NULL;
}

int rg_watch_start(const rg_watch_config *config) {
    pthread_mutex_lock(&lock);
    if (running) {
        pthread_mutex_unlock(&lock);
        return EALREADY;
    }
    settings = *config;
    if (settings.limit < 1) settings.limit = 1;
    if (settings.poll_milliseconds < 10) settings.poll_milliseconds = 10;
    if (pipe2(wake_fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        int error = errno;
        pthread_mutex_unlock(&lock);
        return error;
    }
    stopping = 0;
    if (settings.signal_number > 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_signal;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        sigaction(settings.signal_number, &action, &previous_action);
    }
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 256 << 10);
    int error = pthread_create(&watcher, &attributes, watch, NULL);
    pthread_attr_destroy(&attributes);
    running = error == 0;
    pthread_mutex_unlock(&lock);
    return error;
}

void rg_watch_stop(void) {
    pthread_mutex_lock(&lock);
    if (!running) {
        pthread_mutex_unlock(&lock);
        return;
    }
    running = 0;
    stopping = 1;
    pthread_mutex_unlock(&lock);
    (void)!write(wake_fds[1], "s", 1);
    pthread_join(watcher, NULL);
    if (settings.signal_number > 0) sigaction(settings.signal_number, &previous_action, NULL);
    close(wake_fds[0]);
    close(wake_fds[1]);
    wake_fds[0] = wake_fds[1] = -1;
}

int rg_watch_running(void) {
    pthread_mutex_lock(&lock);
    int result = running;
    pthread_mutex_unlock(&lock);
    return result;
}

int rg_watch_count(void) {
    pthread_mutex_lock(&lock);
    int result = count;
    pthread_mutex_unlock(&lock);
    return result;
}

int rg_watch_dump(int index, rg_dump_result *result, char *path, int path_size) {
    pthread_mutex_lock(&lock);
    int found = index >= 0 && index < count && index < MAX_DUMPS;
    if (found) {
        *result = results[index];
        snprintf(path, (size_t)path_size, "%s", paths[index]);
    }
    pthread_mutex_unlock(&lock);
    return found ? 0 : -1;
}

/// Starts the watcher from the environment when the program links HeapDumps (or preloads
/// libHeapDumpsPreload.so) and sets RETAINGRAPH_DUMP_ON_RSS or RETAINGRAPH_DUMP_SIGNAL.
__attribute__((constructor)) static void start_from_environment(void) {
    rg_watch_config config;
    if (rg_watch_config_from_environment(&config)) rg_watch_start(&config);
}
