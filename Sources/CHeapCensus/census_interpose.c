// The census's view of allocations. See LINUX-NOTES.md, "Seeing every Swift object".
//
// Normal builds define malloc, free and posix_memalign in the executable (SwiftPM links this
// target's object file into it; the linker exports the definitions because shared libraries
// reference them), forwarding to glibc's own entry points. Every Swift heap block is allocated
// by swift_slowAlloc (malloc, or posix_memalign when over-aligned), and a Swift *object* by
// swift_allocObject calling swift_slowAlloc, so while recording, malloc keeps a block when its
// return address lies in swift_slowAlloc and the one above it in swift_allocObject (both keep
// frame pointers; the second is read only after the first matched). Async tasks are allocated
// by swift_task_create_common's own call to malloc. This sees the standard library's internal
// allocations too, which interposing swift_allocObject alone cannot.
//
// Under a sanitizer the sanitizer owns the whole allocator family and an interposed malloc is
// fatal, so these definitions step aside: swift_allocObject is interposed instead (it misses
// objects libswiftCore allocates internally) and the sanitizer's free hook forgets blocks.
//
// Creation traces of chosen types: in malloc mode the recording path calls the creation hook for
// objects (it knows the block is one, and its size, but not yet its type: the runtime writes the
// header after malloc returns; the Swift side resolves the type later). Under a sanitizer,
// swift_allocObject is interposed (weakly, so a statically linked runtime keeps its own) and
// calls the hook with the type. Normal builds do not interpose swift_allocObject at all: every
// object allocation would pay for a wrapper whose only job is tracing.
//
// _Block_copy is interposed in both modes too: a C block copied to the heap is how libdispatch
// keeps a dispatch source's handler and the work submitted to a queue (and the Swift closure
// inside), so the census records heap blocks as holders it can name.

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"
#include "census_table.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uintptr_t start, length;
} range_t;

static range_t slow_alloc_range, alloc_object_range, task_create_range;
static _Atomic(int) census_mode;
/// Read by name from the assembly of malloc (x86_64): hidden, so the reference is PC-relative.
RG_HIDDEN _Atomic(int) rg_recording;
static _Atomic(int) tracing;
static void (*_Atomic creation_hook)(void *, const void *, size_t);

static inline int in_range(range_t range, uintptr_t address) {
    return address - range.start < range.length;
}

/// The extent of an exported function of the image `handle` (or of any image when NULL).
static range_t function_range(void *handle, const char *name) {
    range_t range = {0, 0};
    void *address = dlsym(handle ? handle : RTLD_DEFAULT, name);
    if (!address) return range;
    Dl_info info;
    const ElfW(Sym) *symbol = NULL;
    if (dladdr1(address, &info, (void **)&symbol, RTLD_DL_SYMENT) && symbol &&
        symbol->st_size > 0) {
        range.start = (uintptr_t)address;
        range.length = symbol->st_size;
    }
    return range;
}

int rg_census_prepare(void) {
    int mode = atomic_load_explicit(&census_mode, memory_order_acquire);
    if (mode != RG_MODE_UNAVAILABLE) return mode;
    rg_internal_depth++;
    void *core = dlopen("libswiftCore.so", RTLD_NOLOAD | RTLD_LAZY);
    void *concurrency = dlopen("libswift_Concurrency.so", RTLD_NOLOAD | RTLD_LAZY);
    slow_alloc_range = function_range(core, "swift_slowAlloc");
    alloc_object_range = function_range(core, "swift_allocObject");
    task_create_range = function_range(concurrency, "swift_task_create_common");
    if (core) dlclose(core);
    if (concurrency) dlclose(concurrency);
    rg_internal_depth--;
#ifdef RG_UNDER_SANITIZER
    mode = RG_MODE_SANITIZER;
#else
    mode = slow_alloc_range.length && alloc_object_range.length ? RG_MODE_MALLOC
                                                          : RG_MODE_UNAVAILABLE;
#endif
    atomic_store_explicit(&census_mode, mode, memory_order_release);
    return mode;
}

int rg_census_mode(void) { return atomic_load_explicit(&census_mode, memory_order_acquire); }

// Other architectures (and x86_64 built with -DRG_PORTABLE_ENTRY_POINTS, which checks that
// path here) use the C entry points: a flag test and a tail call each.
#if !defined(RG_UNDER_SANITIZER) && defined(__x86_64__) && !defined(RG_PORTABLE_ENTRY_POINTS)
/// malloc and free are one indirect jump each (see "Normal mode" below).
#define RG_SWITCHED_ENTRY_POINTS 1
static void switch_malloc(bool recording);
#else
static void switch_malloc(bool recording) { (void)recording; }
#endif

void rg_census_set_recording(bool on) {
    static pthread_mutex_t switching = PTHREAD_MUTEX_INITIALIZER;
    if (on && rg_census_prepare() == RG_MODE_UNAVAILABLE) return;
    pthread_mutex_lock(&switching); // the flag and malloc's target agree
    atomic_store_explicit(&rg_recording, on, memory_order_release);
    switch_malloc(on);
    pthread_mutex_unlock(&switching);
}

bool rg_census_is_recording(void) {
    return atomic_load_explicit(&rg_recording, memory_order_relaxed);
}

void rg_census_set_creation_hook(void (*hook)(void *, const void *, size_t)) {
    atomic_store_explicit(&creation_hook, hook, memory_order_release);
}

void rg_census_set_tracing(bool on) { atomic_store_explicit(&tracing, on, memory_order_release); }

/// Calls the creation hook for a new object (`metadata` NULL when not known yet) unless this
/// thread is running census code. Outside every census lock.
__attribute__((noinline)) static void note_creation(void *object, const void *metadata,
                                                    size_t size) {
    if (rg_internal_depth) return;
    void (*hook)(void *, const void *, size_t) = atomic_load_explicit(&creation_hook,
                                                                      memory_order_acquire);
    if (!hook) return;
    rg_internal_depth++;
    hook(object, metadata, size);
    rg_internal_depth--;
}

// MARK: _Block_copy (both modes)

typedef void *(*block_copy_fn)(const void *);
static _Atomic(block_copy_fn) next_block_copy;

/// The Blocks ABI: flags @8 (BLOCK_NEEDS_FREE, bit 24, on heap blocks; the reference count in
/// the low 16 bits, 1 for one reference and +2 for each more in compiler-rt's runtime, which
/// swift-corelibs-libdispatch ships), descriptor @24 whose size (@8) covers the header (32
/// bytes) and the captured variables.
#define RG_BLOCK_NEEDS_FREE (1 << 24)

__attribute__((weak)) void *_Block_copy(const void *block) {
    block_copy_fn next = atomic_load_explicit(&next_block_copy, memory_order_relaxed);
    if (__builtin_expect(!next, 0)) {
        next = (block_copy_fn)dlsym(RTLD_NEXT, "_Block_copy");
        if (!next) return NULL; // no blocks runtime below us: nobody can have made a block
        atomic_store_explicit(&next_block_copy, next, memory_order_relaxed);
    }
    void *copy = next(block);
    if (__builtin_expect(atomic_load_explicit(&rg_recording, memory_order_relaxed), 0) && copy &&
        copy != block && !rg_internal_depth) {
        int32_t flags = __atomic_load_n((int32_t *)((char *)copy + 8), __ATOMIC_RELAXED);
        if (flags & RG_BLOCK_NEEDS_FREE) rg_table_insert((uintptr_t)copy, RG_ENTRY_BLOCK);
    }
    return copy;
}

__attribute__((no_sanitize("thread", "address"))) size_t rg_census_block_info(const void *block,
                                                                     size_t *capture_end) {
    const char *bytes = block;
    int32_t flags = *(const volatile int32_t *)(bytes + 8);
    const uintptr_t *descriptor = *(const uintptr_t *const volatile *)(bytes + 24);
    size_t size = descriptor && (uintptr_t)descriptor >= 4096 ? descriptor[1] : 32;
    size_t usable = malloc_usable_size((void *)block);
    *capture_end = size < usable ? size : usable;
    return ((size_t)(flags & 0xffff) + 1) / 2;
}

#ifdef RG_UNDER_SANITIZER

// MARK: Sanitizer mode: the sanitizer's hooks

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
/// the common case stays a bare tail call.
__attribute__((noinline)) static void *allocate_object_and_note(const void *metadata,
                                                                size_t size,
                                                                size_t alignment_mask) {
    alloc_object_fn next = atomic_load_explicit(&next_alloc_object, memory_order_relaxed);
    void *object = next(metadata, size, alignment_mask);
    if (atomic_load_explicit(&rg_recording, memory_order_relaxed) && !rg_internal_depth)
        rg_table_insert((uintptr_t)object, RG_ENTRY_OBJECT);
    if (atomic_load_explicit(&tracing, memory_order_relaxed))
        note_creation(object, metadata, size);
    return object;
}

__attribute__((weak)) void *swift_allocObject(const void *metadata, size_t size,
                                              size_t alignment_mask) {
    if (atomic_load_explicit(&rg_recording, memory_order_relaxed) ||
        atomic_load_explicit(&tracing, memory_order_relaxed))
        return allocate_object_and_note(metadata, size, alignment_mask);
    alloc_object_fn next = atomic_load_explicit(&next_alloc_object, memory_order_relaxed);
    return next(metadata, size, alignment_mask);
}

void rg_table_now_in_use(void) {}

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

/// Records `block` if it is a Swift object or task being allocated. The header word is
/// zeroed first, so a scan that reads it before the runtime writes the metadata sees 0.
/// `above` (the caller's caller) is evaluated only when the caller is swift_slowAlloc: only its
/// frame is known to have a frame pointer to read the next return address through.
#define NOTE_BLOCK(block, size, caller, above)                                                 \
    do {                                                                                       \
        if (in_range(slow_alloc_range, caller)) {                                              \
            if (!in_range(alloc_object_range, (above))) break;                                 \
            *(volatile uintptr_t *)(block) = 0;                                                \
            rg_table_insert_inline((uintptr_t)(block), RG_ENTRY_OBJECT);                       \
            if (atomic_load_explicit(&tracing, memory_order_relaxed))                          \
                note_creation(block, NULL, size);                                              \
        } else if (in_range(task_create_range, caller)) {                                      \
            *(volatile uintptr_t *)(block) = 0;                                                \
            rg_table_insert((uintptr_t)(block), RG_ENTRY_TASK);                                \
        }                                                                                      \
    } while (0)

// rg_malloc_recording and posix_memalign read their own return addresses, so no part of them
// may move to another function: in a release build clang's hot/cold splitting outlined the
// recording branch (marked unlikely) into `malloc.cold.1`, whose return address lies in malloc,
// and the census recorded nothing. LLVM never splits a noinline function.

/// malloc while recording. Reached by a tail jump from malloc, so its return addresses are
/// malloc's: 0 is malloc's caller, 1 that caller's caller.
RG_HIDDEN __attribute__((noinline, used)) void *rg_malloc_recording(size_t size) {
    void *block = rg_next_malloc(size);
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    if (block && !rg_internal_depth)
        NOTE_BLOCK(block, size, caller, (uintptr_t)__builtin_return_address(1));
    return block;
}

/// free once the table is in use: forget the block first (once glibc has it, another thread
/// may get it back).
RG_HIDDEN __attribute__((noinline, used)) void rg_free_recorded(void *block) {
    if (block) rg_table_remove_inline((uintptr_t)block);
    rg_next_free(block);
}

#ifdef RG_SWITCHED_ENTRY_POINTS
// malloc and free with no frame and no test: one indirect jump, through a word that names
// glibc's function or the recording one. Written in C, each had a frame push and pop, a flag
// test and a PLT hop (SwiftPM builds keep frame pointers, and a package cannot change that for
// one file without unsafe flags). The words are switched by rg_census_set_recording (malloc)
// and by the table's first growth (free, for good); a thread that reads the old word calls a
// function that is still correct (a block allocated just as recording starts is not recorded;
// a free always forgets what the table holds, since the word changed before the first entry).

RG_HIDDEN void *(*_Atomic rg_malloc_target)(size_t) = __libc_malloc;
RG_HIDDEN void (*_Atomic rg_free_target)(void *) = __libc_free;

static void switch_malloc(bool recording) {
    atomic_store_explicit(&rg_malloc_target, recording ? rg_malloc_recording : __libc_malloc,
                          memory_order_release);
}

void rg_table_now_in_use(void) {
    atomic_store_explicit(&rg_free_target, rg_free_recorded, memory_order_release);
}

__attribute__((naked)) void *malloc(size_t size) { __asm__("jmp *rg_malloc_target(%rip)\n\t"); }

__attribute__((naked)) void free(void *block) { __asm__("jmp *rg_free_target(%rip)\n\t"); }
#else
void rg_table_now_in_use(void) {}

void *malloc(size_t size) {
    if (atomic_load_explicit(&rg_recording, memory_order_relaxed))
        __attribute__((musttail)) return rg_malloc_recording(size);
    // Not recording: a tail call to glibc (a load, a test and a jump per allocation).
    return rg_next_malloc(size);
}

void free(void *block) {
    // Until the table's first insert there is nothing to forget: a load, a test and a jump.
    if (atomic_load_explicit(&rg_table_in_use, memory_order_relaxed))
        __attribute__((musttail)) return rg_free_recorded(block);
    rg_next_free(block);
}
#endif

__attribute__((noinline)) int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return 22;
    void *block = __libc_memalign(alignment, size);
    if (!block) return 12;
    *result = block;
    if (__builtin_expect(atomic_load_explicit(&rg_recording, memory_order_relaxed), 0) &&
        !rg_internal_depth) {
        uintptr_t caller = (uintptr_t)__builtin_return_address(0);
        NOTE_BLOCK(block, size, caller, (uintptr_t)__builtin_return_address(1));
    }
    return 0;
}

#endif

// MARK: Reading

#include <sys/uio.h>
#include <unistd.h>

bool rg_census_is_readable(const void *address, size_t size) {
    // process_vm_readv on this very process reports an unreadable range as an error instead
    // of a fault.
    char buffer[256];
    if (size > sizeof buffer) size = sizeof buffer;
    struct iovec local = {buffer, size};
    struct iovec remote = {(void *)address, size};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}

size_t rg_census_block_size(const void *block) { return malloc_usable_size((void *)block); }

extern size_t swift_retainCount(void *object);

extern bool swift_isDeallocating(void *object);

size_t rg_census_retain_count(const void *object) {
    // An object whose deinit runs still reads 1 (its fields may already be released): dead.
    if (swift_isDeallocating((void *)object)) return 0;
    return swift_retainCount((void *)object);
}

typedef struct {
    void (*visitor)(void *, uintptr_t, uintptr_t, const char *);
    void *context;
} segments_context;

static int visit_image(struct dl_phdr_info *info, size_t size, void *raw) {
    (void)size;
    segments_context *context = raw;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || !(header->p_flags & PF_W)) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        context->visitor(context->context, start, start + header->p_memsz, info->dlpi_name);
    }
    return 0;
}

void rg_census_writable_segments(void (*visitor)(void *, uintptr_t, uintptr_t, const char *),
                                 void *context) {
    segments_context state = {visitor, context};
    dl_iterate_phdr(visit_image, &state);
}

// MARK: Start from the environment

__attribute__((constructor)) static void start_from_environment(void) {
    const char *value = getenv("RETAINGRAPH_CENSUS");
    if (!value) return;
    if (!strcmp(value, "1") || !strcasecmp(value, "on") || !strcasecmp(value, "yes") ||
        !strcasecmp(value, "true"))
        rg_census_set_recording(true);
}
