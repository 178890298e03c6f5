// C blocks on the heap, in both modes: a block copied to the heap (_Block_copy) is how
// libdispatch keeps a dispatch source's handler and the work submitted to a queue (and the Swift
// closure inside), so the census records heap blocks as holders it can name, and reads their
// captured variables through the Blocks ABI.

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdatomic.h>

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

__attribute__((no_sanitize("thread", "address"))) size_t
rg_census_block_info(const void *block, size_t *capture_end) {
    const char *bytes = block;
    int32_t flags = *(const volatile int32_t *)(bytes + 8);
    const uintptr_t *descriptor = *(const uintptr_t *const volatile *)(bytes + 24);
    size_t size = descriptor && (uintptr_t)descriptor >= 4096 ? descriptor[1] : 32;
    size_t usable = malloc_usable_size((void *)block);
    *capture_end = size < usable ? size : usable;
    return ((size_t)(flags & 0xffff) + 1) / 2;
}
