// Creation sites: where each recorded block was made, as a pair of return addresses read from
// frame pointers inside malloc (no unwinding), deduplicated into a table of at most 65,535
// sites whose 16-bit id rides in the top bits of the block's table entry (no memory per block).
//
// Which frames: the allocating function (swift_allocObject, or swift_task_create_common for a
// task) returns into its caller, which is the allocating initializer (`__allocating_init`) in a
// debug build, the user's own function when the initializer was inlined (release), or the
// function that made a closure context or a box; that caller returns into *its* caller, the
// user's line that called the initializer. Keeping both return addresses gives the user's line
// in either build; a reader symbolicates them only when asked (HeapCensus, through StackTraces).
//
// Reading the second address means trusting the caller's frame record, which a function built
// without frame pointers does not have (its frame pointer register holds any value): the word is
// used only if it lies inside this thread's stack, above the current frame, so the
// read never faults. On x86_64 the stack's top is the thread descriptor (glibc places it at the
// top of every thread's stack mapping) or, on the main thread, __libc_stack_end; other
// architectures keep the first address only.
//
// Called from inside malloc: never calls malloc. Each thread remembers its last site (two
// compares when it allocates at the same site again); other lookups are a lock-free probe; a new
// site takes a spin lock for a few dozen instructions.

#define _GNU_SOURCE
#include "census_sites.h"

#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>

RG_HIDDEN rg_site_t *rg_sites;
RG_HIDDEN _Atomic(uint16_t) *_Atomic rg_site_index;
static _Atomic(uint32_t) site_count;
static _Atomic(size_t) dropped;
static _Atomic(int) site_lock;

__thread uintptr_t rg_stack_end __attribute__((tls_model("initial-exec")));

uintptr_t rg_find_stack_end(uintptr_t frame) {
    uintptr_t end = 1;
#if defined(__x86_64__)
    uintptr_t thread;
    __asm__("movq %%fs:0, %0" : "=r"(thread));
    uintptr_t main_end = (uintptr_t)__libc_stack_end;
    if (frame < thread)
        end = thread;
    else if (frame < main_end)
        end = main_end;
#else
    (void)frame;
#endif
    rg_stack_end = end;
    return end;
}

uintptr_t rg_next_frame(uintptr_t frame) { return rg_next_frame_inline(frame); }

void rg_caller_pair(uintptr_t frame, uintptr_t *caller, uintptr_t *above) {
    rg_caller_pair_inline(frame, caller, above);
}

__thread uintptr_t rg_last_site_caller __attribute__((tls_model("initial-exec")));
__thread uintptr_t rg_last_site_above __attribute__((tls_model("initial-exec")));
__thread uint32_t rg_last_site_id __attribute__((tls_model("initial-exec")));

uint32_t rg_site_lookup(uintptr_t caller, uintptr_t above) { return rg_site_probe(caller, above); }

uint32_t rg_site_id(uintptr_t caller, uintptr_t above) { return rg_site_id_inline(caller, above); }

static void lock_sites(void) {
    int expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&site_lock, &expected, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
        expected = 0;
        sched_yield();
    }
}

static void unlock_sites(void) { atomic_store_explicit(&site_lock, 0, memory_order_release); }

/// Maps the tables once (under the site lock); false when memory is exhausted.
static int map_sites(void) {
    if (atomic_load_explicit(&rg_site_index, memory_order_relaxed)) return 1;
    void *table = mmap(NULL, RG_SITE_LIMIT * sizeof(rg_site_t), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED) return 0;
    void *index = mmap(NULL, ((size_t)1 << RG_SITE_INDEX_BITS) * sizeof(uint16_t),
                       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (index == MAP_FAILED) {
        munmap(table, RG_SITE_LIMIT * sizeof(rg_site_t));
        return 0;
    }
    rg_sites = table;
    atomic_store_explicit(&rg_site_index, (_Atomic(uint16_t) *)index, memory_order_release);
    return 1;
}

/// Probes for the pair from its home slot; returns its id, or 0 with `*slot` the empty slot
/// where it would go.
static uint32_t find_site(_Atomic(uint16_t) *index, uintptr_t caller, uintptr_t above,
                          size_t *slot) {
    const size_t mask = ((size_t)1 << RG_SITE_INDEX_BITS) - 1;
    for (size_t at = rg_site_hash(caller, above);; at = (at + 1) & mask) {
        uint32_t id = atomic_load_explicit(&index[at], memory_order_acquire);
        if (!id) {
            *slot = at;
            return 0;
        }
        if (rg_sites[id].caller == caller && rg_sites[id].above == above) return id;
    }
}

uint32_t rg_site_add(uintptr_t caller, uintptr_t above) {
    if (!caller) return 0;
    size_t slot;
    lock_sites();
    uint32_t id = 0;
    if (map_sites()) {
        _Atomic(uint16_t) *index = atomic_load_explicit(&rg_site_index, memory_order_relaxed);
        id = find_site(index, caller, above, &slot);
        uint32_t count = atomic_load_explicit(&site_count, memory_order_relaxed);
        if (!id && count + 1 < RG_SITE_LIMIT) {
            id = count + 1;
            rg_sites[id] = (rg_site_t){caller, above};
            atomic_store_explicit(&site_count, id, memory_order_release);
            atomic_store_explicit(&index[slot], (uint16_t)id, memory_order_release);
        }
    }
    unlock_sites();
    if (!id) atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
    return id;
}

bool rg_census_site(uint32_t id, uintptr_t *caller, uintptr_t *above) {
    if (id == 0 || id > atomic_load_explicit(&site_count, memory_order_acquire)) return false;
    *caller = rg_sites[id].caller;
    *above = rg_sites[id].above;
    return true;
}

size_t rg_census_site_count(void) {
    return atomic_load_explicit(&site_count, memory_order_relaxed);
}

size_t rg_census_sites_dropped(void) {
    return atomic_load_explicit(&dropped, memory_order_relaxed);
}

size_t rg_census_site_bytes(void) {
    if (!atomic_load_explicit(&rg_site_index, memory_order_acquire)) return 0;
    // The index's pages are touched at random (all of them once a few thousand sites exist);
    // the sites' pages in order.
    size_t count = atomic_load_explicit(&site_count, memory_order_relaxed);
    size_t index_bytes = ((size_t)1 << RG_SITE_INDEX_BITS) * sizeof(uint16_t);
    size_t site_pages = ((count + 1) * sizeof(rg_site_t) + 4095) / 4096;
    size_t index_pages = count < index_bytes / 4096 ? count : index_bytes / 4096;
    return (site_pages + index_pages) * 4096;
}
