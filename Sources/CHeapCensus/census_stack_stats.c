// A measurement, compiled only with RG_STACK_STATS defined (`-Xcc -DRG_STACK_STATS`): how many
// distinct creation stacks a process makes, at full depth and cut to 8, 4, 2 and 1 frames (and
// the outer frames past the 8th and the 4th), and how fast they arrive. The depot calls
// rg_stack_stats_note for every stack a thread's recent stacks did not have; a stack new at
// full depth is counted in a set of 2^24 hashes per depth (mmap'd, touched as they fill), and
// every 10,000th prints a line to standard error:
//
//   rg-stack-stats progress pid=… t=<seconds since the first> lookups=… d16=… d8=… d4=… d2=…
//     d1=… outer8=… outer12=… depot=<stacks stored> dropped=… shortened=…
//
// and once more at exit. Counting takes a spin lock: a measuring build only.

#define _GNU_SOURCE
#include "census_stacks.h"

#ifdef RG_STACK_STATS
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define STATS_BITS 24
enum { STATS_SETS = 7 };
static const char *const stats_names[STATS_SETS] = {"d16", "d8", "d4", "d2", "d1", "outer8",
                                                    "outer12"};
static uint64_t *stats_sets[STATS_SETS];
static size_t stats_counts[STATS_SETS];
static size_t stats_lookups;
static _Atomic(int) stats_lock;
static struct timespec stats_start;

static uint64_t stats_hash(const uintptr_t *frames, size_t count) {
    uint64_t mixed = 0x12345;
    for (size_t index = 0; index < count; index++)
        mixed = (mixed ^ frames[index]) * 0x9E3779B97F4A7C15ull;
    mixed ^= mixed >> 29;
    return (mixed ^ count) | 1;
}

static int stats_insert(int set, uint64_t hash) {
    if (!stats_sets[set]) {
        void *memory = mmap(NULL, sizeof(uint64_t) << STATS_BITS, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) return 0;
        stats_sets[set] = memory;
    }
    uint64_t *slots = stats_sets[set];
    const size_t mask = ((size_t)1 << STATS_BITS) - 1;
    for (size_t at = (hash * 0x9E3779B97F4A7C15ull) >> (64 - STATS_BITS);; at = (at + 1) & mask) {
        if (slots[at] == hash) return 0;
        if (!slots[at]) {
            slots[at] = hash;
            stats_counts[set]++;
            return 1;
        }
    }
}

static char *stats_number(char *to, size_t value) {
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    while (count) *to++ = digits[--count];
    return to;
}

static char *stats_text(char *to, const char *text) {
    while (*text) *to++ = *text++;
    return to;
}

static void stats_print(const char *when) {
    char line[512], *at = line;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    size_t tenths = (size_t)((now.tv_sec - stats_start.tv_sec) * 10 +
                             (now.tv_nsec - stats_start.tv_nsec) / 100000000);
    at = stats_text(at, "rg-stack-stats ");
    at = stats_text(at, when);
    at = stats_text(at, " pid=");
    at = stats_number(at, (size_t)getpid());
    at = stats_text(at, " t=");
    at = stats_number(at, tenths / 10);
    at = stats_text(at, ".");
    at = stats_number(at, tenths % 10);
    at = stats_text(at, "s lookups=");
    at = stats_number(at, stats_lookups);
    for (int set = 0; set < STATS_SETS; set++) {
        at = stats_text(at, " ");
        at = stats_text(at, stats_names[set]);
        at = stats_text(at, "=");
        at = stats_number(at, stats_counts[set]);
    }
    at = stats_text(at, " depot=");
    at = stats_number(at, rg_census_stack_count());
    at = stats_text(at, " dropped=");
    at = stats_number(at, rg_census_stacks_dropped());
    at = stats_text(at, " shortened=");
    at = stats_number(at, rg_census_stacks_shortened());
    *at++ = '\n';
    ssize_t written = write(2, line, (size_t)(at - line));
    (void)written;
}

void rg_stack_stats_note(const uintptr_t *frames, size_t depth) {
    int expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&stats_lock, &expected, 1,
                                                  memory_order_acquire, memory_order_relaxed))
        expected = 0;
    if (!stats_lookups) clock_gettime(CLOCK_MONOTONIC, &stats_start);
    stats_lookups++;
    if (stats_insert(0, stats_hash(frames, depth))) {
        static const size_t depths[] = {8, 4, 2, 1};
        for (int set = 1; set <= 4; set++)
            stats_insert(set, stats_hash(frames, depth < depths[set - 1] ? depth : depths[set - 1]));
        if (depth > 8) stats_insert(5, stats_hash(frames + 8, depth - 8));
        if (depth > 4) stats_insert(6, stats_hash(frames + 4, depth - 4));
        if (stats_counts[0] % 10000 == 0) stats_print("progress");
    }
    atomic_store_explicit(&stats_lock, 0, memory_order_release);
}

__attribute__((destructor)) static void stats_at_exit(void) {
    if (stats_lookups) stats_print("exit");
}
#endif
