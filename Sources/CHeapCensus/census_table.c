// The census table (layout and hot paths in census_table.h): its slow paths, and the census's
// reads of it.
//
// It is called from inside malloc and free, so it never calls them: its arrays come from mmap.

#define _GNU_SOURCE
#include "census_table.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#define INITIAL_LOG2_CAPACITY 9

RG_HIDDEN const uintptr_t rg_no_slots[2];
RG_HIDDEN rg_stripe_t rg_stripes[RG_STRIPE_COUNT] = {
    [0 ... RG_STRIPE_COUNT - 1] = {.shift = 63, .mask = 1, .slots = (uintptr_t *)rg_no_slots},
};
RG_HIDDEN __thread rg_stripe_t *rg_visited_stripe;
static _Atomic(size_t) table_bytes;
__thread int rg_internal_depth __attribute__((tls_model("initial-exec")));
RG_HIDDEN _Atomic(int) rg_table_in_use;

int rg_stripe_lock_slow(rg_stripe_t *stripe) {
    if (rg_visited_stripe == stripe) return 0;
    unsigned spins = 0;
    for (;;) {
        int expected = 0;
        if (atomic_load_explicit(&stripe->lock, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&stripe->lock, &expected, 1,
                                                  memory_order_acquire, memory_order_relaxed))
            return 1;
        if (++spins > 64) {
            sched_yield();
            spins = 0;
        }
    }
}

static uintptr_t *map_slots(size_t capacity) {
    void *memory = mmap(NULL, capacity * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return NULL;
    atomic_fetch_add_explicit(&table_bytes, capacity * sizeof(uintptr_t), memory_order_relaxed);
    return memory;
}

static void unmap_slots(uintptr_t *slots, size_t capacity) {
    if (!capacity) return;
    munmap(slots, capacity * sizeof(uintptr_t));
    atomic_fetch_sub_explicit(&table_bytes, capacity * sizeof(uintptr_t), memory_order_relaxed);
}

static inline size_t capacity_of(const rg_stripe_t *stripe) {
    return stripe->slots != rg_no_slots ? stripe->mask + 1 : 0;
}

int rg_stripe_grow(rg_stripe_t *stripe) {
    if (!atomic_load_explicit(&rg_table_in_use, memory_order_relaxed)) {
        // Before the first entry anywhere: from now on free must look at the table.
        atomic_store_explicit(&rg_table_in_use, 1, memory_order_relaxed);
        rg_table_now_in_use();
    }
    size_t old_capacity = capacity_of(stripe);
    unsigned next = old_capacity ? 64 - stripe->shift + 1 : INITIAL_LOG2_CAPACITY;
    size_t capacity = (size_t)1 << next;
    uintptr_t *slots = map_slots(capacity);
    if (!slots) return 0;
    unsigned shift = 64 - next;
    if (old_capacity) {
        for (size_t index = 0; index < old_capacity; index++) {
            uintptr_t entry = stripe->slots[index];
            if (!entry) continue;
            size_t slot = rg_home_slot(rg_hash(entry & RG_ENTRY_ADDRESS_MASK), shift);
            while (slots[slot]) slot = (slot + 1) & (capacity - 1);
            slots[slot] = entry;
        }
        unmap_slots(stripe->slots, old_capacity);
    }
    stripe->slots = slots;
    stripe->shift = shift;
    stripe->mask = capacity - 1;
    stripe->limit = capacity / 4 * 3;
    return 1;
}

void rg_table_insert(uintptr_t address, uintptr_t flags) { rg_table_insert_inline(address, flags); }

void rg_table_remove(uintptr_t address) { rg_table_remove_inline(address); }

void rg_stripe_delete_at_and_unlock(rg_stripe_t *stripe, size_t hole) {
    rg_stripe_delete_at(stripe, hole);
    rg_stripe_unlock(stripe, 1);
}

/// The slot holding `address` in its stripe's table, or NULL; call with the stripe locked.
static inline uintptr_t *find_slot(rg_stripe_t *stripe, uint64_t hash, uintptr_t address) {
    for (size_t index = rg_home_slot(hash, stripe->shift); stripe->slots[index];
         index = (index + 1) & stripe->mask)
        if ((stripe->slots[index] & RG_ENTRY_ADDRESS_MASK) == address)
            return &stripe->slots[index];
    return NULL;
}

bool rg_census_mark(uintptr_t address, uintptr_t flags) {
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    int taken = rg_stripe_lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot) *slot |= flags & RG_ENTRY_FLAGS;
    rg_stripe_unlock(stripe, taken);
    return slot != NULL;
}

uintptr_t rg_census_metadata_if_live(uintptr_t address, uintptr_t *flags) {
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    uintptr_t metadata = 0;
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return 0;
    int taken = rg_stripe_lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot) {
        metadata = rg_census_load_word((const void *)address);
        if (flags) *flags = *slot & RG_ENTRY_FLAGS;
    }
    rg_stripe_unlock(stripe, taken);
    return metadata;
}

uint32_t rg_census_site_if_live(uintptr_t address) {
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return 0;
    int taken = rg_stripe_lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    uint32_t site = slot ? (uint32_t)(*slot >> RG_ENTRY_SITE_SHIFT) : 0;
    rg_stripe_unlock(stripe, taken);
    return site;
}

extern void *swift_tryRetain(void *object);
extern size_t swift_retainCount(void *object);
extern bool swift_isDeallocating(void *object);

bool rg_census_try_retain(uintptr_t address) {
    // Under the stripe lock the block cannot be freed, so its counts can be read; the retain
    // fails for an object that began deinitialising.
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    bool retained = false;
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return false;
    int taken = rg_stripe_lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot && (*slot & RG_ENTRY_BLOCK) == 0 && rg_census_load_word((const void *)address))
        retained = swift_tryRetain((void *)address) != NULL;
    rg_stripe_unlock(stripe, taken);
    return retained;
}

extern size_t swift_unownedRetainCount(void *object);
extern size_t swift_weakRetainCount(void *object);

bool rg_census_counts_if_live(uintptr_t address, size_t *strong, size_t *unowned, size_t *weak) {
    // Under the stripe lock the block cannot be freed, so its counts can be read.
    uint64_t hash = rg_hash(address);
    rg_stripe_t *stripe = rg_stripe_for(hash);
    bool live = false;
    if (__atomic_load_n(&stripe->count, __ATOMIC_RELAXED) == 0) return false;
    int taken = rg_stripe_lock(stripe);
    uintptr_t *slot = find_slot(stripe, hash, address);
    if (slot && rg_census_load_word((const void *)address)) {
        if (*slot & RG_ENTRY_BLOCK) {
            // A C block has one count, of strong references; nothing holds it weakly.
            size_t end;
            *strong = rg_census_block_info((const void *)address, &end);
            *unowned = 0;
            *weak = 0;
            live = true;
        } else if (!swift_isDeallocating((void *)address)) {
            // The unowned count includes one for the strong references as a whole, and the
            // weak count (once a side table exists) one for the unowned ones: the rest are
            // references.
            size_t unowned_count = swift_unownedRetainCount((void *)address);
            size_t weak_count = swift_weakRetainCount((void *)address);
            *strong = swift_retainCount((void *)address);
            *unowned = unowned_count > 0 ? unowned_count - 1 : 0;
            *weak = weak_count > 0 ? weak_count - 1 : 0;
            live = true;
        }
    }
    rg_stripe_unlock(stripe, taken);
    return live;
}

void rg_census_clear(void) {
    for (size_t index = 0; index < RG_STRIPE_COUNT; index++) {
        rg_stripe_t *stripe = &rg_stripes[index];
        int taken = rg_stripe_lock(stripe);
        unmap_slots(stripe->slots, capacity_of(stripe));
        stripe->slots = (uintptr_t *)rg_no_slots;
        stripe->shift = 63;
        stripe->mask = 1;
        stripe->limit = 0;
        __atomic_store_n(&stripe->count, 0, __ATOMIC_RELAXED);
        rg_stripe_unlock(stripe, taken);
    }
}

size_t rg_census_count(void) {
    size_t total = 0;
    for (size_t index = 0; index < RG_STRIPE_COUNT; index++)
        total += __atomic_load_n(&rg_stripes[index].count, __ATOMIC_RELAXED);
    return total;
}

size_t rg_census_table_bytes(void) {
    return atomic_load_explicit(&table_bytes, memory_order_relaxed);
}

size_t rg_census_stripe_count(void) { return RG_STRIPE_COUNT; }

/// Entries are compacted into a buffer of the visitor's stripe; it lives in mmap'd memory so
/// the visit allocates nothing through malloc.
static uintptr_t *visit_buffer;
static size_t visit_capacity;
static _Atomic(int) visiting;

void rg_census_visit_stripe(size_t index,
                            void (*visitor)(void *context, const uintptr_t *entries, size_t count),
                            void *context) {
    if (index >= RG_STRIPE_COUNT) return;
    int expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&visiting, &expected, 1, memory_order_acquire,
                                                  memory_order_relaxed)) {
        expected = 0;
        sched_yield();
    }
    rg_stripe_t *stripe = &rg_stripes[index];
    rg_census_enter_internal();
    int taken = rg_stripe_lock(stripe);
    rg_visited_stripe = stripe;
    size_t capacity = capacity_of(stripe);
    if (capacity > visit_capacity) {
        if (visit_buffer) munmap(visit_buffer, visit_capacity * sizeof(uintptr_t));
        void *memory = mmap(NULL, capacity * sizeof(uintptr_t), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        visit_buffer = memory == MAP_FAILED ? NULL : memory;
        visit_capacity = visit_buffer ? capacity : 0;
    }
    size_t count = 0;
    // Entries are handed out as address | flags: the site bits stay here.
    if (visit_buffer)
        for (size_t slot = 0; slot < capacity; slot++)
            if (stripe->slots[slot])
                visit_buffer[count++] =
                    stripe->slots[slot] & (RG_ENTRY_ADDRESS_MASK | RG_ENTRY_FLAGS);
    visitor(context, visit_buffer, count);
    rg_visited_stripe = NULL;
    rg_stripe_unlock(stripe, taken);
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
