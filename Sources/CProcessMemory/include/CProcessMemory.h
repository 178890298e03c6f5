// RuntimeLayouts' door to C: this process's own memory, read safely, and the names of data
// symbols in its loaded images, read from their symbol tables (see process_memory.c). Only
// Sources/RuntimeLayouts/ProcessMemory.swift imports this module.
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

/// The name of the symbol whose storage contains `address` (the dynamic symbol table first,
/// then the image's own .symtab), or NULL; its start in `symbol_start`. The returned string
/// lives for the process.
const char *_Nullable rg_symbol_at(uintptr_t address, uintptr_t *_Nonnull symbol_start);

/// The address of the symbol called `name` in the image that contains `address` (its full
/// .symtab, local symbols included: an executable's metadata accessors are not exported), or
/// NULL. A linear search of the image's table: call it once per name.
const void *_Nullable rg_symbol_named(uintptr_t address, const char *_Nonnull name);

#endif
