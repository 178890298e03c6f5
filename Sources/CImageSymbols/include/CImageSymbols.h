// RuntimeLayouts' door to C: the names of data symbols in the loaded images, read from their
// symbol tables (see image_symbols.c). Only Sources/RuntimeLayouts/ImageSymbols.swift imports
// this module.
//
// Nothing here is stable API: the Swift module RuntimeLayouts is internal to the package.

#ifndef RETAINGRAPH_CIMAGESYMBOLS_H
#define RETAINGRAPH_CIMAGESYMBOLS_H

#include <stdint.h>

/// The name of the symbol whose storage contains `address` (the dynamic symbol table first,
/// then the image's own .symtab), or NULL; its start in `symbol_start`. The returned string
/// lives for the process.
const char *_Nullable rg_symbol_at(uintptr_t address, uintptr_t *_Nonnull symbol_start);

/// The address of the symbol called `name` in the image that contains `address` (its full
/// .symtab, local symbols included: an executable's metadata accessors are not exported), or
/// NULL. A linear search of the image's table: call it once per name.
const void *_Nullable rg_symbol_named(uintptr_t address, const char *_Nonnull name);

#endif
