// Caller recognition: the census knows a block is a Swift object by who asked for it. Every
// Swift heap block is allocated by swift_slowAlloc (malloc, or posix_memalign when
// over-aligned), and a Swift *object* by swift_allocObject calling swift_slowAlloc; async
// tasks by swift_task_create_common's own call to malloc. This file finds those functions'
// extents once, and holds the census's switches (recording, creation tracing) and the
// creation hook, which it hands the object's creation trace (read from frame pointers).
//
// What was checked on Linux x86_64 with Swift 6.3.1: swift_slowAlloc calls malloc@plt (or
// posix_memalign), swift_allocObject calls swift_slowAlloc, and both keep frame pointers, so
// inside malloc `__builtin_return_address(0)` lies in swift_slowAlloc for every Swift heap block
// and `__builtin_return_address(1)` in swift_allocObject exactly for objects
// (`UnsafeMutablePointer.allocate` also goes through swift_slowAlloc, and is told apart).

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"
#include "census_stacks.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>

RG_HIDDEN rg_range_t rg_slow_alloc_range, rg_alloc_object_range, rg_task_create_range;
static _Atomic(int) census_mode;
RG_HIDDEN _Atomic(int) rg_recording;
RG_HIDDEN _Atomic(int) rg_tracing;
typedef void (*creation_hook_fn)(void *, const void *, size_t, const uintptr_t *, size_t);
static _Atomic(creation_hook_fn) creation_hook;

/// The extent of an exported function of the image `handle` (or of any image when NULL).
static rg_range_t function_range(void *handle, const char *name) {
    rg_range_t range = {0, 0};
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
    rg_slow_alloc_range = function_range(core, "swift_slowAlloc");
    rg_alloc_object_range = function_range(core, "swift_allocObject");
    rg_task_create_range = function_range(concurrency, "swift_task_create_common");
    if (core) dlclose(core);
    if (concurrency) dlclose(concurrency);
    rg_internal_depth--;
#ifdef RG_UNDER_SANITIZER
    mode = RG_MODE_SANITIZER;
#else
    mode = rg_slow_alloc_range.length && rg_alloc_object_range.length ? RG_MODE_MALLOC
                                                                      : RG_MODE_UNAVAILABLE;
#endif
    atomic_store_explicit(&census_mode, mode, memory_order_release);
    return mode;
}

int rg_census_mode(void) { return atomic_load_explicit(&census_mode, memory_order_acquire); }

/// Whether recording began in the constructor and never stopped since.
static _Atomic(int) since_launch;

void rg_census_set_recording(bool on) {
    if (on && rg_census_prepare() == RG_MODE_UNAVAILABLE) return;
    rg_lock_switches(); // the flag and malloc's target agree
    if (!on) atomic_store_explicit(&since_launch, 0, memory_order_relaxed);
    atomic_store_explicit(&rg_recording, on, memory_order_release);
    rg_switch_malloc();
    rg_unlock_switches();
}

RG_HIDDEN void rg_census_mark_recording_since_launch(void) {
    if (rg_census_is_recording()) atomic_store_explicit(&since_launch, 1, memory_order_relaxed);
}

bool rg_census_recorded_since_launch(void) {
    return atomic_load_explicit(&since_launch, memory_order_relaxed) && rg_census_is_recording();
}

bool rg_census_is_recording(void) {
    return atomic_load_explicit(&rg_recording, memory_order_relaxed);
}

void rg_census_set_creation_hook(creation_hook_fn hook) {
    atomic_store_explicit(&creation_hook, hook, memory_order_release);
}

void rg_census_set_tracing(bool on) {
    rg_lock_switches(); // the flag and malloc's target agree (a traced recording has its own)
    atomic_store_explicit(&rg_tracing, on, memory_order_release);
    rg_switch_malloc();
    rg_unlock_switches();
}

/// Calls the creation hook for a new object (`metadata` NULL when not known yet) with its
/// creation trace, read from frame pointers above `frame` (the allocating function's frame
/// record), unless this thread is running census code. Outside every census lock; no unwinder
/// (libunwind takes its own lock, then the loader's: this may run under the loader's lock).
__attribute__((noinline)) void rg_note_creation(void *object, const void *metadata, size_t size,
                                                uintptr_t frame) {
    if (rg_internal_depth) return;
    creation_hook_fn hook = atomic_load_explicit(&creation_hook, memory_order_acquire);
    if (!hook) return;
    uintptr_t frames[RG_TRACE_DEPTH];
    size_t depth = rg_walk_frames(frame, frames, RG_TRACE_DEPTH);
    rg_internal_depth++;
    hook(object, metadata, size, frames, depth);
    rg_internal_depth--;
}
