// RuntimeLayouts' door to C: this process's own memory, read safely (see process_memory.c), and
// loads ThreadSanitizer does not instrument. Only
// Sources/RuntimeLayouts/Reading/ProcessMemoryDoor.swift imports this module.
//
// Nothing here is stable API: the Swift module RuntimeLayouts is internal to the package.

#ifndef RETAINGRAPH_CPROCESSMEMORY_H
#define RETAINGRAPH_CPROCESSMEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Whether the `size` bytes at `address` (at most 256) can be read without a fault, asked of
/// the kernel (process_vm_readv on this very process reports an unmapped range as an error).
bool rg_memory_is_readable(uintptr_t address, size_t size);

/// A load of memory another thread may be writing, which ThreadSanitizer must not instrument:
/// the census's scan reads live objects whose own threads may write them (a benign race by
/// design; the object cannot be freed meanwhile), and a stopped process's copy is read the same
/// way. Never `always_inline`: inlined into Swift compiled with `-sanitize=thread`, the load
/// would become the caller's and be instrumented (the clang importer does not see the sanitizer);
/// as a call it stays uninstrumented. An optimized build inlines it where no sanitizer is on.
__attribute__((no_sanitize("thread", "address"))) static inline uintptr_t
rg_load_word(uintptr_t address) {
    return *(const volatile uintptr_t *)address;
}

/// Asks the processor to bring the cache line at `address` in, for a load soon: a hint, which
/// never faults whatever the address, and which no sanitizer sees as an access.
static inline void rg_prefetch(uintptr_t address) {
    __builtin_prefetch((const void *)address, 0, 3);
}

/// Copies `size` bytes of memory another thread may be writing, uninstrumented.
void rg_copy_bytes(void *_Nonnull destination, uintptr_t source, size_t size);

#endif
