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
// swift_allocObject is interposed in both modes (weakly, so a statically linked runtime keeps
// its own) to call the creation hook that records traces of chosen types.
//
// _Block_copy is interposed in both modes too: a C block copied to the heap is how libdispatch
// keeps a dispatch source's handler and the work submitted to a queue (and the Swift closure
// inside), so the census records heap blocks as holders it can name.

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uintptr_t start, end;
} range_t;

static range_t slow_alloc_range, alloc_object_range, task_create_range;
static _Atomic(int) census_mode;
static _Atomic(int) recording;
static _Atomic(int) tracing;
static void (*_Atomic creation_hook)(void *, const void *);

static inline int in_range(range_t range, uintptr_t address) {
    return address - range.start < range.end - range.start;
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
        range.end = range.start + symbol->st_size;
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
    mode = slow_alloc_range.end && alloc_object_range.end ? RG_MODE_MALLOC
                                                          : RG_MODE_UNAVAILABLE;
#endif
    atomic_store_explicit(&census_mode, mode, memory_order_release);
    return mode;
}

int rg_census_mode(void) { return atomic_load_explicit(&census_mode, memory_order_acquire); }

void rg_census_set_recording(bool on) {
    if (on && rg_census_prepare() == RG_MODE_UNAVAILABLE) return;
    atomic_store_explicit(&recording, on, memory_order_release);
}

bool rg_census_is_recording(void) { return atomic_load_explicit(&recording, memory_order_relaxed); }

void rg_census_set_creation_hook(void (*hook)(void *, const void *)) {
    atomic_store_explicit(&creation_hook, hook, memory_order_release);
}

void rg_census_set_tracing(bool on) { atomic_store_explicit(&tracing, on, memory_order_release); }

// MARK: swift_allocObject (both modes)

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

__attribute__((noinline)) static void after_object_allocation(void *object, const void *metadata) {
#ifdef RG_UNDER_SANITIZER
    if (atomic_load_explicit(&recording, memory_order_relaxed) && !rg_internal_depth)
        rg_table_insert((uintptr_t)object, RG_ENTRY_OBJECT);
#endif
    if (!atomic_load_explicit(&tracing, memory_order_relaxed) || rg_internal_depth) return;
    void (*hook)(void *, const void *) = atomic_load_explicit(&creation_hook,
                                                              memory_order_acquire);
    if (!hook) return;
    rg_internal_depth++;
    hook(object, metadata);
    rg_internal_depth--;
}

/// swift_allocObject when something must follow the allocation. Kept apart (noinline) so that
/// the common case stays a bare tail call: merged into swift_allocObject, the compiler shared
/// one call between both paths and every allocation paid a frame and the flag tests.
__attribute__((noinline)) static void *allocate_object_and_note(const void *metadata,
                                                                size_t size,
                                                                size_t alignment_mask) {
    alloc_object_fn next = atomic_load_explicit(&next_alloc_object, memory_order_relaxed);
    void *object = next(metadata, size, alignment_mask);
    after_object_allocation(object, metadata);
    return object;
}

__attribute__((weak)) void *swift_allocObject(const void *metadata, size_t size,
                                              size_t alignment_mask) {
#ifdef RG_UNDER_SANITIZER
    if (atomic_load_explicit(&recording, memory_order_relaxed) ||
        atomic_load_explicit(&tracing, memory_order_relaxed))
#else
    if (atomic_load_explicit(&tracing, memory_order_relaxed))
#endif
        return allocate_object_and_note(metadata, size, alignment_mask);
    // Nothing to do after the allocation: a tail call (two loads and a jump per object).
    alloc_object_fn next = atomic_load_explicit(&next_alloc_object, memory_order_relaxed);
    return next(metadata, size, alignment_mask);
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
    if (__builtin_expect(atomic_load_explicit(&recording, memory_order_relaxed), 0) && copy &&
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

static void on_sanitizer_free(const volatile void *block) {
    if (block) rg_table_remove((uintptr_t)block);
}

__attribute__((constructor)) static void install_sanitizer_hooks(void) {
    if (__sanitizer_install_malloc_and_free_hooks)
        __sanitizer_install_malloc_and_free_hooks(NULL, on_sanitizer_free);
}

#else

// MARK: Normal mode: malloc, posix_memalign and free

extern void *__libc_malloc(size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *block);

/// Records `block` if it is a Swift object or task being allocated. The header word is
/// zeroed first, so a scan that reads it before the runtime writes the metadata sees 0.
static inline void note_block(void *block, uintptr_t caller, uintptr_t caller_of_caller) {
    uintptr_t flags;
    if (in_range(slow_alloc_range, caller)) {
        if (!in_range(alloc_object_range, caller_of_caller)) return;
        flags = RG_ENTRY_OBJECT;
    } else if (in_range(task_create_range, caller)) {
        flags = RG_ENTRY_TASK;
    } else {
        return;
    }
    *(volatile uintptr_t *)block = 0;
    rg_table_insert((uintptr_t)block, flags);
}

// malloc_recording and posix_memalign read their own return addresses, so no part of them
// may move to another function: in a release build clang's hot/cold splitting outlined the
// recording branch (marked unlikely) into `malloc.cold.1`, whose return address lies in malloc,
// and the census recorded nothing. LLVM never splits a noinline function.

/// malloc while recording. Reached by a guaranteed tail call (musttail, at every optimisation
/// level), so its return addresses are malloc's: 0 is malloc's caller, 1 that caller's caller.
__attribute__((noinline)) static void *malloc_recording(size_t size) {
    void *block = __libc_malloc(size);
    if (block && !rg_internal_depth) {
        uintptr_t caller = (uintptr_t)__builtin_return_address(0);
        // Only swift_slowAlloc's frame is known to have a frame pointer to read the next
        // return address through.
        uintptr_t above = in_range(slow_alloc_range, caller)
                              ? (uintptr_t)__builtin_return_address(1)
                              : 0;
        note_block(block, caller, above);
    }
    return block;
}

void *malloc(size_t size) {
    if (atomic_load_explicit(&recording, memory_order_relaxed))
        __attribute__((musttail)) return malloc_recording(size);
    // Not recording: a tail call to glibc (a load, a test and a jump per allocation).
    return __libc_malloc(size);
}

__attribute__((noinline)) int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return 22;
    void *block = __libc_memalign(alignment, size);
    if (!block) return 12;
    *result = block;
    if (__builtin_expect(atomic_load_explicit(&recording, memory_order_relaxed), 0) &&
        !rg_internal_depth) {
        uintptr_t caller = (uintptr_t)__builtin_return_address(0);
        uintptr_t above = in_range(slow_alloc_range, caller)
                              ? (uintptr_t)__builtin_return_address(1)
                              : 0;
        note_block(block, caller, above);
    }
    return 0;
}

void free(void *block) {
    // Forget before freeing: once glibc has the block, another thread may get it back. Until
    // the table's first insert there is nothing to forget: a load, a test and a jump.
    if (atomic_load_explicit(&rg_table_in_use, memory_order_relaxed) && block)
        rg_table_remove((uintptr_t)block);
    __libc_free(block);
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
