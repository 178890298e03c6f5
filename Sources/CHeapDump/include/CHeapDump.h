// HeapDumps' door to C: a core of this process written by a forked child while the process
// runs on, and the watcher thread that takes one on a signal or when resident memory passes a
// threshold. Only Sources/HeapDumps/HeapDumpDoor.swift imports this module.
//
// After fork in a multithreaded process the child may call only async-signal-safe functions:
// the child's writer (heap_dump_child.c) allocates nothing and takes no lock; it reads
// /proc/self/maps and /proc/self/auxv with open/read, its memory directly, writes with
// write/lseek/ftruncate, and leaves with _exit. The fork is a raw clone(2) with no exit signal:
// no pthread_atfork handler (user code) runs, no malloc lock is taken, and the process's own
// SIGCHLD handling never sees the child.
//
// Nothing here is stable API: the Swift module HeapDumps is.

#ifndef RETAINGRAPH_CHEAPDUMP_H
#define RETAINGRAPH_CHEAPDUMP_H

#include <stdint.h>

/// What one dump did.
typedef struct {
    /// How long the calling thread was inside clone(2): the only time the process was held.
    int64_t pause_nanoseconds;
    /// From the clone to the child's exit: the time the dump took.
    int64_t dump_nanoseconds;
    /// The core's length, and what it takes on disk (pages of zeros are holes).
    int64_t file_size;
    int64_t disk_size;
    /// The child's exit status: 0, or the errno of the step that failed.
    int32_t child_status;
    /// The errno of a failure before or at the clone (0: none).
    int32_t error;
    /// The resident memory when the dump started, in bytes.
    int64_t resident_bytes;
    /// The CPU time the calling thread spent inside clone(2) (copying the page tables): the
    /// pause's own cost, apart from the time the thread waited for a CPU.
    int64_t pause_cpu_nanoseconds;
} rg_dump_result;

/// Forks; the child writes this process's core to descriptor `fd` (open for writing, empty)
/// and exits. The calling thread waits for the child; the process's other threads run on.
/// Returns 0, or -1 with result->error or result->child_status set.
int rg_dump_write(int fd, rg_dump_result *result);

/// The watcher's settings.
typedef struct {
    /// Where dumps go (created files are core.COMMAND.PID.N, mode 0600).
    char directory[1024];
    /// Dump when resident memory reaches this many bytes, then each time it passes 1.5 times
    /// the resident memory of the last dump (0: never).
    uint64_t resident_threshold;
    /// The most dumps the watcher takes (at least 1).
    int32_t limit;
    /// The signal that asks for a dump (0: none).
    int32_t signal_number;
    /// How often resident memory is read, in milliseconds.
    int32_t poll_milliseconds;
} rg_watch_config;

/// Starts the watcher thread. Returns 0, EALREADY when one runs, or an errno.
int rg_watch_start(const rg_watch_config *config);
/// Stops the watcher thread (waits for a dump under way), restoring the signal's handler.
void rg_watch_stop(void);
/// Whether the watcher runs.
int rg_watch_running(void);
/// The number of dumps the watcher finished (written or failed).
int rg_watch_count(void);
/// Dump `index` (0-based): its result and path. Returns 0, or -1 when there is no such dump.
int rg_watch_dump(int index, rg_dump_result *result, char *path, int path_size);
/// Reads RETAINGRAPH_DUMP_ON_RSS, RETAINGRAPH_DUMP_SIGNAL, RETAINGRAPH_DUMP_LIMIT,
/// RETAINGRAPH_DUMP_DIR and RETAINGRAPH_DUMP_POLL_MS into `config`; 1 when a trigger is set.
int rg_watch_config_from_environment(rg_watch_config *config);
/// Parses `2GiB`, `512MiB`, `1G`, `4096` into bytes; 0 when unreadable.
uint64_t rg_parse_bytes(const char *text);
/// This process's resident memory in bytes (/proc/self/statm), or 0.
uint64_t rg_resident_bytes(void);

#endif
