// The door to modules a program may or may not link: RetainGraph depends on none of them, but
// uses them when the program links them. Each is found through a weak symbol, resolved by the
// static linker when the module's object code is in the binary and null otherwise (no dlsym:
// SwiftPM binaries do not export their symbols dynamically). Only
// Sources/RetainGraph/LinkedModules.swift imports this module.

#ifndef RETAINGRAPH_CLINKEDMODULES_SHIM_H
#define RETAINGRAPH_CLINKEDMODULES_SHIM_H

/// Defined by HeapCensus (`@_cdecl`): a retained, opaque `LinkedDiscoverer` box holding the
/// census's discoverer.
extern void *_Nullable rg_linked_census_discoverer(void) __attribute__((weak));

/// The census's discoverer box when HeapCensus is linked into this binary, NULL otherwise.
static inline void *_Nullable rg_census_discoverer_if_linked(void) {
    return rg_linked_census_discoverer ? rg_linked_census_discoverer() : (void *)0;
}

#endif
