// The sampled mode: one allocation per so many bytes, with its stack, kept until freed, for a
// production process (no table, no lock and no unwinding for the allocations not sampled).
//
// Each thread counts its allocated bytes down from a random interval; the allocation that takes
// the count below 0 is sampled and a new interval is drawn. Intervals are exponential with the
// chosen mean (a Poisson process over the bytes, as Go's MemProfileRate and tcmalloc sample),
// so an allocation of `size` bytes is sampled with probability 1 - exp(-size / mean) whatever
// came before it, and weighing each sample by the inverse of that estimates the whole program's
// allocations without bias. Only Swift heap blocks are kept (their caller is swift_slowAlloc or
// swift_task_create_common): a sample that lands on another malloc is dropped, which leaves the
// Swift blocks' probabilities unchanged. C allocations are not profiled: the census does not
// interpose realloc, which moves them.
//
// A free must learn whether its block was sampled without a lock: a bitmap of 2^16 bits (one
// per 16-byte granule of the address, modulo 2^16) is set for every live sample's granule and
// read with one instruction (census_entry_points.c); only a block whose bit is set takes the
// sampling lock to look itself up.
//
// Stacks are read from frame pointers (census_stacks.h), never with an unwinder: libunwind
// takes its own lock and then the loader's, so a sampled allocation made inside a
// dl_iterate_phdr callback (the loader's lock held) while another thread unwinds hung the
// whole process. The walk takes no lock and calls nothing. On architectures other than x86_64
// it keeps the first frame only.

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"
#include "census_stacks.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

RG_HIDDEN _Atomic(int) rg_sampling;
RG_HIDDEN _Atomic(int) rg_samples_in_use;
__thread int64_t rg_sample_countdown __attribute__((tls_model("initial-exec")));
RG_HIDDEN _Atomic(uint8_t) rg_sample_filter[8192] __attribute__((aligned(64)));

static _Atomic(size_t) mean_interval = 512 * 1024;
static __thread uint64_t random_state;
static _Atomic(uint64_t) seeds;

/// The deepest stack a sample keeps.
#define RG_SAMPLE_DEPTH 96

static uint64_t next_random(void) {
    if (__builtin_expect(!random_state, 0)) {
        // splitmix64 of a per-process sequence, the thread's address and the time.
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t z = atomic_fetch_add_explicit(&seeds, 0x9E3779B97F4A7C15ull,
                                               memory_order_relaxed) ^
                     (uint64_t)(uintptr_t)&random_state ^ (uint64_t)now.tv_nsec;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        random_state = (z ^ (z >> 31)) | 1;
    }
    // xorshift64*
    uint64_t x = random_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    random_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/// -ln(u) for u in (0, 1], without libm: u = m * 2^e with m in [1, 2), ln m by its atanh
/// series (relative error below 1e-6, far below the sampling's own noise).
static double minus_log(double u) {
    uint64_t bits;
    memcpy(&bits, &u, sizeof bits);
    int exponent = (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m;
    memcpy(&m, &bits, sizeof m);
    double z = (m - 1) / (m + 1), z2 = z * z;
    double ln_m = 2 * z * (1 + z2 * (1.0 / 3 + z2 * (1.0 / 5 + z2 * (1.0 / 7 + z2 / 9))));
    return -(exponent * 0.6931471805599453 + ln_m);
}

/// An exponential interval with the current mean, in bytes.
static int64_t draw_interval(void) {
    double u = (double)((next_random() >> 11) + 1) * (1.0 / 9007199254740992.0);
    double bytes = minus_log(u) * (double)atomic_load_explicit(&mean_interval,
                                                               memory_order_relaxed);
    return bytes > 4e18 ? (int64_t)4e18 : (int64_t)bytes;
}

/// The frames of the allocation's stack above the runtime's allocating function, read from
/// frame pointers above `frame` (the interposer's frame record).
static size_t capture_stack(uintptr_t *frames, uintptr_t frame) {
    uintptr_t buffer[RG_SAMPLE_DEPTH + 8];
    size_t count = rg_walk_frames(frame, buffer, RG_SAMPLE_DEPTH + 8);
    // Everything up to the runtime's allocating function is the census's or the runtime's.
    size_t start = 0;
    for (size_t index = 0; index < count && index < 8; index++) {
        uintptr_t address = buffer[index] - 1;
        if (rg_in_range(rg_slow_alloc_range, address) ||
            rg_in_range(rg_alloc_object_range, address) ||
            rg_in_range(rg_task_create_range, address))
            start = index + 1;
    }
    size_t depth = count - start < RG_SAMPLE_DEPTH ? count - start : RG_SAMPLE_DEPTH;
    for (size_t index = 0; index < depth; index++) frames[index] = buffer[start + index];
    return depth;
}

void rg_sample_allocation(void *block, size_t size, uintptr_t caller, uintptr_t frame) {
    if (__builtin_expect(!random_state, 0)) {
        // The thread's first interval: this allocation is sampled only if it ends inside it.
        int64_t first = draw_interval();
        if (first >= (int64_t)size) {
            rg_sample_countdown = first - (int64_t)size;
            return;
        }
    }
    rg_sample_countdown = draw_interval();
    if (rg_internal_depth || !atomic_load_explicit(&rg_sampling, memory_order_relaxed)) return;
    int kind;
    uintptr_t allocator = ((const uintptr_t *)frame)[0];
    if (rg_in_range(rg_slow_alloc_range, caller))
        kind = rg_in_range(rg_alloc_object_range, ((const uintptr_t *)allocator)[1])
                   ? RG_SAMPLE_OBJECT
                   : RG_SAMPLE_RAW;
    else if (rg_in_range(rg_task_create_range, caller))
        kind = RG_SAMPLE_TASK;
    else
        return; // not a Swift heap block
    // The type is read from the header later: until the runtime writes it, it reads 0.
    if (kind != RG_SAMPLE_RAW) *(volatile uintptr_t *)block = 0;
    uintptr_t frames[RG_SAMPLE_DEPTH];
    rg_internal_depth++; // the tables' own work is not sampled
    size_t depth = capture_stack(frames, frame);
    rg_samples_lock();
    rg_samples_add((uintptr_t)block, size, kind, frames, depth,
                   atomic_load_explicit(&mean_interval, memory_order_relaxed));
    rg_samples_unlock();
    rg_internal_depth--;
}

int rg_sample_filter_hit(uintptr_t block) {
    unsigned bit = (unsigned)((block >> 4) & 0xffff) ^ 0x8000;
    return (atomic_load_explicit(&rg_sample_filter[bit >> 3], memory_order_relaxed) >>
            (bit & 7)) & 1;
}

void rg_sample_forget(uintptr_t block) {
    if (!block) return;
    rg_internal_depth++;
    rg_samples_lock();
    rg_samples_remove(block);
    rg_samples_unlock();
    rg_internal_depth--;
}

bool rg_sampling_start(size_t interval) {
    if (rg_census_prepare() != RG_MODE_MALLOC) return false;
    atomic_store_explicit(&mean_interval, interval ? interval : 1, memory_order_relaxed);
    rg_lock_switches();
    atomic_store_explicit(&rg_sampling, 1, memory_order_release);
    rg_switch_malloc();
    rg_unlock_switches();
    return true;
}

void rg_sampling_stop(void) {
    rg_lock_switches();
    atomic_store_explicit(&rg_sampling, 0, memory_order_release);
    rg_switch_malloc();
    rg_unlock_switches();
}

bool rg_sampling_is_on(void) { return atomic_load_explicit(&rg_sampling, memory_order_relaxed); }

size_t rg_sampling_interval(void) {
    return atomic_load_explicit(&mean_interval, memory_order_relaxed);
}
