// The creation-site table's hot path (census_sites.c has the rest and the design): the frame
// walk and the lookup of a known site, inline so that the recording malloc runs them without a
// call. Not part of the module's header.
#ifndef RETAINGRAPH_CHEAPCENSUS_SITES_H
#define RETAINGRAPH_CHEAPCENSUS_SITES_H

#include "CHeapCensus.h"
#include "census_internal.h"

#include <stdatomic.h>
#include <stdint.h>

/// Index slots: twice the sites, so probes stay short when the table is full.
#define RG_SITE_INDEX_BITS 17

typedef struct {
    uintptr_t caller, above;
} rg_site_t;

/// Sites by id (id 0 unused), and the index: hash → id, 0 for an empty slot. Both mapped at
/// the first new site; untouched pages cost nothing.
extern RG_HIDDEN rg_site_t *rg_sites;
extern RG_HIDDEN _Atomic(uint16_t) *_Atomic rg_site_index;

/// Adds a pair the lookup did not find (under the site lock); its id, or 0 when full.
RG_HIDDEN uint32_t rg_site_add(uintptr_t caller, uintptr_t above);

extern void *__libc_stack_end;

/// The calling thread's stack end, once computed (0 before, 1 when it has none the walk trusts).
extern __thread uintptr_t rg_stack_end __attribute__((tls_model("initial-exec")));

/// The highest address of the stack of the calling thread, whose frame `frame` is, that a
/// frame walk may read below; 1 when there is none: on x86_64 the thread descriptor, which
/// glibc places at the top of every thread's stack mapping, or on the main thread (whose
/// descriptor is elsewhere) __libc_stack_end.
RG_HIDDEN uintptr_t rg_find_stack_end(uintptr_t frame);

static inline __attribute__((always_inline)) uintptr_t rg_stack_end_above(uintptr_t frame) {
    uintptr_t end = rg_stack_end;
    return __builtin_expect(end != 0, 1) ? end : rg_find_stack_end(frame);
}

static inline __attribute__((always_inline)) uintptr_t rg_next_frame_inline(uintptr_t frame) {
    uintptr_t end = rg_stack_end_above(frame);
    uintptr_t next = ((const uintptr_t *)frame)[0];
    // Above this frame and below the stack's end (an end of 0 fails the test): everything
    // between is this thread's stack, mapped, so reading the record there cannot fault. Frame
    // records are aligned and close together, but neither check adds safety, and each costs
    // instructions on every recorded allocation.
    if (next <= frame || next + 16 > end) return 0;
    return next;
}

static inline __attribute__((always_inline)) void
rg_caller_pair_inline(uintptr_t frame, uintptr_t *caller, uintptr_t *above) {
    *caller = ((const uintptr_t *)frame)[1];
    uintptr_t next = rg_next_frame_inline(frame);
    *above = next ? ((const uintptr_t *)next)[1] : 0;
}

static inline __attribute__((always_inline)) size_t rg_site_hash(uintptr_t caller,
                                                                 uintptr_t above) {
    return (size_t)((((uint64_t)caller << 16 ^ (uint64_t)above) * 0x9E3779B97F4A7C15ull) >>
                    (64 - RG_SITE_INDEX_BITS));
}

/// The calling thread's last site: a loop that allocates at one site compares two words.
extern __thread uintptr_t rg_last_site_caller __attribute__((tls_model("initial-exec")));
extern __thread uintptr_t rg_last_site_above __attribute__((tls_model("initial-exec")));
extern __thread uint32_t rg_last_site_id __attribute__((tls_model("initial-exec")));

/// Finds the id of a pair in the table, adding it if new.
RG_HIDDEN uint32_t rg_site_lookup(uintptr_t caller, uintptr_t above);

/// The probe (rg_site_lookup's body, and the recording malloc's on a miss).
static inline __attribute__((always_inline)) uint32_t rg_site_probe(uintptr_t caller,
                                                                    uintptr_t above) {
    _Atomic(uint16_t) *index = atomic_load_explicit(&rg_site_index, memory_order_acquire);
    if (__builtin_expect(index != NULL, 1)) {
        const size_t mask = ((size_t)1 << RG_SITE_INDEX_BITS) - 1;
        for (size_t at = rg_site_hash(caller, above);; at = (at + 1) & mask) {
            uint32_t id = atomic_load_explicit(&index[at], memory_order_acquire);
            if (!id) break;
            if (rg_sites[id].caller == caller && rg_sites[id].above == above) return id;
        }
    }
    return rg_site_add(caller, above);
}

/// The id of a return-address pair: the thread's last site, a lock-free probe for a known
/// pair, rg_site_add for a new one.
static inline __attribute__((always_inline)) uint32_t rg_site_id_inline(uintptr_t caller,
                                                                        uintptr_t above) {
    if (__builtin_expect(caller == rg_last_site_caller && above == rg_last_site_above, 1))
        return rg_last_site_id;
    uint32_t id = rg_site_probe(caller, above);
    rg_last_site_caller = caller;
    rg_last_site_above = above;
    rg_last_site_id = id;
    return id;
}

#endif
