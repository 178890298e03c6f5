// The census table's layout and its two hot paths, inline so that the recording malloc and
// free (census_hooks.c) run them without a call: a set of live block addresses in 256
// stripes, each an open-addressing hash table (linear probing, backward-shift deletion) behind
// a spin lock. Not part of the module's header.
//
// Called from inside malloc and free, so nothing here calls them: the slot arrays come from
// mmap (census_table.c). A stripe lock is held for a few dozen instructions by an insert or a
// removal, and for the length of a visit by the census's scan (one stripe at a time, one scan
// at a time). The visiting thread may free a block of the stripe it visits (a temporary of its
// own): its lock attempt fails, sees that this thread is the visitor, and goes on unlocked.
#ifndef RETAINGRAPH_CHEAPCENSUS_TABLE_H
#define RETAINGRAPH_CHEAPCENSUS_TABLE_H

#include "CHeapCensus.h"
#include "census_internal.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RG_STRIPE_BITS 8
#define RG_STRIPE_COUNT (1u << RG_STRIPE_BITS)

typedef struct {
    _Atomic(int) lock; // 1 while held
    unsigned shift;    // 64 - log2(capacity): a hash's slot is (hash << RG_STRIPE_BITS) >> shift
    size_t mask;       // capacity - 1
    size_t count;      // written under the lock, read racily (relaxed) outside it
    size_t limit;      // the count that makes the next insert grow the table; 0 with no slots
    uintptr_t *slots;  // 0 = empty; address | flags otherwise; rg_no_slots before the first
    char padding[64 - sizeof(int) - sizeof(unsigned) - sizeof(size_t) * 3 - sizeof(void *)];
} rg_stripe_t;

extern RG_HIDDEN rg_stripe_t rg_stripes[RG_STRIPE_COUNT];
/// The slots of a stripe that has none (before its first growth, after a clear): two empty
/// ones (mask 1, shift 63), never written, since an insert grows the table first (limit 0).
/// A removal probes them and finds nothing: it needs no test for a missing table (2
/// instructions a free).
extern RG_HIDDEN const uintptr_t rg_no_slots[2];
/// The stripe the calling thread is visiting (rg_census_visit_stripe), or NULL.
extern RG_HIDDEN __thread rg_stripe_t *rg_visited_stripe;

/// Takes a contended lock (or sees that this thread visits the stripe: returns 0, not taken).
RG_HIDDEN int rg_stripe_lock_slow(rg_stripe_t *stripe);
/// Grows the stripe's table (or makes its first one); 0 when memory is exhausted, in which case
/// the block is simply not recorded. Call with the stripe locked.
RG_HIDDEN int rg_stripe_grow(rg_stripe_t *stripe);

static inline uint64_t rg_hash(uintptr_t address) {
    return (uint64_t)(address >> 4) * 0x9E3779B97F4A7C15ull;
}

static inline rg_stripe_t *rg_stripe_for(uint64_t hash) {
    return &rg_stripes[hash >> (64 - RG_STRIPE_BITS)];
}

static inline size_t rg_home_slot(uint64_t hash, unsigned shift) {
    return (size_t)((hash << RG_STRIPE_BITS) >> shift);
}

/// Takes the stripe's lock; 1 when taken (pass it to rg_stripe_unlock), 0 when the calling
/// thread is visiting this stripe and holds it already.
static inline int rg_stripe_lock(rg_stripe_t *stripe) {
    int expected = 0;
    if (__builtin_expect(atomic_compare_exchange_strong_explicit(&stripe->lock, &expected, 1,
                                                                 memory_order_acquire,
                                                                 memory_order_relaxed),
                         1))
        return 1;
    return rg_stripe_lock_slow(stripe);
}

static inline void rg_stripe_unlock(rg_stripe_t *stripe, int taken) {
    if (taken) atomic_store_explicit(&stripe->lock, 0, memory_order_release);
}

/// Adds 1 (`delta` 1) or takes 1 (-1) from a stripe's count; call with the stripe locked.
/// On x86_64 one add to memory (an aligned word written by one instruction: readers outside
/// the lock, which load it relaxed, never see it torn), where a load, an add and an atomic
/// store took 3 instructions (2 fewer a free, 1 an insert, whose count is loaded anyway).
static inline __attribute__((always_inline)) void rg_stripe_count_add(rg_stripe_t *stripe,
                                                                     long delta) {
#if defined(__x86_64__)
    __asm__("addq %1, %0" : "+m"(stripe->count) : "er"(delta));
#else
    __atomic_store_n(&stripe->count, stripe->count + (size_t)delta, __ATOMIC_RELAXED);
#endif
}

/// Stores `entry` (`address` | flags | site) in its run, replacing a stale entry for the same
/// address. Call with the stripe locked and room in its table.
static inline __attribute__((always_inline)) void
rg_stripe_store(rg_stripe_t *stripe, uint64_t hash, uintptr_t address, uintptr_t entry) {
    uintptr_t *slots = stripe->slots;
    size_t mask = stripe->mask;
    for (size_t index = rg_home_slot(hash, stripe->shift);; index = (index + 1) & mask) {
        uintptr_t found = slots[index];
        if (!found) {
            slots[index] = entry;
            rg_stripe_count_add(stripe, 1);
            return;
        }
        if ((found & RG_ENTRY_ADDRESS_MASK) == address) { // a stale entry: replace it
            slots[index] = entry;
            return;
        }
    }
}

/// Records a block (address | flags | site << RG_ENTRY_SITE_SHIFT); a stale entry for the same
/// address is replaced.
static inline __attribute__((always_inline)) void rg_table_insert_inline(uintptr_t address,
                                                                          uintptr_t flags) {
    // The bits from RG_ENTRY_SITE_SHIFT up hold the site: a block above 2^47 (x86_64; 2^48
    // elsewhere: not seen on Linux without memory tagging) is not recorded rather than
    // recorded wrong.
    if (__builtin_expect(address >> RG_ENTRY_SITE_SHIFT, 0)) return;
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    int taken = rg_stripe_lock(stripe);
    // Keep the load under 3/4 (limit); a stripe with no slots has limit 0.
    if (__builtin_expect(stripe->count >= stripe->limit, 0) && !rg_stripe_grow(stripe)) {
        rg_stripe_unlock(stripe, taken);
        return;
    }
    rg_stripe_store(stripe, hash, address, address | flags);
    rg_stripe_unlock(stripe, taken);
}

/// The recording malloc's common case of rg_table_insert_inline: the stripe's lock free and the
/// table with room. Returns 1 when the block is recorded (or is one the table never records);
/// 0, having changed nothing and holding no lock, when rg_table_insert must do it (it waits
/// for the lock, or grows the table). Calls nothing, so that the malloc inlining it saves few
/// registers.
static inline __attribute__((always_inline)) int rg_table_insert_quick(uintptr_t address,
                                                                       uintptr_t flags) {
    if (__builtin_expect(address >> RG_ENTRY_SITE_SHIFT, 0)) return 1; // as rg_table_insert_inline
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    // An exchange, where rg_stripe_lock compares and exchanges: as many instructions, but it
    // leaves %rax (x86_64's compare-and-exchange operand) to the block this malloc returns,
    // which then never moves out of it and back (2 instructions fewer). A lock already held
    // stays held (1 written over 1).
    if (__builtin_expect(atomic_exchange_explicit(&stripe->lock, 1, memory_order_acquire), 0))
        return 0;
    if (__builtin_expect(stripe->count >= stripe->limit, 0)) {
        rg_stripe_unlock(stripe, 1);
        return 0;
    }
    rg_stripe_store(stripe, hash, address, address | flags);
    rg_stripe_unlock(stripe, 1);
    return 1;
}

/// Empties slot `hole` (the entry of a block being forgotten), moves the later members of its
/// run back into the gap (backward-shift deletion: no tombstones), and counts the removal. Call
/// with the stripe locked.
static inline void rg_stripe_delete_at(rg_stripe_t *stripe, size_t hole) {
    uintptr_t *slots = stripe->slots;
    size_t mask = stripe->mask;
    unsigned shift = stripe->shift;
    size_t next = (hole + 1) & mask;
    uintptr_t moving;
    while ((moving = slots[next])) {
        size_t home = rg_home_slot(rg_hash(moving & RG_ENTRY_ADDRESS_MASK), shift);
        // Move it if its home is not in (hole, next] cyclically.
        if (((next - home) & mask) >= ((next - hole) & mask)) {
            slots[hole] = moving;
            hole = next;
        }
        next = (next + 1) & mask;
    }
    slots[hole] = 0;
    __atomic_store_n(&stripe->count, stripe->count - 1, __ATOMIC_RELAXED);
}

/// rg_stripe_delete_at, then unlocks the stripe (census_table.c): the removal's slow path.
RG_HIDDEN void rg_stripe_delete_at_and_unlock(rg_stripe_t *stripe, size_t hole);

/// Forgets a block if it is recorded.
static inline __attribute__((always_inline)) void rg_table_remove_inline(uintptr_t address) {
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    // Most frees are of blocks the census never saw: a racy look at the count first is fine,
    // since a block can only be in the table if its own allocation finished before this free.
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return;
    int taken = rg_stripe_lock(stripe);
    uintptr_t *slots = stripe->slots;
    size_t mask = stripe->mask;
    size_t hole = rg_home_slot(hash, stripe->shift);
    uintptr_t entry;
    while ((entry = slots[hole]) && (entry & RG_ENTRY_ADDRESS_MASK) != address)
        hole = (hole + 1) & mask;
    if (entry) rg_stripe_delete_at(stripe, hole);
    rg_stripe_unlock(stripe, taken);
}

/// What rg_table_remove_quick did.
typedef enum {
    /// The block is forgotten, or was not recorded; the stripe is unlocked.
    rg_removed,
    /// Nothing: the stripe's lock was not free (another thread holds it, or this one visits
    /// the stripe). rg_table_remove does the whole removal.
    rg_remove_contended,
    /// The block's entry is at `*hole` with more of its run after it: the stripe is locked, and
    /// rg_stripe_delete_at_and_unlock finishes.
    rg_remove_needs_shift,
} rg_remove_step_t;

/// The free path's removal, for a function that then tail-calls glibc's free: every step that
/// calls a function is left to the caller, so that the common case (the entry alone at the end
/// of its run, an uncontended lock) calls nothing and the caller saves no register (callgrind,
/// census-cost.sh: RESULTS-HISTORY, Nov 28 2026 18:30 UTC).
static inline __attribute__((always_inline)) rg_remove_step_t
rg_table_remove_quick(uintptr_t address, rg_stripe_t **locked, size_t *hole) {
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    // No racy look at the count first (rg_table_remove_inline's): it spares the lock only in
    // a stripe with no entry, rare once the census holds a few thousand blocks, and costs 3
    // instructions on every free.
    int expected = 0;
    if (__builtin_expect(!atomic_compare_exchange_strong_explicit(&stripe->lock, &expected, 1,
                                                                  memory_order_acquire,
                                                                  memory_order_relaxed),
                         0))
        return rg_remove_contended;
    uintptr_t *slots = stripe->slots;
    size_t mask = stripe->mask;
    size_t index = rg_home_slot(hash, stripe->shift);
    uintptr_t entry = slots[index];
    // An empty slot (0) never equals the address, which is not 0: one test per probe while
    // it does not match.
    while ((entry & RG_ENTRY_ADDRESS_MASK) != address) {
        if (!entry) goto unlock;
        index = (index + 1) & mask;
        entry = slots[index];
    }
    if (slots[(index + 1) & mask]) {
        *locked = stripe;
        *hole = index;
        return rg_remove_needs_shift;
    }
    slots[index] = 0;
    rg_stripe_count_add(stripe, -1);
unlock:
    rg_stripe_unlock(stripe, 1);
    return rg_removed;
}

#endif
