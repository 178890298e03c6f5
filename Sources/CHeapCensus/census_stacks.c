// The stack depot: where each recorded block was made, as its creation stack (up to
// RG_STACK_DEPTH return addresses read from frame pointers inside malloc, no unwinder), each
// distinct stack stored once (as the sanitizers' stack depot), under an id that rides in the
// top bits of the block's table entry (RG_SITE_BITS: 17 on x86_64, whose user addresses lie
// below 2^47; 16 elsewhere): no memory per block.
//
// Which frames: the allocating function (swift_allocObject, or swift_task_create_common for a
// task) returns into its caller, which is the allocating initializer (`__allocating_init`) in a
// debug build, the user's own function when the initializer was inlined (release), or the
// function that made a closure context or a box; then that function's caller, and so on
// outwards. A reader symbolicates them only when asked (HeapCensus, through StackTraces), and
// picks the frame a user would change (CreationSite.userFrame).
//
// Bounds: a long process makes more distinct 16-frame stacks than 16 bits number, and keeps
// making them (the project's own test suite, its Swift Testing process: 103,063 in 19 minutes
// on a loaded machine, about 10,000 every 100 s and still rising at the end; each new because
// of frames far from the allocation: recursion depths, call paths), while their innermost
// frames repeat more (53,356 distinct 8-frame prefixes, 16,183 of 4, 7,154 of 2, 974 of 1;
// census_stack_stats.c measures them). So the ids come in tiers (`tiers` below): stacks are
// kept whole while 3/4 of the ids are free; past that a new stack keeps its innermost 8 frames
// (the same id as every other stack that shares them, once stored), past 7/8 its innermost 4,
// past 15/16 its innermost 2, then 1. Every recorded block keeps at least the frame that
// called the allocator, unless a process makes more distinct callers of it than the last
// tier's ids (RG_SITE_LIMIT / 16): rg_census_stacks_dropped counts those lookups,
// rg_census_stacks_shortened the others past the whole-stack tier. Memory: at most the tiers'
// frames (13.375 words per id: 14.0 MB on x86_64, 7.0 MB elsewhere), 16 bytes of header and 8
// of index per id (3.0 MB, 1.5 MB), all mapped at the first stack and touched as used.
//
// Reading past the first address means trusting each caller's frame record, which a function
// built without frame pointers does not have (its frame pointer register holds any value):
// the walk stops at the first record that does not lie above the last one and inside this
// thread's stack, so no read faults. On x86_64 the stack's top is the thread descriptor (glibc
// places it at the top of every thread's stack mapping) or, on the main thread,
// __libc_stack_end; other architectures keep the first address only (the walk trusts no
// record there).
//
// Called from inside malloc: never calls malloc, takes no lock the loader or a signal handler
// could hold, and does bounded work (a walk of at most RG_STACK_DEPTH records, hashing as it
// goes). Each thread remembers its recent stacks by hash (census_stacks.h), with the id the
// depot gave them (a shortened stack's); other lookups are lock-free probes of the depot's
// index (one per tier tried), comparing every frame; a new stack takes a spin lock for a copy
// of its frames (and, once, the mmap of the tables). Ids are never reused, so a reader may copy
// a stack without a lock.

#define _GNU_SOURCE
#include "census_stacks.h"

#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>

/// The tiers: a new stack is stored cut to `depth` frames while the ids taken are fewer than
/// `ids` (the ids of a tier are those from the previous tier's bound to its own).
static const struct {
    uint32_t depth, ids;
} tiers[] = {
    {RG_STACK_DEPTH, RG_SITE_LIMIT / 4 * 3},
    {8, RG_SITE_LIMIT / 8 * 7},
    {4, RG_SITE_LIMIT / 16 * 15},
    {2, RG_SITE_LIMIT},
    {1, RG_SITE_LIMIT},
};
#define RG_TIERS (sizeof tiers / sizeof tiers[0])

/// Room for every tier's ids at its depth: frames are appended, never moved.
#define RG_FRAME_WORDS                                                                         \
    ((size_t)RG_SITE_LIMIT / 4 * 3 * RG_STACK_DEPTH + (size_t)RG_SITE_LIMIT / 8 * 8 +          \
     (size_t)RG_SITE_LIMIT / 16 * 4 + (size_t)RG_SITE_LIMIT / 16 * 2)

RG_HIDDEN rg_stack_t *rg_stacks;
RG_HIDDEN uintptr_t *rg_stack_frames;
RG_HIDDEN _Atomic(uint32_t) *_Atomic rg_stack_index;
static _Atomic(uint32_t) stack_count;
static size_t frame_words; // under the depot lock
static _Atomic(size_t) dropped, shortened;
static _Atomic(int) depot_lock;

__thread uintptr_t rg_stack_end __attribute__((tls_model("initial-exec")));
__thread uintptr_t rg_stack_last __attribute__((tls_model("initial-exec")));
__thread rg_recent_stack_t rg_recent_stacks[RG_RECENT_SETS][2]
    __attribute__((tls_model("initial-exec")));
__thread rg_walk_memo_t rg_walk_memos[RG_WALK_MEMO_SETS][2]
    __attribute__((tls_model("initial-exec")));

void rg_walk_memo_keep(const rg_walk_memo_t *walked) {
    // A walk that read no second return address is never replayed (rg_memo_stack_id).
    if (walked->end == offsetof(rg_walk_memo_t, level)) return;
    rg_walk_memo_t *set = rg_walk_memo_set(walked->innermost, walked->level[0][1]);
    // Each entry is emptied (frame 0) before it changes and named last, so that a signal
    // handler allocating between these stores never replays an entry half written.
    uintptr_t older = set[0].frame;
    set[0].frame = 0;
    set[1].frame = 0;
    atomic_signal_fence(memory_order_seq_cst);
    set[1] = set[0];
    set[0] = *walked;
    set[0].frame = 0;
    atomic_signal_fence(memory_order_seq_cst);
    set[1].frame = older;
    set[0].frame = walked->frame;
}

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
    rg_stack_last = end >= 16 ? end - 16 : 0;
    rg_stack_end = end;
    return end;
}

size_t rg_walk_stack(uintptr_t frame, uintptr_t *frames, size_t capacity) {
    return rg_walk_frames(frame, frames, capacity);
}

uint32_t rg_creation_stack(uintptr_t frame) { return rg_creation_stack_id(frame); }

static void lock_depot(void) {
    int expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&depot_lock, &expected, 1,
                                                  memory_order_acquire, memory_order_relaxed)) {
        expected = 0;
        sched_yield();
    }
}

static void unlock_depot(void) { atomic_store_explicit(&depot_lock, 0, memory_order_release); }

static void *map(size_t bytes) {
    void *memory =
        mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return memory == MAP_FAILED ? NULL : memory;
}

static const size_t stacks_bytes = RG_SITE_LIMIT * sizeof(rg_stack_t);
static const size_t frames_bytes = RG_FRAME_WORDS * sizeof(uintptr_t);
static const size_t index_bytes = ((size_t)1 << RG_STACK_INDEX_BITS) * sizeof(uint32_t);

/// Maps the tables once (under the depot lock); false when memory is exhausted.
static int map_depot(void) {
    if (atomic_load_explicit(&rg_stack_index, memory_order_relaxed)) return 1;
    void *stacks = map(stacks_bytes), *frames = map(frames_bytes), *index = map(index_bytes);
    if (!stacks || !frames || !index) {
        if (stacks) munmap(stacks, stacks_bytes);
        if (frames) munmap(frames, frames_bytes);
        if (index) munmap(index, index_bytes);
        return 0;
    }
    rg_stacks = stacks;
    rg_stack_frames = frames;
    atomic_store_explicit(&rg_stack_index, (_Atomic(uint32_t) *)index, memory_order_release);
    return 1;
}

/// Probes for the stack from its home slot; returns its id, or 0 with `*slot` the empty slot
/// where it would go.
static uint32_t find_stack(_Atomic(uint32_t) *index, const uintptr_t *frames, size_t depth,
                           uint64_t hash, size_t *slot) {
    const size_t mask = ((size_t)1 << RG_STACK_INDEX_BITS) - 1;
    for (size_t at = rg_stack_slot(hash);; at = (at + 1) & mask) {
        uint32_t id = atomic_load_explicit(&index[at], memory_order_acquire);
        if (!id) {
            *slot = at;
            return 0;
        }
        if (rg_stack_equals(id, frames, depth, hash)) return id;
    }
}

/// Adds a stack the lookup did not find, under the depot's spin lock, if its id would be
/// below `bound`; its id (another thread's, if it added the same stack meanwhile), or 0.
static uint32_t add_stack(const uintptr_t *frames, size_t depth, uint64_t hash,
                          uint32_t bound) {
    size_t slot;
    uint32_t id = 0;
    lock_depot();
    if (map_depot()) {
        _Atomic(uint32_t) *index = atomic_load_explicit(&rg_stack_index, memory_order_relaxed);
        id = find_stack(index, frames, depth, hash, &slot);
        uint32_t count = atomic_load_explicit(&stack_count, memory_order_relaxed);
        if (!id && count + 1 < bound && frame_words + depth <= RG_FRAME_WORDS) {
            id = count + 1;
            memcpy(&rg_stack_frames[frame_words], frames, depth * sizeof(uintptr_t));
            rg_stacks[id] = (rg_stack_t){hash, (uint32_t)frame_words, (uint32_t)depth};
            frame_words += depth;
            // Readers check the id against the count (acquire) before reading the stack.
            atomic_store_explicit(&stack_count, id, memory_order_release);
            atomic_store_explicit(&index[slot], id, memory_order_release);
        }
    }
    unlock_depot();
    return id;
}

/// A stack the index does not have at full depth: added whole while the whole stacks' ids
/// last, else the first tier whose cut of it is stored already or still has ids. Apart from
/// rg_stack_lookup, which probes for a known stack, so that a probe costs no more than that.
__attribute__((noinline)) static uint32_t add_new_stack(const uintptr_t *frames, size_t depth,
                                                        uint64_t hash) {
    size_t probed = depth; // the depth last probed for (the caller probed the whole stack)
    for (size_t tier = 0; tier < RG_TIERS; tier++) {
        size_t cut = depth < tiers[tier].depth ? depth : tiers[tier].depth;
        uint64_t cut_hash = cut == depth ? hash : rg_stack_hash(frames, cut);
        _Atomic(uint32_t) *index = atomic_load_explicit(&rg_stack_index, memory_order_acquire);
        size_t slot;
        uint32_t id = 0;
        if (cut != probed && index) id = find_stack(index, frames, cut, cut_hash, &slot);
        probed = cut;
        if (!id &&
            atomic_load_explicit(&stack_count, memory_order_relaxed) + 1 < tiers[tier].ids)
            id = add_stack(frames, cut, cut_hash, tiers[tier].ids);
        if (id) {
            if (cut < depth) atomic_fetch_add_explicit(&shortened, 1, memory_order_relaxed);
            return id;
        }
    }
    atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
    return 0;
}

uint32_t rg_stack_lookup(const uintptr_t *frames, size_t depth, uint64_t hash) {
    if (!depth || !frames[0]) return 0;
#ifdef RG_STACK_STATS
    rg_stack_stats_note(frames, depth);
#endif
    _Atomic(uint32_t) *index = atomic_load_explicit(&rg_stack_index, memory_order_acquire);
    size_t slot;
    if (__builtin_expect(index != NULL, 1)) {
        uint32_t id = find_stack(index, frames, depth, hash, &slot);
        if (id) return id;
    }
    return add_new_stack(frames, depth, hash);
}

size_t rg_census_stack(uint32_t id, uintptr_t *frames, size_t capacity) {
    if (id == 0 || id > atomic_load_explicit(&stack_count, memory_order_acquire)) return 0;
    const rg_stack_t *stack = &rg_stacks[id];
    size_t depth = stack->depth < capacity ? stack->depth : capacity;
    memcpy(frames, &rg_stack_frames[stack->offset], depth * sizeof(uintptr_t));
    return depth;
}

size_t rg_census_stack_count(void) {
    return atomic_load_explicit(&stack_count, memory_order_relaxed);
}

size_t rg_census_stacks_dropped(void) {
    return atomic_load_explicit(&dropped, memory_order_relaxed);
}

size_t rg_census_stacks_shortened(void) {
    return atomic_load_explicit(&shortened, memory_order_relaxed);
}

size_t rg_census_stack_bytes(void) {
    if (!atomic_load_explicit(&rg_stack_index, memory_order_acquire)) return 0;
    // The index's pages are touched at random (all of them once a few thousand stacks exist);
    // the stacks' and the frames' pages in order.
    size_t count = atomic_load_explicit(&stack_count, memory_order_relaxed);
    lock_depot();
    size_t words = frame_words;
    unlock_depot();
    size_t stack_pages = ((count + 1) * sizeof(rg_stack_t) + 4095) / 4096;
    size_t frame_pages = (words * sizeof(uintptr_t) + 4095) / 4096;
    size_t index_pages = count < index_bytes / 4096 ? count : index_bytes / 4096;
    return (stack_pages + frame_pages + index_pages) * 4096;
}
