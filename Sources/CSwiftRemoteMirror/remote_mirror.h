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

/// `swift_async_task_info_t` of Swift 6.3 (its C structure, checked against the library's
/// `swift_reflection_asyncTaskInfo`: 96 bytes, the fields at the offsets below). The two arrays
/// belong to the context and stay valid only until its next call.
typedef struct {
    const char *error;
    unsigned kind;
    unsigned enqueue_priority;
    _Bool is_child_task;
    _Bool is_future;
    _Bool is_group_child_task;
    _Bool is_async_let_task;
    _Bool is_synchronous_start_task;
    unsigned max_priority;
    _Bool is_cancelled;
    _Bool is_status_record_locked;
    _Bool is_escalated;
    _Bool has_is_running;
    _Bool is_running;
    _Bool is_enqueued;
    _Bool has_thread_port;
    uint32_t thread_port;
    uint64_t id;
    rg_address run_job;
    rg_address allocator_slab;
    unsigned child_task_count;
    const rg_address *child_tasks;
    unsigned backtrace_count;
    const rg_address *backtrace;
} rg_task_info;

/// `swift_actor_info_t` of Swift 6.3 (32 bytes).
typedef struct {
    const char *error;
    uint8_t state;
    _Bool is_distributed_remote;
    _Bool is_priority_escalated;
    uint8_t max_priority;
    rg_address first_job;
    _Bool has_thread_port;
    uint32_t thread_port;
} rg_actor_info;

_Static_assert(sizeof(rg_task_info) == 96, "swift_async_task_info_t of Swift 6.3");
_Static_assert(sizeof(rg_actor_info) == 32, "swift_actor_info_t of Swift 6.3");

/// `swift_async_task_allocation_chunk_t`: a used range of a task allocator's slab.
typedef struct {
    rg_address start;
    unsigned length;
    uint32_t kind;
} rg_slab_chunk;

/// `swift_async_task_slab_allocations_return_t`: one slab of a task's allocator (where its
/// async frames live): its used ranges and the next slab. `chunks` belongs to the context until
/// its next call.
typedef struct {
    const char *error;
    rg_address next_slab;
    unsigned slab_size;
    unsigned chunk_count;
    const rg_slab_chunk *chunks;
} rg_slab_allocations;

_Static_assert(sizeof(rg_slab_chunk) == 16, "swift_async_task_allocation_chunk_t");
_Static_assert(sizeof(rg_slab_allocations) == 32, "swift_async_task_slab_allocations_return_t");

typedef rg_slab_allocations (*rg_slab_allocations_fn)(void *, rg_address);
typedef rg_task_info (*rg_task_info_fn)(void *, rg_address);
typedef rg_actor_info (*rg_actor_info_fn)(void *, rg_address);
typedef rg_address (*rg_next_job_fn)(void *, rg_address);

/// `swift_reflection_asyncTaskInfo`: a task's flags, id, resume function, children and async
/// backtrace (the resume functions of its suspended frames), or an error.
static inline rg_task_info rg_mirror_task_info(void *function, void *context, rg_address task) {
    return ((rg_task_info_fn)function)(context, task);
}
/// `swift_reflection_asyncTaskSlabAllocations`: the used ranges of the slab at `slab`.
static inline rg_slab_allocations rg_mirror_slab_allocations(
    void *function, void *context, rg_address slab) {
    return ((rg_slab_allocations_fn)function)(context, slab);
}
/// `swift_reflection_actorInfo`: a default actor's state and the first job of its queue.
static inline rg_actor_info rg_mirror_actor_info(void *function, void *context, rg_address actor) {
    return ((rg_actor_info_fn)function)(context, actor);
}
/// `swift_reflection_nextJob`: the job after `job` in an actor's queue, or 0.
static inline rg_address rg_mirror_next_job(void *function, void *context, rg_address job) {
    return ((rg_next_job_fn)function)(context, job);
}

#endif
