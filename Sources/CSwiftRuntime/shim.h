// The package's second door to C: four reference-counting entry points of the Swift runtime,
// which every Swift program links (libswiftCore). Declared here, not with `@_silgen_name`,
// because Swift reserves these names and warns that naming them from Swift is unpredictable.
//
// They are part of the runtime's stable ABI (swift/Runtime/HeapObject.h) and use the C calling
// convention. Only Sources/RetainGraph/ObjectPin.swift imports this module (the graph's other
// files go through `ObjectPin`); see it for why.

#ifndef RETAINGRAPH_CSWIFTRUNTIME_SHIM_H
#define RETAINGRAPH_CSWIFTRUNTIME_SHIM_H

/// Increments `object`'s unowned count, which keeps its memory (not the object) allocated;
/// returns `object`.
extern void *_Nonnull swift_unownedRetain(void *_Nonnull object);

/// Decrements `object`'s unowned count; frees its memory once the object is dead and no
/// unowned count is left.
extern void swift_unownedRelease(void *_Nonnull object);

/// Increments `object`'s strong count unless the object began deinitialising; returns
/// `object` if it did, NULL if not. Safe on a dead object whose memory an unowned count keeps.
extern void *_Nullable swift_tryRetain(void *_Nonnull object);

/// Whether `object` began deinitialising (its strong count reached zero). Reads the counts
/// without changing them. Safe on a dead object whose memory an unowned count keeps.
extern _Bool swift_isDeallocating(void *_Nonnull object);

#endif
