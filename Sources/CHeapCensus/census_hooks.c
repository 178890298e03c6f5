// The interposed allocation entry points: only the hooks live here (which blocks are Swift
// objects is census_callers.c's business, the table census_table.h's, sampling
// census_sampling.c's).
//
// Normal builds define malloc, free and posix_memalign in the executable (SwiftPM links this
// target's object file into it; the linker exports the definitions because shared libraries
// reference them), forwarding to glibc's own entry points. While recording, malloc keeps a
// block when its callers say it is a Swift object or task (census_callers.c), with its creation
// stack (census_stacks.c); while sampling, it counts bytes down and samples the allocation that
// crosses zero. This sees the standard library's internal allocations too, which interposing
// swift_allocObject alone cannot.
//
// Under a sanitizer the sanitizer owns the whole allocator family and an interposed malloc is
// fatal, so these definitions step aside: swift_allocObject is interposed instead (weakly, so
// a statically linked runtime keeps its own; it misses objects libswiftCore allocates
// internally) and the sanitizer's free hook forgets blocks. Sampling is not offered there.
//
// Creation traces of chosen types: in malloc mode the recording path calls the creation hook
// for objects (it knows the block is one, and its size, but not yet its type: the runtime
// writes the header after malloc returns). Normal builds do not interpose swift_allocObject at
// all: every object allocation would pay for a wrapper whose only job is tracing.

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"
#include "census_stacks.h"
#include "census_table.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static pthread_mutex_t switching = PTHREAD_MUTEX_INITIALIZER;
void rg_lock_switches(void) { pthread_mutex_lock(&switching); }
void rg_unlock_switches(void) { pthread_mutex_unlock(&switching); }

#ifdef RG_UNDER_SANITIZER

// MARK: Sanitizer mode: swift_allocObject and the sanitizer's hooks

extern int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void *, size_t), void (*free_hook)(const volatile void *))
    __attribute__((weak));

typedef void *(*alloc_object_fn)(const void *, size_t, size_t);
static void *resolve_alloc_object(const void *metadata, size_t size, size_t alignment_mask);
/// The runtime's swift_allocObject; until the first call, a resolver that finds it.
static _Atomic(alloc_object_fn) next_alloc_object = resolve_alloc_object;

static void *resolve_alloc_object(const void *metadata, size_t size, size_t alignment_mask) {
    alloc_object_fn next = (alloc_object_fn)dlsym(RTLD_NEXT, "swift_allocObject");
    if (!next) abort(); // no Swift runtime below us: nothing can allocate an object
    atomic_store_explicit(&next_alloc_object, next, memory_order_relaxed);
    return next(metadata, size, alignment_mask);
}

/// swift_allocObject when something must follow the allocation. Kept apart (noinline) so that
/// the common case stays a bare tail call. `frame` is swift_allocObject's frame record.
__attribute__((noinline)) static void *allocate_object_and_note(const void *metadata,
                                                                size_t size,
                                                                size_t alignment_mask,
                                                                uintptr_t frame) {
    alloc_object_fn next = atomic_load_explicit(&next_alloc_object, memory_order_relaxed);
    void *object = next(metadata, size, alignment_mask);
    if (atomic_load_explicit(&rg_recording, memory_order_relaxed) && !rg_internal_depth) {
        uintptr_t stack = rg_creation_stack_id(frame);
        rg_table_insert((uintptr_t)object, RG_ENTRY_OBJECT | stack << RG_ENTRY_SITE_SHIFT);
    }
    if (atomic_load_explicit(&rg_tracing, memory_order_relaxed))
        rg_note_creation(object, metadata, size, frame);
    return object;
}

__attribute__((weak, noinline)) void *swift_allocObject(const void *metadata, size_t size,
                                                        size_t alignment_mask) {
    if (atomic_load_explicit(&rg_recording, memory_order_relaxed) ||
        atomic_load_explicit(&rg_tracing, memory_order_relaxed))
        return allocate_object_and_note(metadata, size, alignment_mask,
                                        (uintptr_t)__builtin_frame_address(0));
    alloc_object_fn next = atomic_load_explicit(&next_alloc_object, memory_order_relaxed);
    return next(metadata, size, alignment_mask);
}

void rg_table_now_in_use(void) {}
void rg_switch_malloc(void) {}
void rg_samples_now_in_use(void) {
    atomic_store_explicit(&rg_samples_in_use, 1, memory_order_release);
}

static void on_sanitizer_free(const volatile void *block) {
    if (block) rg_table_remove((uintptr_t)block);
}

static void on_sanitizer_malloc(const volatile void *block, size_t size) {
    (void)block;
    (void)size;
}

__attribute__((constructor)) static void install_sanitizer_hooks(void) {
    // Both hooks are required: with a NULL malloc hook the sanitizer installs nothing (returns
    // 0), frees were never forgotten, and a scan read blocks the sanitizer had unmapped.
    if (__sanitizer_install_malloc_and_free_hooks)
        __sanitizer_install_malloc_and_free_hooks(on_sanitizer_malloc, on_sanitizer_free);
}

#else

// MARK: Normal mode: malloc, posix_memalign and free

extern void *__libc_malloc(size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *block);

/// glibc's entry points, called through these words (resolved by the dynamic linker when it
/// loads the executable, before any code runs): no PLT hop.
RG_HIDDEN void *(*const volatile rg_next_malloc)(size_t) = __libc_malloc;
RG_HIDDEN void (*const volatile rg_next_free)(void *) = __libc_free;

/// `block`, which the optimizer can no longer tell apart from any other pointer. The slow paths
/// below return what they were given through it, so that rg_malloc_recording reaches them by a
/// tail jump: when clang knows a callee returns its argument, the caller keeps the argument in
/// a saved register across the call instead (4 instructions on every recorded allocation, the
/// register's save and restore included).
static inline __attribute__((always_inline)) void *opaque(void *block) {
    __asm__("" : "+r"(block));
    return block;
}

/// Records `block`, a new object whose allocating function's frame record is `object_frame`,
/// with its creation stack; returns it. The header word is zeroed first, so a scan that reads
/// it before the runtime writes the metadata sees 0.
__attribute__((noinline)) static void *record_object(void *block, uintptr_t object_frame) {
    uintptr_t stack = rg_creation_stack_id(object_frame);
    *(volatile uintptr_t *)block = 0;
    rg_table_insert_inline((uintptr_t)block, RG_ENTRY_OBJECT | stack << RG_ENTRY_SITE_SHIFT);
    return opaque(block);
}

/// record_object, then the object's creation trace if they are taken.
__attribute__((noinline)) static void *record_traced_object(void *block, size_t size,
                                                            uintptr_t object_frame) {
    record_object(block, object_frame);
    if (atomic_load_explicit(&rg_tracing, memory_order_relaxed))
        rg_note_creation(block, NULL, size, object_frame);
    return block;
}

/// Records `block`, a task swift_task_create_common allocates (`allocator` is its frame
/// record); returns it.
__attribute__((noinline)) static void *record_task(void *block, uintptr_t allocator) {
    uintptr_t stack = rg_creation_stack(allocator);
    *(volatile uintptr_t *)block = 0;
    rg_table_insert((uintptr_t)block, RG_ENTRY_TASK | stack << RG_ENTRY_SITE_SHIFT);
    return opaque(block);
}

/// Records `block` (its header zeroed, its entry made) when the table's common case could not;
/// returns it.
__attribute__((noinline)) static void *record_entry(void *block, uintptr_t entry) {
    rg_table_insert((uintptr_t)block, entry);
    return opaque(block);
}

/// Records `block` if it is a Swift object or task being allocated, with its creation stack,
/// and samples it when `sampling` (a constant: each malloc variant is its own copy) and the
/// countdown say so. `frame` is the interposer's own frame record (its saved frame pointer is
/// the allocating function's, `caller` its return address): the stack is walked only when the
/// caller is swift_slowAlloc or swift_task_create_common, whose frame records are known to
/// exist.
static inline __attribute__((always_inline)) void
note_block(void *block, size_t size, uintptr_t caller, uintptr_t frame, int sampling) {
    uintptr_t allocator = ((const uintptr_t *)frame)[0];
    if (rg_in_range(rg_slow_alloc_range, caller)) {
        if (rg_in_range(rg_alloc_object_range, ((const uintptr_t *)allocator)[1]))
            record_traced_object(block, size, ((const uintptr_t *)allocator)[0]);
    } else if (rg_in_range(rg_task_create_range, caller)) {
        record_task(block, allocator);
    }
    if (sampling && (rg_sample_countdown -= (int64_t)size) < 0)
        rg_sample_allocation(block, size, caller, frame);
}

/// The return addresses of swift_slowAlloc's call to malloc and of swift_allocObject's call to
/// swift_slowAlloc, learnt from the range checks: the recording malloc compares a return
/// address with one word (2 instructions) before it tries a function's range (4), 4 fewer an
/// object. A runtime that calls from two places still works (the other place pays both), and a
/// malloc from elsewhere pays 2 more. Volatile words, not atomics, so that each load folds into
/// its compare (1 instruction each): an aligned word written whole by one store is never seen
/// torn, and every thread that writes one writes a return address its range check accepted.
static volatile uintptr_t slow_alloc_call, alloc_object_call;

// The functions below read their own return addresses, so no part of them may move to another
// function: in a release build clang's hot/cold splitting outlined the recording branch
// (marked unlikely) into `malloc.cold.1`, whose return address lies in malloc, and the census
// recorded nothing. LLVM never splits a noinline function.

/// malloc while recording. Reached by a tail jump from malloc, so its return addresses are
/// malloc's: 0 is malloc's caller, 1 that caller's caller.
///
/// note_block without sampling, its common case written out (an object whose creation stack
/// the thread's memo replays, an uncontended stripe with room): that case calls nothing
/// after glibc's malloc, and every other one calls a function that does the whole recording.
/// It keeps this function's frame to a few registers: it saved six and kept 168 bytes for a
/// stack's frames, and the recording cost 211 instructions an object (callgrind,
/// census-cost.sh; RESULTS-HISTORY, Nov 28 2026 18:30 UTC).
RG_HIDDEN __attribute__((noinline, used)) void *rg_malloc_recording(size_t size) {
    void *block = rg_next_malloc(size);
    if (!block || rg_internal_depth) return block;
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    uintptr_t allocator = ((const uintptr_t *)__builtin_frame_address(0))[0];
    if (__builtin_expect(caller != slow_alloc_call, 0)) {
        if (!rg_in_range(rg_slow_alloc_range, caller)) {
            if (rg_in_range(rg_task_create_range, caller)) return record_task(block, allocator);
            return block;
        }
        slow_alloc_call = caller;
    }
    uintptr_t object_call = ((const uintptr_t *)allocator)[1];
    if (__builtin_expect(object_call != alloc_object_call, 0)) {
        if (!rg_in_range(rg_alloc_object_range, object_call)) return block;
        alloc_object_call = object_call;
    }
    uintptr_t object_frame = ((const uintptr_t *)allocator)[0];
    uint32_t stack;
    // No test of rg_tracing here (3 instructions an object), and no use of `size` after glibc's
    // malloc, so that no register is saved for it: while creation traces are taken, malloc
    // points at rg_malloc_recording_traced instead. An allocation that began just before
    // tracing did is not traced, as when it read the flag just before it was set.
    if (!rg_memo_stack_id(object_frame, &stack)) return record_object(block, object_frame);
    *(volatile uintptr_t *)block = 0;
    uintptr_t entry = RG_ENTRY_OBJECT | (uintptr_t)stack << RG_ENTRY_SITE_SHIFT;
    if (!rg_table_insert_quick((uintptr_t)block, entry)) return record_entry(block, entry);
    return block;
}

/// malloc while recording and taking creation traces (rg_census_set_tracing).
RG_HIDDEN __attribute__((noinline, used)) void *rg_malloc_recording_traced(size_t size) {
    void *block = rg_next_malloc(size);
    if (block && !rg_internal_depth)
        note_block(block, size, (uintptr_t)__builtin_return_address(0),
                   (uintptr_t)__builtin_frame_address(0), 0);
    return block;
}

/// malloc while recording and sampling.
RG_HIDDEN __attribute__((noinline, used)) void *rg_malloc_recording_sampling(size_t size) {
    void *block = rg_next_malloc(size);
    if (block && !rg_internal_depth)
        note_block(block, size, (uintptr_t)__builtin_return_address(0),
                   (uintptr_t)__builtin_frame_address(0), 1);
    return block;
}

/// malloc when the sampling countdown went below 0 (not recording). Reached by a tail jump.
RG_HIDDEN __attribute__((noinline, used)) void *rg_malloc_sampled(size_t size) {
    void *block = rg_next_malloc(size);
    if (block)
        rg_sample_allocation(block, size, (uintptr_t)__builtin_return_address(0),
                             (uintptr_t)__builtin_frame_address(0));
    return block;
}

/// free of a block the sampling filter flags: forget the sample first (once glibc has the
/// block, another thread may get it back).
RG_HIDDEN __attribute__((noinline, used)) void rg_free_sampled(void *block) {
    rg_sample_forget((uintptr_t)block);
    rg_next_free(block);
}

/// free's slow paths once the table is in use (a contended stripe, a run to shift back): each
/// ends the free, so that rg_free_recorded reaches them by a tail jump.
__attribute__((noinline)) static void free_after_removing(void *block) {
    rg_table_remove((uintptr_t)block);
    rg_next_free(block);
}

__attribute__((noinline)) static void free_after_shifting(void *block, rg_stripe_t *stripe,
                                                          size_t hole) {
    rg_stripe_delete_at_and_unlock(stripe, hole);
    rg_next_free(block);
}

/// free once the table is in use: forget the block first.
RG_HIDDEN __attribute__((noinline, used)) void rg_free_recorded(void *block) {
    if (block) {
        rg_stripe_t *stripe;
        size_t hole;
        switch (rg_table_remove_quick((uintptr_t)block, &stripe, &hole)) {
        case rg_removed: break;
        case rg_remove_contended: free_after_removing(block); return;
        case rg_remove_needs_shift: free_after_shifting(block, stripe, hole); return;
        }
    }
    rg_next_free(block);
}

/// free once the table is in use and samples were taken: the table, then the filter.
RG_HIDDEN __attribute__((noinline, used)) void rg_free_recorded_sampling(void *block) {
    if (block) {
        rg_table_remove_inline((uintptr_t)block);
        if (rg_sample_filter_hit((uintptr_t)block)) rg_sample_forget((uintptr_t)block);
    }
    rg_next_free(block);
}

__attribute__((noinline)) int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return 22;
    void *block = __libc_memalign(alignment, size);
    if (!block) return 12;
    *result = block;
    if (__builtin_expect(atomic_load_explicit(&rg_recording, memory_order_relaxed), 0) &&
        !rg_internal_depth) {
        note_block(block, size, (uintptr_t)__builtin_return_address(0),
                   (uintptr_t)__builtin_frame_address(0),
                   atomic_load_explicit(&rg_sampling, memory_order_relaxed));
    } else if (atomic_load_explicit(&rg_sampling, memory_order_relaxed) &&
               (rg_sample_countdown -= (int64_t)size) < 0) {
        rg_sample_allocation(block, size, (uintptr_t)__builtin_return_address(0),
                             (uintptr_t)__builtin_frame_address(0));
    }
    return 0;
}

#endif
