// Shared between the census's two C files; not part of the module's header.
#ifndef RETAINGRAPH_CHEAPCENSUS_INTERNAL_H
#define RETAINGRAPH_CHEAPCENSUS_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

/// Symbols the census's assembly names: PC-relative references within the image.
#define RG_HIDDEN __attribute__((visibility("hidden")))

/// Records a block (address | flags); never calls malloc.
void rg_table_insert(uintptr_t address, uintptr_t flags);
/// Forgets a block if it is recorded; never calls malloc.
void rg_table_remove(uintptr_t address);
/// Set (for good) by the first table growth, before the first entry: until then `free` has
/// nothing to forget and skips the table. A block can be in the table only if its insert finished before its free,
/// so a free that reads 0 here had nothing to remove.
extern RG_HIDDEN _Atomic(int) rg_table_in_use;
/// Called once, by the first table growth, before the first entry is stored: free must look at
/// the table from then on.
RG_HIDDEN void rg_table_now_in_use(void);
/// Non-zero while the calling thread runs census code whose allocations are not recorded.
extern __thread int rg_internal_depth;

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) ||                     \
    __has_feature(memory_sanitizer)
#define RG_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define RG_UNDER_SANITIZER 1
#endif

#endif
