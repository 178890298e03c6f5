// C door: the few entry points of the toolchain's libswiftRemoteMirror.so that the attach
// uses, as types and call trampolines. The library is loaded with `dlopen` at run time (it
// ships with every Swift toolchain, but is not linked), so this header declares no function of
// it: Swift passes each `dlsym` result to the trampoline of its signature. The structures
// mirror SwiftRemoteMirrorTypes.h of Swift 6.3 (its reflection version 3). Nothing here is
// stable API; only one Swift file (Sources/ProcessAttach/RemoteMirror.swift) imports this
// module.

#ifndef RETAINGRAPH_CSWIFTREMOTEMIRROR_H
#define RETAINGRAPH_CSWIFTREMOTEMIRROR_H

#include <stdint.h>

typedef uint64_t rg_typeref;
typedef uint64_t rg_address;

/// `swift_typeinfo_t`: the layout of a type or instance.
typedef struct {
    uint32_t kind;
    unsigned size;
    unsigned alignment;
    unsigned stride;
    unsigned field_count;
} rg_typeinfo;

/// `swift_childinfo_t`: one field, capture or enum case.
typedef struct {
    const char *name;
    unsigned offset;
    uint32_t kind;
    rg_typeref typeref;
} rg_childinfo;

/// `swift_reflection_section_mapping_t`: a section's bytes here and its address there.
typedef struct {
    const void *local_begin;
    const void *local_end;
    uintptr_t remote_start;
    uintptr_t remote_size;
} rg_section_mapping;

/// `swift_reflection_mapping_info_t`: an image's six reflection sections.
typedef struct {
    rg_section_mapping field;
    rg_section_mapping associated_types;
    rg_section_mapping builtin_types;
    rg_section_mapping capture;
    rg_section_mapping type_references;
    rg_section_mapping reflection_strings;
} rg_mapping_info;

/// The memory reader's callbacks (MemoryReaderInterface.h).
typedef int (*rg_query_layout)(void *reader, int query, void *in, void *out);
typedef void (*rg_free_bytes)(void *reader, const void *bytes, void *context);
typedef const void *(*rg_read_bytes)(
    void *reader, rg_address address, uint64_t size, void **free_context);
typedef uint64_t (*rg_string_length)(void *reader, rg_address address);
typedef rg_address (*rg_symbol_address)(void *reader, const char *name, uint64_t length);

typedef void *(*rg_create_fn)(
    void *, rg_query_layout, rg_free_bytes, rg_read_bytes, rg_string_length, rg_symbol_address);
typedef void (*rg_destroy_fn)(void *);
typedef void (*rg_add_mapping_fn)(void *, rg_mapping_info);
typedef rg_typeref (*rg_typeref_for_metadata_fn)(void *, uintptr_t);
typedef rg_typeinfo (*rg_info_for_address_fn)(void *, uintptr_t);
typedef rg_childinfo (*rg_child_of_address_fn)(void *, uintptr_t, unsigned);
typedef rg_typeinfo (*rg_info_for_typeref_fn)(void *, rg_typeref);
typedef rg_childinfo (*rg_child_of_typeref_fn)(void *, rg_typeref, unsigned);
typedef char *(*rg_copy_name_fn)(void *, rg_typeref);
typedef char *(*rg_copy_name_mangled_fn)(void *, rg_typeref, _Bool);
typedef rg_typeref (*rg_typeref_for_mangled_fn)(void *, const char *, uint64_t);
typedef unsigned (*rg_generic_count_fn)(rg_typeref);
typedef rg_typeref (*rg_generic_argument_fn)(rg_typeref, unsigned);
typedef int (*rg_project_existential_fn)(
    void *, rg_address, rg_typeref, rg_typeref *, rg_address *);
typedef int (*rg_project_enum_fn)(void *, rg_address, rg_typeref, int *);

static inline void *rg_mirror_create(
    void *function, void *reader, rg_query_layout query, rg_free_bytes free_bytes,
    rg_read_bytes read_bytes, rg_string_length string_length, rg_symbol_address symbol) {
    return ((rg_create_fn)function)(reader, query, free_bytes, read_bytes, string_length, symbol);
}
static inline void rg_mirror_destroy(void *function, void *context) {
    ((rg_destroy_fn)function)(context);
}
static inline void rg_mirror_add_mapping(void *function, void *context, rg_mapping_info info) {
    ((rg_add_mapping_fn)function)(context, info);
}
static inline rg_typeref rg_mirror_typeref_for_metadata(
    void *function, void *context, uintptr_t metadata) {
    return ((rg_typeref_for_metadata_fn)function)(context, metadata);
}
static inline rg_typeinfo rg_mirror_info_for_address(
    void *function, void *context, uintptr_t address) {
    return ((rg_info_for_address_fn)function)(context, address);
}
static inline rg_childinfo rg_mirror_child_of_address(
    void *function, void *context, uintptr_t address, unsigned index) {
    return ((rg_child_of_address_fn)function)(context, address, index);
}
static inline rg_typeinfo rg_mirror_info_for_typeref(
    void *function, void *context, rg_typeref typeref) {
    return ((rg_info_for_typeref_fn)function)(context, typeref);
}
static inline rg_childinfo rg_mirror_child_of_typeref(
    void *function, void *context, rg_typeref typeref, unsigned index) {
    return ((rg_child_of_typeref_fn)function)(context, typeref, index);
}
static inline char *rg_mirror_copy_name(void *function, void *context, rg_typeref typeref) {
    return ((rg_copy_name_fn)function)(context, typeref);
}
/// `swift_reflection_copyNameForTypeRef`: the type's mangled name (when `mangled`), malloc'ed.
static inline char *rg_mirror_copy_mangled_name(
    void *function, void *context, rg_typeref typeref) {
    return ((rg_copy_name_mangled_fn)function)(context, typeref, 1);
}
/// `swift_reflection_typeRefForMangledTypeName`: the type a mangled name (here, in a section the
/// context was given) names, or 0.
static inline rg_typeref rg_mirror_typeref_for_mangled(
    void *function, void *context, const char *name, uint64_t length) {
    return ((rg_typeref_for_mangled_fn)function)(context, name, length);
}
static inline unsigned rg_mirror_generic_count(void *function, rg_typeref typeref) {
    return ((rg_generic_count_fn)function)(typeref);
}
static inline rg_typeref rg_mirror_generic_argument(
    void *function, rg_typeref typeref, unsigned index) {
    return ((rg_generic_argument_fn)function)(typeref, index);
}
static inline int rg_mirror_project_existential(
    void *function, void *context, rg_address address, rg_typeref typeref,
    rg_typeref *instance, rg_address *start) {
    return ((rg_project_existential_fn)function)(context, address, typeref, instance, start);
}
static inline int rg_mirror_project_enum(
    void *function, void *context, rg_address address, rg_typeref typeref, int *index) {
    return ((rg_project_enum_fn)function)(context, address, typeref, index);
}

#endif
