// Creation stacks: the frame-pointer walk and the stack depot's hot path (census_stacks.c has
// the rest and the design), inline so that the recording malloc runs them without a call. Not
// part of the module's header.
#ifndef RETAINGRAPH_CHEAPCENSUS_STACKS_H
#define RETAINGRAPH_CHEAPCENSUS_STACKS_H

#include "CHeapCensus.h"
#include "census_internal.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// Index slots: twice the ids, so probes stay short when the depot is full.
#define RG_STACK_INDEX_BITS (RG_SITE_BITS + 1)

/// One stored stack: where its frames start in the frame arena, how many, and its hash.
typedef struct {
    uint64_t hash;
    uint32_t offset;
    uint32_t depth;
} rg_stack_t;

/// Stacks by id (id 0 unused), their frames, and the index (hash → id, 0 for an empty slot).
/// All mapped at the first new stack; untouched pages cost nothing.
extern RG_HIDDEN rg_stack_t *rg_stacks;
extern RG_HIDDEN uintptr_t *rg_stack_frames;
extern RG_HIDDEN _Atomic(uint32_t) *_Atomic rg_stack_index;

/// The hash rg_walk_hashing gives the stack `frames[0..<depth]` (depth >= 1).
static inline uint64_t rg_stack_hash(const uintptr_t *frames, size_t depth) {
    uint64_t mixed = frames[0] * 0x9E3779B97F4A7C15ull;
    for (size_t index = 1; index < depth; index++)
        mixed = (mixed ^ frames[index]) * 0x9E3779B97F4A7C15ull;
    return mixed ^ (mixed >> 29) ^ depth;
}

extern void *__libc_stack_end;

/// The calling thread's stack end, once computed (0 before, 1 when it has none the walk trusts).
extern __thread uintptr_t rg_stack_end __attribute__((tls_model("initial-exec")));
/// The highest address a frame record may start at on the calling thread (a record below its
/// stack's end), once the end is computed; 0 before, or when it has none the walk trusts.
extern __thread uintptr_t rg_stack_last __attribute__((tls_model("initial-exec")));

/// The highest address of the stack of the calling thread, whose frame `frame` is, that a
/// frame walk may read below; 1 when there is none: on x86_64 the thread descriptor, which
/// glibc places at the top of every thread's stack mapping, or on the main thread (whose
/// descriptor is elsewhere) __libc_stack_end.
RG_HIDDEN uintptr_t rg_find_stack_end(uintptr_t frame);

static inline __attribute__((always_inline)) uintptr_t rg_stack_end_above(uintptr_t frame) {
    uintptr_t end = rg_stack_end;
    return __builtin_expect(end != 0, 1) ? end : rg_find_stack_end(frame);
}

/// The calling thread's memo of its recent walks: each entry holds every word a walk
/// (rg_walk_hashing) read, in the order it read them, and the id the stack got. A walk that
/// starts at the same frame record and would read the same words again makes the same decisions
/// (the stack's end is the thread's own) and finds the same stack: the recording malloc's common
/// case replays an entry (rg_memo_stack_id) instead of walking and hashing. Each further frame
/// costs 9 instructions (two words loaded and compared, and the loop's step) where a frame
/// walked, checked and hashed cost 13, and no hash is finished nor a recent stack looked up: 44
/// instructions where the walk and the recent-stacks check took 67, for an object allocated 3
/// frames deep (callgrind, census-cost.sh; RESULTS-HISTORY, Nov 29 2026).
/// RG_WALK_MEMO_SETS sets of two entries (the newest first), by the first two return addresses:
/// the first alone is the same for every object a class's allocating initializer makes (in a
/// debug build, or wherever it is not inlined), and an array of four such objects made at four
/// lines thrashed a set.
#define RG_WALK_MEMO_SET_BITS 3
#define RG_WALK_MEMO_SETS (1u << RG_WALK_MEMO_SET_BITS)
typedef struct {
    uintptr_t frame;     // the first frame record; 0 for an empty entry
    uintptr_t innermost; // its return address (the stack's first frame)
    uintptr_t tail;      // the word at the last record read (its saved frame pointer)
    uint32_t end;        // the offset in the entry past its last level (levels at `level`)
    uint32_t id;         // the stack's depot id
    uintptr_t level[RG_STACK_DEPTH - 1][2]; // each further record's address, its return address
} rg_walk_memo_t;
extern __thread rg_walk_memo_t rg_walk_memos[RG_WALK_MEMO_SETS][2]
    __attribute__((tls_model("initial-exec")));

/// The memo set of a walk whose first return address is `innermost` (the allocating call) and
/// whose second is `outer`.
static inline rg_walk_memo_t *rg_walk_memo_set(uintptr_t innermost, uintptr_t outer) {
    return rg_walk_memos[((innermost ^ outer) * 0x9E3779B97F4A7C15ull) >>
                         (64 - RG_WALK_MEMO_SET_BITS)];
}

/// Reads up to `capacity` return addresses from `frame`, a trusted frame record (the caller's
/// frame pointer, then the return address), outwards: `frames[0]` is frame's return address,
/// each next one is read only from a frame record that lies above the last one and below the
/// stack's end (so inside this thread's stack, mapped: the read cannot fault, whatever a
/// function built without frame pointers left in its frame pointer register). Returns how many
/// were stored (at least 1 when `capacity` is), and their hash in `*hash`. With `frames` NULL
/// (a constant: the function is always inlined) it only counts and hashes them; with `memo`
/// not NULL (also a constant) it writes there every word it read (all but `id`).
/// Calls nothing but rg_find_stack_end, once per thread; takes no lock.
static inline __attribute__((always_inline)) size_t
rg_walk_hashing(uintptr_t frame, uintptr_t *frames, size_t capacity, uint64_t *hash,
                rg_walk_memo_t *memo) {
    if (!capacity) return 0;
    uintptr_t end = rg_stack_end_above(frame);
    // The highest address a frame record may start at: a record (16 bytes) below the stack's
    // end; 0 (no record) when the thread has no end the walk trusts (1).
    uintptr_t last = end >= 16 ? end - 16 : 0;
    uintptr_t address = ((const uintptr_t *)frame)[1];
    if (frames) frames[0] = address;
    if (memo) {
        memo->frame = frame;
        memo->innermost = address;
    }
    uint64_t mixed = address * 0x9E3779B97F4A7C15ull;
    size_t depth = 1;
    // What a replay compares: the records read whole, and the last one's saved frame pointer.
    size_t levels = 0;
    uintptr_t tail = frame;
    while (depth < capacity) {
        uintptr_t next = ((const uintptr_t *)frame)[0];
        // Above this record and at least 16 bytes below the stack's end (`last` is computed
        // once, so that no garbage word can wrap around: two compares per frame). Frame
        // records are aligned and close together, but neither check adds safety, and each
        // costs instructions on every recorded allocation.
        if (next <= frame || next > last) break;
        address = ((const uintptr_t *)next)[1];
        if (memo) {
            memo->level[levels][0] = next;
            memo->level[levels][1] = address;
            levels++;
            tail = next;
        }
        if (!address) break;
        if (frames) frames[depth] = address;
        depth++;
        mixed = (mixed ^ address) * 0x9E3779B97F4A7C15ull;
        frame = next;
    }
    if (memo) {
        // The tail is read even when the walk stopped at its capacity (a word the walk did not
        // need: a replay that also compares it only misses more often), so that every replay
        // ends the same way. It lies in a record the walk checked: the read cannot fault.
        memo->end = (uint32_t)(offsetof(rg_walk_memo_t, level) + levels * sizeof memo->level[0]);
        memo->tail = ((const uintptr_t *)tail)[0];
    }
    *hash = mixed ^ (mixed >> 29) ^ depth;
    return depth;
}

/// Whether a walk from `frame`, whose return address is `innermost`, would read the words
/// `memo` holds; `next` is the record `frame` names, inside the stack, and `outer` its return
/// address. Each further word is read only once the words before it matched, so every record
/// read is one a walk of this thread checked (it lies inside the thread's stack). An entry
/// holds at least one level (rg_walk_memo_keep keeps no other).
static inline __attribute__((always_inline)) int
rg_memo_replays(const rg_walk_memo_t *memo, uintptr_t frame, uintptr_t innermost, uintptr_t next,
                uintptr_t outer) {
    if (memo->frame != frame || memo->innermost != innermost || memo->level[0][0] != next ||
        memo->level[0][1] != outer)
        return 0;
    frame = next;
    // The further levels by their offset in the entry, up to one kept as such: 4 instructions
    // fewer to set up than a pointer to the end computed from a count.
    for (size_t at = offsetof(rg_walk_memo_t, level[1]), end = memo->end; at < end;
         at += sizeof memo->level[0]) {
        const uintptr_t *level = (const uintptr_t *)((const char *)memo + at);
        next = ((const uintptr_t *)frame)[0];
        if (next != level[0] || ((const uintptr_t *)next)[1] != level[1]) return 0;
        frame = next;
    }
    return ((const uintptr_t *)frame)[0] == memo->tail;
}

/// The recording malloc's common case of rg_creation_stack_id: the walk from `frame` would read
/// what one of the thread's memo entries holds. Stores the entry's id in `*id` and returns 1;
/// returns 0 otherwise (rg_creation_stack_id then does the whole work). Calls nothing, so that
/// the malloc inlining it saves few registers. The first level is read as the walk reads it
/// (its record checked to lie inside the stack), for the set, and compared from registers: a
/// walk that reads no second return address (a thread whose stack's end is not known yet, or
/// not trusted) is left to rg_creation_stack_id.
static inline __attribute__((always_inline)) int rg_memo_stack_id(uintptr_t frame,
                                                                  uint32_t *id) {
    uintptr_t next = ((const uintptr_t *)frame)[0];
    if (__builtin_expect(next <= frame, 0)) return 0;
    if (__builtin_expect(next > rg_stack_last, 0)) return 0;
    uintptr_t innermost = ((const uintptr_t *)frame)[1];
    uintptr_t outer = ((const uintptr_t *)next)[1];
    const rg_walk_memo_t *memo = rg_walk_memo_set(innermost, outer);
    if (__builtin_expect(rg_memo_replays(memo, frame, innermost, next, outer), 1)) {
        *id = memo->id;
        return 1;
    }
    // The words are read again for the second entry rather than kept in registers across the
    // first replay (which then needs no saved register: 4 instructions on every hit).
    __asm__("" ::: "memory");
    next = ((const uintptr_t *)frame)[0];
    innermost = ((const uintptr_t *)frame)[1];
    outer = ((const uintptr_t *)next)[1];
    memo++;
    if (!rg_memo_replays(memo, frame, innermost, next, outer)) return 0;
    *id = memo->id;
    return 1;
}

/// Makes `walked` (with its id) the newest entry of its memo set (census_stacks.c).
RG_HIDDEN void rg_walk_memo_keep(const rg_walk_memo_t *walked);

static inline __attribute__((always_inline)) size_t
rg_walk_frames(uintptr_t frame, uintptr_t *frames, size_t capacity) {
    uint64_t hash;
    return rg_walk_hashing(frame, frames, capacity, &hash, NULL);
}

static inline size_t rg_stack_slot(uint64_t hash) {
    return (size_t)(hash >> (64 - RG_STACK_INDEX_BITS));
}

/// Whether stored stack `id` holds exactly these frames.
static inline int rg_stack_equals(uint32_t id, const uintptr_t *frames, size_t depth,
                                  uint64_t hash) {
    const rg_stack_t *stack = &rg_stacks[id];
    return stack->hash == hash && stack->depth == depth &&
           memcmp(&rg_stack_frames[stack->offset], frames, depth * sizeof(uintptr_t)) == 0;
}

/// The calling thread's recent stacks, a cache of RG_RECENT_SETS sets of two entries by hash
/// (the newest first): a loop that allocates at a few places finds each stack's id without
/// the depot, even when two of its stacks fall in the same set. An entry matches on the whole
/// 64-bit hash, the depth and the innermost address (two different stacks agreeing on all
/// three is a chance of about 2^-64 per lookup); the depot itself compares every frame.
#define RG_RECENT_SETS 16
typedef struct {
    uint64_t hash;
    uintptr_t innermost;
    uint32_t depth, id;
} rg_recent_stack_t;
extern __thread rg_recent_stack_t rg_recent_stacks[RG_RECENT_SETS][2]
    __attribute__((tls_model("initial-exec")));

/// The recent stacks' set of a stack's hash.
static inline rg_recent_stack_t *rg_recent_set(uint64_t hash) {
    return rg_recent_stacks[hash & (RG_RECENT_SETS - 1)];
}

/// Whether `entry` is the stack of this hash, depth and innermost frame.
static inline int rg_recent_is(const rg_recent_stack_t *entry, uint64_t hash, size_t depth,
                               uintptr_t innermost) {
    return entry->hash == hash && entry->depth == depth && entry->innermost == innermost;
}

/// The id of a stack not in the thread's recent ones: a lock-free probe of the index for a
/// known stack; a new one is added whole while the depot has room for whole stacks, else its
/// innermost frames (census_stacks.c says how many); 0 when not even its innermost frame fits.
RG_HIDDEN uint32_t rg_stack_lookup(const uintptr_t *frames, size_t depth, uint64_t hash);

/// Counts a stack a thread's recent stacks did not have (census_stack_stats.c), in a build
/// with RG_STACK_STATS defined.
RG_HIDDEN void rg_stack_stats_note(const uintptr_t *frames, size_t depth);

/// The depot id of the creation stack above `frame` (the frame record of the runtime's
/// allocating function: its return address is the allocating caller): from the thread's
/// recent stacks when the walk finds one, else rg_stack_lookup (which may keep the stack's
/// innermost frames only). 0 when not even the innermost frame found room. The walk is kept
/// in the thread's memo, for rg_memo_stack_id.
static inline __attribute__((always_inline)) uint32_t rg_creation_stack_id(uintptr_t frame) {
    uintptr_t frames[RG_STACK_DEPTH];
    rg_walk_memo_t walked;
    uint64_t hash;
    size_t depth = rg_walk_hashing(frame, frames, RG_STACK_DEPTH, &hash, &walked);
    rg_recent_stack_t *set = rg_recent_set(hash);
    if (__builtin_expect(rg_recent_is(&set[0], hash, depth, frames[0]), 1)) {
        walked.id = set[0].id;
    } else if (rg_recent_is(&set[1], hash, depth, frames[0])) {
        walked.id = set[1].id;
    } else {
        walked.id = rg_stack_lookup(frames, depth, hash);
        set[1] = set[0];
        set[0] = (rg_recent_stack_t){hash, frames[0], (uint32_t)depth, walked.id};
    }
    rg_walk_memo_keep(&walked);
    return walked.id;
}

#endif
