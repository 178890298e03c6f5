// The sampled mode's tables, behind one lock, in mmap'd memory (they are written from inside
// malloc and free, so nothing here calls either):
//   stacks   every distinct sampled stack once, in one array of words: depth, then frames
//   buckets  per (stack, kind, size, interval): samples taken and freed, the type once known
//   live     sampled block address → its bucket, until the block is freed
// and the filter's counts (census_sampling.c reads the bits without the lock).

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
void rg_samples_lock(void) { pthread_mutex_lock(&lock); }
void rg_samples_unlock(void) { pthread_mutex_unlock(&lock); }

/// An array in its own mapping, grown by doubling (mremap).
typedef struct {
    void *base;
    size_t bytes;
} region_t;

static _Atomic(size_t) mapped_bytes;

/// Makes room for `needed` bytes; 0 when memory is exhausted.
static int reserve(region_t *region, size_t needed) {
    if (needed <= region->bytes) return 1;
    size_t bytes = region->bytes ? region->bytes : 16384;
    while (bytes < needed) bytes *= 2;
    void *base = region->base ? mremap(region->base, region->bytes, bytes, MREMAP_MAYMOVE)
                              : mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return 0;
    atomic_fetch_add_explicit(&mapped_bytes, bytes - region->bytes, memory_order_relaxed);
    region->base = base;
    region->bytes = bytes;
    return 1;
}

/// An open-addressing map of non-zero 64-bit keys (linear probing, backward-shift deletion).
typedef struct {
    uint64_t key, value;
} slot_t;

typedef struct {
    region_t region;
    size_t count, mask;
    unsigned shift;
} map_t;

static inline size_t home(const map_t *map, uint64_t key) {
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> map->shift);
}

static slot_t *find(map_t *map, uint64_t key) {
    if (!map->count) return NULL;
    slot_t *slots = map->region.base;
    for (size_t at = home(map, key); slots[at].key; at = (at + 1) & map->mask)
        if (slots[at].key == key) return &slots[at];
    return NULL;
}

static int put(map_t *map, uint64_t key, uint64_t value) {
    size_t capacity = map->region.base ? map->mask + 1 : 0;
    if ((map->count + 1) * 4 > capacity * 3) {
        size_t grown = capacity ? capacity * 2 : 1024;
        region_t old = map->region;
        region_t fresh = {NULL, 0};
        if (!reserve(&fresh, grown * sizeof(slot_t))) return 0;
        map->region = fresh;
        map->mask = grown - 1;
        map->shift = 64 - (unsigned)__builtin_ctzll(grown);
        slot_t *slots = fresh.base;
        for (size_t index = 0; index < capacity; index++) {
            slot_t entry = ((slot_t *)old.base)[index];
            if (!entry.key) continue;
            size_t at = home(map, entry.key);
            while (slots[at].key) at = (at + 1) & map->mask;
            slots[at] = entry;
        }
        if (old.base) {
            munmap(old.base, old.bytes);
            atomic_fetch_sub_explicit(&mapped_bytes, old.bytes, memory_order_relaxed);
        }
    }
    slot_t *slots = map->region.base;
    size_t at = home(map, key);
    while (slots[at].key && slots[at].key != key) at = (at + 1) & map->mask;
    if (!slots[at].key) map->count++;
    slots[at] = (slot_t){key, value};
    return 1;
}

static void erase(map_t *map, slot_t *slot) {
    slot_t *slots = map->region.base;
    size_t hole = (size_t)(slot - slots);
    for (size_t next = (hole + 1) & map->mask; slots[next].key; next = (next + 1) & map->mask) {
        size_t at = home(map, slots[next].key);
        if (((next - at) & map->mask) >= ((next - hole) & map->mask)) {
            slots[hole] = slots[next];
            hole = next;
        }
    }
    slots[hole] = (slot_t){0, 0};
    map->count--;
}

static region_t stack_words, bucket_array;
static size_t word_count, bucket_count;
static map_t stacks, buckets, live;
static uint16_t filter_counts[65536];

static inline uint64_t mix(uint64_t hash, uint64_t value) {
    return (hash ^ value) * 0xFF51AFD7ED558CCDull;
}

/// The offset of the stack in the words, adding it if new; UINT64_MAX without memory.
static uint64_t intern_stack(const uintptr_t *frames, size_t depth) {
    uint64_t hash = depth;
    for (size_t index = 0; index < depth; index++) hash = mix(hash, frames[index]);
    for (;; hash = mix(hash, 1)) {
        slot_t *slot = find(&stacks, hash | 1);
        if (!slot) break;
        const uintptr_t *words = (const uintptr_t *)stack_words.base + slot->value;
        if (words[0] == depth && !memcmp(words + 1, frames, depth * sizeof(uintptr_t)))
            return slot->value;
    }
    if (!reserve(&stack_words, (word_count + depth + 1) * sizeof(uintptr_t))) return UINT64_MAX;
    uint64_t offset = word_count;
    uintptr_t *words = (uintptr_t *)stack_words.base + offset;
    words[0] = depth;
    memcpy(words + 1, frames, depth * sizeof(uintptr_t));
    if (!put(&stacks, hash | 1, offset)) return UINT64_MAX;
    word_count += depth + 1;
    return offset;
}

/// The bucket of (stack, kind, size, interval), adding it if new; NULL without memory.
static rg_sample_bucket_t *intern_bucket(uint64_t stack, int kind, size_t size, size_t interval) {
    uint64_t hash = mix(mix(mix(stack, (uint64_t)kind), size), interval);
    for (;; hash = mix(hash, 1)) {
        slot_t *slot = find(&buckets, hash | 1);
        if (!slot) break;
        rg_sample_bucket_t *bucket = (rg_sample_bucket_t *)bucket_array.base + slot->value;
        if (bucket->stack == stack && bucket->kind == (uint32_t)kind && bucket->size == size &&
            bucket->interval == interval)
            return bucket;
    }
    if (stack > UINT32_MAX ||
        !reserve(&bucket_array, (bucket_count + 1) * sizeof(rg_sample_bucket_t)) ||
        !put(&buckets, hash | 1, bucket_count))
        return NULL;
    rg_sample_bucket_t *bucket = (rg_sample_bucket_t *)bucket_array.base + bucket_count++;
    *bucket = (rg_sample_bucket_t){(uint32_t)stack, (uint32_t)kind, size, 0, interval, 0, 0};
    return bucket;
}

static inline unsigned filter_bit(uintptr_t block) {
    return (unsigned)((block >> 4) & 0xffff) ^ 0x8000;
}

/// Reads the type of an object bucket from a live block of it, once.
static inline void learn_type(rg_sample_bucket_t *bucket, uintptr_t block) {
    if (bucket->kind == RG_SAMPLE_OBJECT && !bucket->metadata)
        bucket->metadata = rg_census_load_word((const void *)block);
}

void rg_samples_add(uintptr_t block, size_t size, int kind, const uintptr_t *frames,
                    size_t depth, size_t interval) {
    uint64_t stack = intern_stack(frames, depth);
    rg_sample_bucket_t *bucket =
        stack == UINT64_MAX ? NULL : intern_bucket(stack, kind, size, interval);
    if (!bucket) return;
    size_t index = (size_t)(bucket - (rg_sample_bucket_t *)bucket_array.base);
    if (!atomic_load_explicit(&rg_samples_in_use, memory_order_relaxed)) rg_samples_now_in_use();
    slot_t *stale = find(&live, block);
    if (stale) rg_samples_remove(block); // freed unseen (cannot happen through free)
    if (!put(&live, block, index)) return;
    bucket = (rg_sample_bucket_t *)bucket_array.base + index;
    bucket->allocations++;
    unsigned bit = filter_bit(block);
    if (filter_counts[bit] != UINT16_MAX && filter_counts[bit]++ == 0)
        atomic_fetch_or_explicit(&rg_sample_filter[bit >> 3], (uint8_t)(1u << (bit & 7)),
                                 memory_order_release);
}

int rg_samples_remove(uintptr_t block) {
    slot_t *slot = find(&live, block);
    if (!slot) return 0;
    rg_sample_bucket_t *bucket = (rg_sample_bucket_t *)bucket_array.base + slot->value;
    learn_type(bucket, block); // still intact: free has not reached glibc yet
    bucket->frees++;
    erase(&live, slot);
    unsigned bit = filter_bit(block);
    if (filter_counts[bit] != UINT16_MAX && --filter_counts[bit] == 0)
        atomic_fetch_and_explicit(&rg_sample_filter[bit >> 3], (uint8_t)~(1u << (bit & 7)),
                                  memory_order_relaxed);
    return 1;
}

bool rg_sampling_read(rg_sample_bucket_t *out_buckets, size_t bucket_capacity,
                      size_t *out_bucket_count, uintptr_t *words, size_t word_capacity,
                      size_t *out_word_count) {
    rg_samples_lock();
    // Live blocks cannot be freed meanwhile (their free waits for the lock): their headers
    // can be read.
    const slot_t *slots = live.region.base;
    for (size_t index = 0; live.count && index <= live.mask; index++)
        if (slots[index].key)
            learn_type((rg_sample_bucket_t *)bucket_array.base + slots[index].value,
                       (uintptr_t)slots[index].key);
    *out_bucket_count = bucket_count;
    *out_word_count = word_count;
    bool fits = out_buckets && words && bucket_capacity >= bucket_count &&
                word_capacity >= word_count;
    if (fits) {
        if (bucket_count) memcpy(out_buckets, bucket_array.base, bucket_count * sizeof(*out_buckets));
        if (word_count) memcpy(words, stack_words.base, word_count * sizeof(uintptr_t));
    }
    rg_samples_unlock();
    return fits;
}

size_t rg_sampling_live_count(void) {
    rg_samples_lock();
    size_t count = live.count;
    rg_samples_unlock();
    return count;
}

size_t rg_sampling_table_bytes(void) {
    return atomic_load_explicit(&mapped_bytes, memory_order_relaxed);
}
