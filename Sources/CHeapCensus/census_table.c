// The census table: a set of live block addresses, in 256 stripes, each an open-addressing
// hash table (linear probing, backward-shift deletion) behind a small recursive spin lock.
//
// It is called from inside malloc and free, so it never calls them: its arrays come from mmap.
// A stripe lock is held for a few dozen instructions by an insert or a removal, and for the
// length of a visit by the census's scan (one stripe at a time, one scan at a time). The lock
// is recursive for the visiting thread only, because that thread may free a block of the
// stripe it is visiting (a temporary of its own).

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#define STRIPE_BITS 8
#define STRIPE_COUNT (1u << STRIPE_BITS)
#define INITIAL_LOG2_CAPACITY 9

typedef struct {
    _Atomic(uintptr_t) owner; // the owning thread's marker address, or 0
    unsigned depth;
    unsigned log2_capacity;
    size_t count;
    uintptr_t *slots; // 0 = empty
    char padding[64 - sizeof(uintptr_t) * 3 - sizeof(unsigned) * 2 - sizeof(size_t)];
} stripe_t;

static stripe_t stripes[STRIPE_COUNT];
static _Atomic(size_t) table_bytes;
static __thread char thread_marker;
__thread int rg_internal_depth;
_Atomic(int) rg_table_in_use;

static inline uint64_t hash_address(uintptr_t address) {
    return (uint64_t)(address >> 4) * 0x9E3779B97F4A7C15ull;
}

static inline stripe_t *stripe_for(uint64_t hash) { return &stripes[hash >> (64 - STRIPE_BITS)]; }

static inline size_t home_slot(uint64_t hash, unsigned log2_capacity) {
    return (size_t)((hash << STRIPE_BITS) >> (64 - log2_capacity));
}

static void lock(stripe_t *stripe) {
    uintptr_t me = (uintptr_t)&thread_marker;
    if (atomic_load_explicit(&stripe->owner, memory_order_relaxed) == me) {
        stripe->depth++;
        return;
    }
    unsigned spins = 0;
    for (;;) {
        uintptr_t expected = 0;
        if (atomic_compare_exchange_weak_explicit(&stripe->owner, &expected, me,
                                                  memory_order_acquire, memory_order_relaxed))
            break;
        if (++spins > 64) {
            sched_yield();
            spins = 0;
        }
    }
    stripe->depth = 1;
}

static void unlock(stripe_t *stripe) {
    if (--stripe->depth == 0) atomic_store_explicit(&stripe->owner, 0, memory_order_release);
}

static uintptr_t *map_slots(size_t capacity) {
    void *memory = mmap(NULL, capacity * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return NULL;
    atomic_fetch_add_explicit(&table_bytes, capacity * sizeof(uintptr_t), memory_order_relaxed);
    return memory;
}

static void unmap_slots(uintptr_t *slots, unsigned log2_capacity) {
    if (!slots) return;
    size_t capacity = (size_t)1 << log2_capacity;
    munmap(slots, capacity * sizeof(uintptr_t));
    atomic_fetch_sub_explicit(&table_bytes, capacity * sizeof(uintptr_t), memory_order_relaxed);
}

static void place(uintptr_t *slots, unsigned log2_capacity, uintptr_t entry) {
    size_t mask = ((size_t)1 << log2_capacity) - 1;
    size_t index = home_slot(hash_address(entry & ~(uintptr_t)RG_ENTRY_FLAGS), log2_capacity);
    while (slots[index]) index = (index + 1) & mask;
    slots[index] = entry;
}

/// Grows the stripe's table (or makes its first one); false when memory is exhausted, in
/// which case the block is simply not recorded.
static int grow(stripe_t *stripe) {
    unsigned next = stripe->slots ? stripe->log2_capacity + 1 : INITIAL_LOG2_CAPACITY;
    uintptr_t *slots = map_slots((size_t)1 << next);
    if (!slots) return 0;
    if (stripe->slots) {
        size_t capacity = (size_t)1 << stripe->log2_capacity;
        for (size_t index = 0; index < capacity; index++)
            if (stripe->slots[index]) place(slots, next, stripe->slots[index]);
        unmap_slots(stripe->slots, stripe->log2_capacity);
    }
    stripe->slots = slots;
    stripe->log2_capacity = next;
    return 1;
}

void rg_table_insert(uintptr_t address, uintptr_t flags) {
    if (!atomic_load_explicit(&rg_table_in_use, memory_order_relaxed))
        atomic_store_explicit(&rg_table_in_use, 1, memory_order_relaxed);
    uint64_t hash = hash_address(address);
    stripe_t *stripe = stripe_for(hash);
    lock(stripe);
    // Keep the load under 3/4.
    if (!stripe->slots || (stripe->count + 1) * 4 > ((size_t)3 << stripe->log2_capacity)) {
        if (!grow(stripe)) {
            unlock(stripe);
            return;
        }
    }
    size_t mask = ((size_t)1 << stripe->log2_capacity) - 1;
    size_t index = home_slot(hash, stripe->log2_capacity);
    for (;;) {
        uintptr_t entry = stripe->slots[index];
        if (!entry) {
            stripe->slots[index] = address | flags;
            __atomic_fetch_add(&stripe->count, 1, __ATOMIC_RELAXED);
            break;
        }
        if ((entry & ~(uintptr_t)RG_ENTRY_FLAGS) == address) { // a stale entry: replace it
            stripe->slots[index] = address | flags;
            break;
        }
        index = (index + 1) & mask;
    }
    unlock(stripe);
}

/// The slot holding `address` in its stripe's table, or NULL; call with the stripe locked.
static inline uintptr_t *find_slot(stripe_t *stripe, uint64_t hash, uintptr_t address) {
    if (!stripe->slots) return NULL;
    size_t mask = ((size_t)1 << stripe->log2_capacity) - 1;
    for (size_t index = home_slot(hash, stripe->log2_capacity); stripe->slots[index];
         index = (index + 1) & mask)
        if ((stripe->slots[index] & ~(uintptr_t)RG_ENTRY_FLAGS) == address)
            return &stripe->slots[index];
    return NULL;
}

void rg_table_remove(uintptr_t address) {
    uint64_t hash = hash_address(address);
    stripe_t *stripe = stripe_for(hash);
    // Most frees are of blocks the census never saw: a racy look at the count first is fine,
    // since a block can only be in the table if its own allocation finished before this free.
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return;
    lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot) {
        // Backward-shift deletion: move later members of the run into the hole.
        size_t mask = ((size_t)1 << stripe->log2_capacity) - 1;
        size_t hole = (size_t)(slot - stripe->slots);
        size_t next = (hole + 1) & mask;
        while (stripe->slots[next]) {
            uintptr_t moving = stripe->slots[next];
            size_t home = home_slot(hash_address(moving & ~(uintptr_t)RG_ENTRY_FLAGS),
                                    stripe->log2_capacity);
            // Move it if its home is not in (hole, next] cyclically.
            if (((next - home) & mask) >= ((next - hole) & mask)) {
                stripe->slots[hole] = moving;
                hole = next;
            }
            next = (next + 1) & mask;
        }
        stripe->slots[hole] = 0;
        __atomic_fetch_sub(&stripe->count, 1, __ATOMIC_RELAXED);
    }
    unlock(stripe);
}

bool rg_census_mark(uintptr_t address, uintptr_t flags) {
    uint64_t hash = hash_address(address);
    stripe_t *stripe = stripe_for(hash);
    lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot) *slot |= flags & RG_ENTRY_FLAGS;
    unlock(stripe);
    return slot != NULL;
}

uintptr_t rg_census_metadata_if_live(uintptr_t address, uintptr_t *flags) {
    uint64_t hash = hash_address(address);
    stripe_t *stripe = stripe_for(hash);
    uintptr_t metadata = 0;
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return 0;
    lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot) {
        metadata = rg_census_load_word((const void *)address);
        if (flags) *flags = *slot & RG_ENTRY_FLAGS;
    }
    unlock(stripe);
    return metadata;
}

extern void *swift_tryRetain(void *object);

bool rg_census_try_retain(uintptr_t address) {
    // Under the stripe lock the block cannot be freed, so its counts can be read; the retain
    // fails for an object that began deinitialising.
    uint64_t hash = hash_address(address);
    stripe_t *stripe = stripe_for(hash);
    bool retained = false;
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return false;
    lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot && (*slot & RG_ENTRY_BLOCK) == 0 && rg_census_load_word((const void *)address))
        retained = swift_tryRetain((void *)address) != NULL;
    unlock(stripe);
    return retained;
}

void rg_census_clear(void) {
    for (size_t index = 0; index < STRIPE_COUNT; index++) {
        stripe_t *stripe = &stripes[index];
        lock(stripe);
        unmap_slots(stripe->slots, stripe->log2_capacity);
        stripe->slots = NULL;
        stripe->log2_capacity = 0;
        __atomic_store_n(&stripe->count, 0, __ATOMIC_RELAXED);
        unlock(stripe);
    }
}

size_t rg_census_count(void) {
    size_t total = 0;
    for (size_t index = 0; index < STRIPE_COUNT; index++)
        total += __atomic_load_n(&stripes[index].count, __ATOMIC_RELAXED);
    return total;
}

size_t rg_census_table_bytes(void) {
    return atomic_load_explicit(&table_bytes, memory_order_relaxed);
}

size_t rg_census_stripe_count(void) { return STRIPE_COUNT; }

/// Entries are compacted into a buffer of the visitor's stripe; it lives in mmap'd memory so
/// the visit allocates nothing through malloc.
static uintptr_t *visit_buffer;
static size_t visit_capacity;
static _Atomic(int) visiting;

void rg_census_visit_stripe(size_t index,
                            void (*visitor)(void *context, const uintptr_t *entries, size_t count),
                            void *context) {
    if (index >= STRIPE_COUNT) return;
    int expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&visiting, &expected, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
        expected = 0;
        sched_yield();
    }
    stripe_t *stripe = &stripes[index];
    rg_census_enter_internal();
    lock(stripe);
    size_t capacity = stripe->slots ? (size_t)1 << stripe->log2_capacity : 0;
    if (capacity > visit_capacity) {
        if (visit_buffer) munmap(visit_buffer, visit_capacity * sizeof(uintptr_t));
        void *memory = mmap(NULL, capacity * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        visit_buffer = memory == MAP_FAILED ? NULL : memory;
        visit_capacity = visit_buffer ? capacity : 0;
    }
    size_t count = 0;
    if (visit_buffer)
        for (size_t slot = 0; slot < capacity; slot++)
            if (stripe->slots[slot]) visit_buffer[count++] = stripe->slots[slot];
    visitor(context, visit_buffer, count);
    unlock(stripe);
    rg_census_leave_internal();
    atomic_store_explicit(&visiting, 0, memory_order_release);
}

void rg_census_enter_internal(void) { rg_internal_depth++; }
void rg_census_leave_internal(void) { rg_internal_depth--; }

__attribute__((no_sanitize("thread", "address"))) void rg_census_copy(void *destination, const void *source,
                                                             size_t size) {
    const volatile unsigned char *from = source;
    unsigned char *to = destination;
    for (size_t index = 0; index < size; index++) to[index] = from[index];
}
