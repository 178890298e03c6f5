// Shared between the census's C files; not part of the module's header. Who does what:
//
//   census_callers.c   recognising the runtime's allocation functions (their address ranges),
//                      the census's switches (recording, tracing), the creation hook and
//                      the extent of swift_allocObject that creation traces are cut after
//   (names of data symbols and safe reads of memory are CProcessMemory's job, shared with the
//   reflection walk)
//   census_hooks.c     the interposed entry points: malloc, free, posix_memalign (or, under a
//                      sanitizer, swift_allocObject and the sanitizer's hooks)
//   census_blocks.c    C blocks on the heap: _Block_copy, and reading the Blocks ABI
//   census_start.c     the constructor that starts the census from the environment
//   census_exit.c      the constructor and atexit handler of the at-exit leak check (SuiteLeaks)
//   census_reading.c   reads of other objects' memory and of the loaded images
//   census_table.c/.h  the table of live blocks (hot paths inline in the header)
//   census_stacks.c/.h the stack depot (creation stacks read from frame pointers, ids of
//                      RG_SITE_BITS bits, tiers of shorter stacks past the whole stacks' ids)
//   census_stack_stats.c  a measurement of distinct stacks, built with RG_STACK_STATS only
//   census_sampling.c  the sampled mode's countdown, filter and slow paths
//   census_samples.c   the sampled mode's tables (stacks, buckets, live samples)
#ifndef RETAINGRAPH_CHEAPCENSUS_INTERNAL_H
#define RETAINGRAPH_CHEAPCENSUS_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/// Symbols the census's assembly names: PC-relative references within the image.
#define RG_HIDDEN __attribute__((visibility("hidden")))

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) ||                     \
    __has_feature(memory_sanitizer)
#define RG_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define RG_UNDER_SANITIZER 1
#endif

// MARK: Callers (census_callers.c)

/// The extent of a function: [start, start + length).
typedef struct {
    uintptr_t start, length;
} rg_range_t;

/// swift_slowAlloc, swift_allocObject and swift_task_create_common, found by rg_census_prepare.
extern RG_HIDDEN rg_range_t rg_slow_alloc_range, rg_alloc_object_range, rg_task_create_range;

static inline int rg_in_range(rg_range_t range, uintptr_t address) {
    return address - range.start < range.length;
}

/// Whether the census records new blocks. Read by name from the assembly of malloc (x86_64).
extern RG_HIDDEN _Atomic(int) rg_recording;
/// Whether creation traces are taken (rg_note_creation is called for new objects).
extern RG_HIDDEN _Atomic(int) rg_tracing;
/// Calls the creation hook for a new object, with its creation trace read from frame pointers
/// above `frame` (the allocating function's frame record), unless this thread runs census code.
RG_HIDDEN void rg_note_creation(void *object, const void *metadata, size_t size,
                                uintptr_t frame);

/// Non-zero while the calling thread runs census code whose allocations are not recorded.
extern __thread int rg_internal_depth __attribute__((tls_model("initial-exec")));

// MARK: Entry points (census_hooks.c)

/// Points malloc at the function the switches ask for (glibc's, the sampling one or the
/// recording one). Call with the switching lock held (rg_lock_switches).
RG_HIDDEN void rg_switch_malloc(void);
RG_HIDDEN void rg_lock_switches(void);
RG_HIDDEN void rg_unlock_switches(void);
/// Marks that recording began in the constructor (census_start.c), before the program's code.
RG_HIDDEN void rg_census_mark_recording_since_launch(void);

// MARK: Settings (census_start.c)

/// Whether an environment setting says yes (1, on, yes, true) or no (0, off, no, false).
RG_HIDDEN int rg_is_yes(const char *value);
RG_HIDDEN int rg_is_no(const char *value);
/// Whether this process is a SwiftPM test bundle: its executable's name ends in `.xctest`
/// (read from /proc/self/exe's target, not argv[0], which a launcher may have changed).
RG_HIDDEN int rg_is_test_process(void);

// MARK: Table (census_table.c)

/// Records a block (address | flags | site << RG_ENTRY_SITE_SHIFT); never calls malloc.
void rg_table_insert(uintptr_t address, uintptr_t flags);
/// Forgets a block if it is recorded; never calls malloc.
void rg_table_remove(uintptr_t address);
/// Set (for good) by the first table growth, before the first entry: until then `free` has
/// nothing to forget and skips the table. A block can be in the table only if its insert
/// finished before its free, so a free that reads 0 here had nothing to remove.
extern RG_HIDDEN _Atomic(int) rg_table_in_use;
/// Called once, by the first table growth, before the first entry is stored: free must look at
/// the table from then on.
RG_HIDDEN void rg_table_now_in_use(void);

// MARK: Creation stacks (census_stacks.c)

/// The depot id (1...RG_SITE_LIMIT - 1) of the creation stack above `frame`, a trusted frame
/// record (the allocating function's: its return address is the allocating caller), adding it
/// if new (whole, or its innermost frames once the ids for whole stacks are taken); 0 when not
/// even its innermost frame found room. Never calls malloc; lock-free unless the stack is new.
RG_HIDDEN uint32_t rg_creation_stack(uintptr_t frame);

/// Reads up to `capacity` return addresses from frame pointers, starting with `frame`'s (a
/// trusted frame record), each further record checked to lie inside this thread's stack, above
/// the last (x86_64; elsewhere the first address only). Never faults, calls nothing.
RG_HIDDEN size_t rg_walk_stack(uintptr_t frame, uintptr_t *frames, size_t capacity);

// MARK: Sampling (census_sampling.c, census_samples.c)

/// What a sampled block is (CHeapCensus.h's RG_SAMPLE_BUCKET_* values).
#define RG_SAMPLE_OBJECT RG_SAMPLE_BUCKET_OBJECT
#define RG_SAMPLE_RAW RG_SAMPLE_BUCKET_RAW
#define RG_SAMPLE_TASK RG_SAMPLE_BUCKET_TASK

/// Whether allocations are sampled.
extern RG_HIDDEN _Atomic(int) rg_sampling;
/// Bytes the calling thread may still allocate before its next sample; below 0, the
/// allocation that took it there is sampled. Read by name from the assembly of malloc.
extern __thread int64_t rg_sample_countdown __attribute__((tls_model("initial-exec")));
/// Called when the countdown went below 0 on a block malloc (or posix_memalign) returned:
/// samples it if it is a Swift heap block, and draws the next countdown. `caller` is the
/// allocating function's return address, `frame` the interposer's frame pointer.
RG_HIDDEN void rg_sample_allocation(void *block, size_t size, uintptr_t caller,
                                    uintptr_t frame);
/// The sampled blocks' filter: a bit per 16-byte granule, modulo 2^16 granules (8 KiB), set
/// while a sampled block starts in such a granule; counted in census_samples.c.
extern RG_HIDDEN _Atomic(uint8_t) rg_sample_filter[8192];
/// Whether the filter says `block` may be sampled.
RG_HIDDEN int rg_sample_filter_hit(uintptr_t block);
/// Forgets a sampled block about to be freed (if it is one).
RG_HIDDEN void rg_sample_forget(uintptr_t block);
/// Non-zero once a sample was taken: free then checks the filter.
extern RG_HIDDEN _Atomic(int) rg_samples_in_use;
/// Points free at the filtering function (once, before the first sample is stored).
RG_HIDDEN void rg_samples_now_in_use(void);

/// The sample tables (census_samples.c), called with the sampling lock held.
RG_HIDDEN void rg_samples_add(uintptr_t block, size_t size, int kind, const uintptr_t *frames,
                              size_t depth, size_t interval);
/// Removes `block` if it is sampled; returns whether it was.
RG_HIDDEN int rg_samples_remove(uintptr_t block);
RG_HIDDEN void rg_samples_lock(void);
RG_HIDDEN void rg_samples_unlock(void);

#endif
