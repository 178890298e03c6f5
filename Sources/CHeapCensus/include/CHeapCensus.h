// The heap census's door to C: a table of every live Swift heap block, filled by interposed
// allocation entry points (see census_hooks.c), with each block's creation site; a sampled
// mode that keeps one allocation per so many bytes with its stack; and the few loads the census
// makes from memory other threads own. Only Sources/HeapCensus/CensusDoor.swift imports this
// module.
//
// Nothing here is stable API: the Swift module HeapCensus is.

#ifndef RETAINGRAPH_CHEAPCENSUS_H
#define RETAINGRAPH_CHEAPCENSUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Flags kept in the low bits of a table entry (blocks are 16-byte aligned).
enum {
    /// A class instance, closure context, box or collection storage (swift_allocObject).
    RG_ENTRY_OBJECT = 1,
    /// An async task (allocated by the concurrency runtime's task creation).
    RG_ENTRY_TASK = 2,
    /// Its creation was traced (the Swift side keeps the trace).
    RG_ENTRY_TRACED = 4,
    /// A C block copied to the heap (_Block_copy): libdispatch keeps every handler and work
    /// item this way, and the Swift closure it captures with it.
    RG_ENTRY_BLOCK = 8,
    RG_ENTRY_FLAGS = 15,
};

/// A table entry is `address | flags | site << RG_ENTRY_SITE_SHIFT`: user-space addresses lie
/// below 2^47 on Linux x86_64 and below 2^48 on aarch64 (without memory tagging, or an mmap
/// hint above them, which malloc never gives), so the bits above hold the block's
/// creation-stack id (0: unknown) at no cost in memory: RG_SITE_BITS of them, 17 on x86_64 and
/// 16 elsewhere. A block above that is not recorded. Visits (rg_census_visit_stripe) hand out
/// entries without the site bits.
#if defined(__x86_64__)
#define RG_ENTRY_SITE_SHIFT 47
#else
#define RG_ENTRY_SITE_SHIFT 48
#endif
#define RG_SITE_BITS (64 - RG_ENTRY_SITE_SHIFT)
#define RG_ENTRY_ADDRESS_MASK                                                                  \
    ((((uintptr_t)1 << RG_ENTRY_SITE_SHIFT) - 1) & ~(uintptr_t)RG_ENTRY_FLAGS)
/// Creation-stack ids are 1..<RG_SITE_LIMIT (131,071 stacks on x86_64, 65,535 elsewhere).
#define RG_SITE_LIMIT (1u << RG_SITE_BITS)

/// How the census sees allocations in this build.
enum {
    /// Not prepared yet, or the Swift runtime's allocation functions were not found.
    RG_MODE_UNAVAILABLE = 0,
    /// malloc/free interposed: every Swift heap object, the standard library's own included.
    RG_MODE_MALLOC = 1,
    /// Under a sanitizer: swift_allocObject interposed (objects the standard library allocates
    /// internally are missed) and the sanitizer's free hook.
    RG_MODE_SANITIZER = 2,
};

/// Finds the runtime functions the census recognises callers by. Idempotent, thread-safe.
/// Returns the mode (RG_MODE_*).
int rg_census_prepare(void);
/// The mode ``rg_census_prepare`` found (without preparing).
int rg_census_mode(void);

/// Starts or stops recording new blocks (frees are always honoured while the table has entries).
void rg_census_set_recording(bool on);
bool rg_census_is_recording(void);
/// Whether recording began before the program's code ran (in a test process, or from
/// RETAINGRAPH_CENSUS=1), and has not been stopped since: every live Swift object is known.
bool rg_census_recorded_since_launch(void);
/// Forgets every entry (blocks allocated before are then unknown).
void rg_census_clear(void);

/// The hook called after each object allocation while tracing (outside any census lock, with
/// the thread's allocations unrecorded). `metadata` is NULL when the type is not known yet: in
/// malloc mode the hook runs inside the object's malloc, before the runtime writes its header;
/// `size` is the size asked for (a class's instance size). `frames` holds the object's creation
/// trace, `depth` return addresses (at most RG_TRACE_DEPTH), innermost first from the
/// allocating function's caller, read from frame pointers (no unwinder: the hook may run with
/// the loader's lock held by this thread).
void rg_census_set_creation_hook(void (*_Nullable hook)(void *_Nonnull object,
                                                        const void *_Nullable metadata,
                                                        size_t size,
                                                        const uintptr_t *_Nonnull frames,
                                                        size_t depth));
/// The most frames a creation trace keeps.
#define RG_TRACE_DEPTH 32
void rg_census_set_tracing(bool on);
/// Sets `flags` on the entry of `address`; false if it is not in the table.
bool rg_census_mark(uintptr_t address, uintptr_t flags);

/// The metadata word of the block at `address` if the census knows it as live (read under its
/// stripe's lock, so the block cannot be freed meanwhile), else 0; its flags in `flags`.
uintptr_t rg_census_metadata_if_live(uintptr_t address, uintptr_t *_Nullable flags);

/// The reference counts of the live census block at `address`, read under its stripe's lock:
/// `*strong` its strong retain count (a C block's reference count), `*unowned` and `*weak` the
/// unowned and weak references to it (swift_unownedRetainCount and swift_weakRetainCount less
/// the one each keeps for the others; 0 for a C block). False when the census does not know a
/// live, initialised block there, or the object began deinitialising.
bool rg_census_counts_if_live(uintptr_t address, size_t *_Nonnull strong,
                              size_t *_Nonnull unowned, size_t *_Nonnull weak);

/// Retains (+1 strong) the live Swift object at `address` unless it is not in the census, is a
/// block, or began deinitialising. The check and the retain happen under the stripe's lock.
bool rg_census_try_retain(uintptr_t address);

/// The creation-stack id of the live census block at `address` (read under its stripe's lock),
/// 0 when the census does not know the block or did not keep where it was made.
uint32_t rg_census_site_if_live(uintptr_t address);
/// The most frames a recorded block's creation stack keeps.
#define RG_STACK_DEPTH 16
/// Copies stack `id`'s return addresses, innermost first, into `frames`: the allocating
/// function's caller (the allocating initializer, or the function that made a closure), its
/// caller, and so on outwards. Returns how many were copied (at most `capacity`), 0 for an
/// unknown id.
size_t rg_census_stack(uint32_t id, uintptr_t *_Nonnull frames, size_t capacity);
/// Stacks the depot holds (at most RG_SITE_LIMIT - 1: whole ones, then innermost frames of
/// others, census_stacks.c).
size_t rg_census_stack_count(void);
/// New stacks (each counted once per thread that met it, while that thread's recent stacks
/// had it) kept at their innermost frames only, because the ids for whole stacks were taken;
/// and those not kept at all, not even their innermost frame.
size_t rg_census_stacks_shortened(void);
size_t rg_census_stacks_dropped(void);
/// The memory the stack depot uses now (its pages touched so far), in bytes; at most about
/// 17 MB on x86_64 (8.5 MB elsewhere), census_stacks.c says how.
size_t rg_census_stack_bytes(void);

/// Starts sampling allocations: one per `mean_interval` bytes on average (a Poisson process),
/// each with its stack, kept until freed. Works with or without recording. Returns false when
/// the census is unavailable or runs under a sanitizer (sampling needs the malloc interposer).
bool rg_sampling_start(size_t mean_interval);
/// Stops taking samples; those taken stay until their blocks are freed.
void rg_sampling_stop(void);
bool rg_sampling_is_on(void);
size_t rg_sampling_interval(void);

/// What a sampled block is (the same values as the census's internal RG_SAMPLE_*).
enum { RG_SAMPLE_BUCKET_OBJECT = 1, RG_SAMPLE_BUCKET_RAW = 2, RG_SAMPLE_BUCKET_TASK = 3 };

/// One bucket of samples: those with the same stack, kind, size and interval.
typedef struct {
    /// Offset of the stack in the frame words (rg_sampling_read): its depth, then its frames.
    uint32_t stack;
    /// RG_SAMPLE_BUCKET_OBJECT, _RAW (swift_slowAlloc outside swift_allocObject) or _TASK.
    uint32_t kind;
    /// The size asked for, in bytes.
    uint64_t size;
    /// The type of an object bucket (its metadata), 0 while unknown.
    uintptr_t metadata;
    /// The mean sampling interval the samples were taken at (each weighs
    /// 1 / (1 - exp(-size / interval)) allocations of the whole program).
    uint64_t interval;
    /// Samples taken and freed.
    uint64_t allocations, frees;
} rg_sample_bucket_t;

/// Copies the buckets and the frame words into the buffers when both are large enough, reading
/// the types of objects sampled since the last read first. Returns false (and the counts
/// needed) when a buffer is too small. Allocates nothing.
bool rg_sampling_read(rg_sample_bucket_t *_Nullable buckets, size_t bucket_capacity,
                      size_t *_Nonnull bucket_count, uintptr_t *_Nullable words,
                      size_t word_capacity, size_t *_Nonnull word_count);
/// Live samples now, and the bytes the sample tables use.
size_t rg_sampling_live_count(void);
size_t rg_sampling_table_bytes(void);

/// Live entries, and the bytes the table itself uses.
size_t rg_census_count(void);
size_t rg_census_table_bytes(void);
/// The number of lock stripes (visit them 0..<count).
size_t rg_census_stripe_count(void);

/// Calls `visitor` with a stripe's entries (address | flags) while that stripe's lock is
/// held: no block of the stripe can be freed during the call (its free waits). The visitor
/// must not take other census stripes' locks in a way that can wait on another visitor: the
/// census allows one visit at a time. Allocations made by the visiting thread during the call
/// are not recorded (the census's own).
void rg_census_visit_stripe(size_t stripe,
                            void (*_Nonnull visitor)(void *_Nullable context,
                                                     const uintptr_t *_Nullable entries,
                                                     size_t count),
                            void *_Nullable context);

/// While set on the calling thread, its allocations are not recorded.
void rg_census_enter_internal(void);
void rg_census_leave_internal(void);

/// A load of another thread's memory that ThreadSanitizer must not instrument: the census
/// reads objects that their own threads may be writing (a benign race by design; the object
/// cannot be freed meanwhile). Never `always_inline`: inlined into Swift compiled with
/// `-sanitize=thread`, the load becomes the caller's and is instrumented (the clang importer
/// does not see the sanitizer, so no macro can tell); as a call it stays uninstrumented. An
/// optimized build inlines it where no sanitizer is on; a debug build pays a call per word.
__attribute__((no_sanitize("thread", "address"))) static inline uintptr_t
rg_census_load_word(const void *_Nonnull address) {
    return *(const volatile uintptr_t *)address;
}

/// Copies `size` bytes of another thread's memory, uninstrumented (see rg_census_load_word).
void rg_census_copy(void *_Nonnull destination, const void *_Nonnull source, size_t size);

/// The name the thread `thread` (a pthread_t) gave itself (pthread_getname_np); 0 on success.
int rg_census_thread_name(uintptr_t thread, char *_Nonnull buffer, size_t length);

/// The usable size of a block malloc returned (glibc's malloc_usable_size), 0 if unknown.
size_t rg_census_block_size(const void *_Nonnull block);

/// The strong retain count of a live Swift object (swift_retainCount); 0 once it began
/// deinitialising (swift_isDeallocating).
size_t rg_census_retain_count(const void *_Nonnull object);

/// The references a heap block holds (its reference count), and the extent of its captured
/// variables, [32, *capture_end), clamped to the block's size.
size_t rg_census_block_info(const void *_Nonnull block, size_t *_Nonnull capture_end);

/// Calls `visitor` for every writable segment of every loaded image (dl_iterate_phdr).
void rg_census_writable_segments(void (*_Nonnull visitor)(void *_Nullable context,
                                                          uintptr_t start, uintptr_t end,
                                                          const char *_Nullable image),
                                 void *_Nullable context);

#endif
