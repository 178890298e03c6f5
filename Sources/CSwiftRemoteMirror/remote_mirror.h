// C door: the few entry points of the toolchain's libswiftRemoteMirror.so that the attach
// uses, as types and call trampolines. The library is loaded with `dlopen` at run time (it
// ships with every Swift toolchain, but is not linked), so this header declares no function of
// it: Swift passes each `dlsym` result to the trampoline of its signature. The structures
// mirror SwiftRemoteMirrorTypes.h of Swift 6.3 (its reflection version 3). Every call into the
// library runs under a guard that contains its aborts and faults (`RG_MIRROR_GUARDED`). Nothing
// here is stable API; only one Swift file (Sources/ProcessAttach/Mirror/RemoteMirror.swift) imports
// this module.

#ifndef RETAINGRAPH_CSWIFTREMOTEMIRROR_H
#define RETAINGRAPH_CSWIFTREMOTEMIRROR_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

// Containment of libswiftRemoteMirror's own failures. Its demangler ends the process with
// `abort()` when a type reference built from the target's words cannot be named (a fatal
// assertion, not an error it returns), and a read it gets wrong can fault inside it. Every call
// below runs under a guard: while the calling thread is inside the library, SIGABRT (and a
// SIGSEGV or SIGBUS whose instruction is the library's) jumps back to the call, which returns
// zeros, and `rg_mirror_guard_failed_signal` says which signal it was. The context that failed may
// be inconsistent: the caller never uses it again. Any other signal, or one on another thread,
// goes to the handler that was installed before.

/// The guard's state, in function statics (the Swift compiler emits a function's statics with
/// the function; a header's own static data it does not emit): where the library's code is, and
/// the dispositions before the guard's.
typedef struct {
    uintptr_t code_start, code_end;
    struct sigaction previous_abort, previous_segv, previous_bus;
} rg_mirror_guard_state;

static inline rg_mirror_guard_state *rg_mirror_guard(void) {
    static rg_mirror_guard_state state;
    return &state;
}

/// A thread's: where it returns to when the library fails (0: outside the library), and the
/// signal that ended its last call inside the library (0: none).
typedef struct {
    sigjmp_buf *jump;
    int signal;
} rg_mirror_guard_thread_state;

static inline rg_mirror_guard_thread_state *rg_mirror_guard_thread(void) {
    static __thread rg_mirror_guard_thread_state state;
    return &state;
}

static inline struct sigaction *rg_mirror_guard_previous(int signal) {
    rg_mirror_guard_state *state = rg_mirror_guard();
    return signal == SIGABRT ? &state->previous_abort
        : signal == SIGSEGV ? &state->previous_segv : &state->previous_bus;
}

static void rg_mirror_guard_handler(int signal, siginfo_t *info, void *context) {
    (void)info;
    rg_mirror_guard_thread_state *thread = rg_mirror_guard_thread();
    sigjmp_buf *jump = thread->jump;
    if (jump) {
        int inside = signal == SIGABRT;
#if defined(__x86_64__)
        if (!inside && context) {
            // `uc_mcontext.gregs[REG_RIP]`: the faulting instruction.
            uintptr_t instruction = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[16];
            inside = instruction >= rg_mirror_guard()->code_start
                && instruction < rg_mirror_guard()->code_end;
        }
#endif
        if (inside) {
            thread->jump = 0;
            thread->signal = signal;
            siglongjmp(*jump, 1);
        }
    }
    // Not the library's: the previous disposition takes it (a fault happens again on return;
    // an abort is raised again, delivered once this handler returns).
    sigaction(signal, rg_mirror_guard_previous(signal), 0);
    if (signal == SIGABRT) raise(SIGABRT);
}

/// Installs the guard's handler for SIGABRT, SIGSEGV and SIGBUS (keeping each disposition it
/// replaces, unless the guard's own is already there), gives the calling thread an alternate
/// signal stack when it has none (a runaway recursion in the library overflows the thread's
/// stack), and records where the library's code is.
static inline void rg_mirror_guard_install(uintptr_t code_start, uintptr_t code_end) {
    rg_mirror_guard()->code_start = code_start;
    rg_mirror_guard()->code_end = code_end;
    int signals[3] = {SIGABRT, SIGSEGV, SIGBUS};
    for (int index = 0; index < 3; index++) {
        struct sigaction current;
        if (sigaction(signals[index], 0, &current) != 0) continue;
        if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == rg_mirror_guard_handler)
            continue;
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_sigaction = rg_mirror_guard_handler;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        *rg_mirror_guard_previous(signals[index]) = current;
        sigaction(signals[index], &action, 0);
    }
    stack_t existing;
    if (sigaltstack(0, &existing) == 0 && (existing.ss_flags & SS_DISABLE)) {
        stack_t alternate;
        alternate.ss_size = 1 << 16;
        alternate.ss_sp = malloc(alternate.ss_size);  // kept for the thread's life
        alternate.ss_flags = 0;
        if (alternate.ss_sp) sigaltstack(&alternate, 0);
    }
}

/// The signal that ended the calling thread's last guarded call inside the library, or 0;
/// cleared by the call.
static inline int rg_mirror_guard_failed_signal(void) {
    int signal = rg_mirror_guard_thread()->signal;
    rg_mirror_guard_thread()->signal = 0;
    return signal;
}

/// After a jump out of the handler: the signal stays blocked (the jump does not restore the
/// mask, which costs a system call on every guarded call): unblocked here.
static inline void rg_mirror_guard_recover(void) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGABRT);
    sigaddset(&signals, SIGSEGV);
    sigaddset(&signals, SIGBUS);
    sigprocmask(SIG_UNBLOCK, &signals, 0);
}

/// Runs `call` (an expression of type `type`) under the guard; returns `failed` when the
/// library aborted or faulted.
#define RG_MIRROR_GUARDED(type, failed, call)                                                      \
    do {                                                                                           \
        sigjmp_buf rg_env;                                                                         \
        if (sigsetjmp(rg_env, 0) != 0) {                                                           \
            rg_mirror_guard_recover();                                                             \
            type rg_failed = failed;                                                               \
            return rg_failed;                                                                      \
        }                                                                                          \
        rg_mirror_guard_thread()->jump = &rg_env;                                                  \
        type rg_result = call;                                                                     \
        rg_mirror_guard_thread()->jump = 0;                                                        \
        return rg_result;                                                                          \
    } while (0)

static inline void *rg_mirror_create(
    void *function, void *reader, rg_query_layout query, rg_free_bytes free_bytes,
    rg_read_bytes read_bytes, rg_string_length string_length, rg_symbol_address symbol) {
    return ((rg_create_fn)function)(reader, query, free_bytes, read_bytes, string_length, symbol);
}
static inline void rg_mirror_destroy(void *function, void *context) {
    ((rg_destroy_fn)function)(context);
}
static inline int rg_mirror_add_mapping_call(void *function, void *context, rg_mapping_info info) {
    ((rg_add_mapping_fn)function)(context, info);
    return 1;
}
/// `swift_reflection_addReflectionMappingInfo`; 0 when the library failed.
static inline int rg_mirror_add_mapping(void *function, void *context, rg_mapping_info info) {
    RG_MIRROR_GUARDED(int, 0, rg_mirror_add_mapping_call(function, context, info));
}
static inline rg_typeref rg_mirror_typeref_for_metadata(
    void *function, void *context, uintptr_t metadata) {
    RG_MIRROR_GUARDED(rg_typeref, 0, ((rg_typeref_for_metadata_fn)function)(context, metadata));
}
static inline rg_typeinfo rg_mirror_info_for_address(
    void *function, void *context, uintptr_t address) {
    RG_MIRROR_GUARDED(rg_typeinfo, {0}, ((rg_info_for_address_fn)function)(context, address));
}
static inline rg_childinfo rg_mirror_child_of_address(
    void *function, void *context, uintptr_t address, unsigned index) {
    RG_MIRROR_GUARDED(
        rg_childinfo, {0}, ((rg_child_of_address_fn)function)(context, address, index));
}
static inline rg_typeinfo rg_mirror_info_for_typeref(
    void *function, void *context, rg_typeref typeref) {
    RG_MIRROR_GUARDED(rg_typeinfo, {0}, ((rg_info_for_typeref_fn)function)(context, typeref));
}
static inline rg_childinfo rg_mirror_child_of_typeref(
    void *function, void *context, rg_typeref typeref, unsigned index) {
    RG_MIRROR_GUARDED(
        rg_childinfo, {0}, ((rg_child_of_typeref_fn)function)(context, typeref, index));
}
static inline char *rg_mirror_copy_name(void *function, void *context, rg_typeref typeref) {
    RG_MIRROR_GUARDED(char *, 0, ((rg_copy_name_fn)function)(context, typeref));
}
/// `swift_reflection_copyNameForTypeRef`: the type's mangled name (when `mangled`), malloc'ed.
static inline char *rg_mirror_copy_mangled_name(
    void *function, void *context, rg_typeref typeref) {
    RG_MIRROR_GUARDED(char *, 0, ((rg_copy_name_mangled_fn)function)(context, typeref, 1));
}
/// `swift_reflection_typeRefForMangledTypeName`: the type a mangled name (here, in a section the
/// context was given) names, or 0.
static inline rg_typeref rg_mirror_typeref_for_mangled(
    void *function, void *context, const char *name, uint64_t length) {
    RG_MIRROR_GUARDED(rg_typeref, 0, ((rg_typeref_for_mangled_fn)function)(context, name, length));
}
static inline unsigned rg_mirror_generic_count(void *function, rg_typeref typeref) {
    RG_MIRROR_GUARDED(unsigned, 0, ((rg_generic_count_fn)function)(typeref));
}
static inline rg_typeref rg_mirror_generic_argument(
    void *function, rg_typeref typeref, unsigned index) {
    RG_MIRROR_GUARDED(rg_typeref, 0, ((rg_generic_argument_fn)function)(typeref, index));
}
static inline int rg_mirror_project_existential(
    void *function, void *context, rg_address address, rg_typeref typeref,
    rg_typeref *instance, rg_address *start) {
    RG_MIRROR_GUARDED(
        int, 0, ((rg_project_existential_fn)function)(context, address, typeref, instance, start));
}
static inline int rg_mirror_project_enum(
    void *function, void *context, rg_address address, rg_typeref typeref, int *index) {
    RG_MIRROR_GUARDED(int, 0, ((rg_project_enum_fn)function)(context, address, typeref, index));
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
    RG_MIRROR_GUARDED(
        rg_task_info, {"libswiftRemoteMirror failed"}, ((rg_task_info_fn)function)(context, task));
}
/// `swift_reflection_asyncTaskSlabAllocations`: the used ranges of the slab at `slab`.
static inline rg_slab_allocations rg_mirror_slab_allocations(
    void *function, void *context, rg_address slab) {
    RG_MIRROR_GUARDED(
        rg_slab_allocations, {"libswiftRemoteMirror failed"},
        ((rg_slab_allocations_fn)function)(context, slab));
}
/// `swift_reflection_actorInfo`: a default actor's state and the first job of its queue.
static inline rg_actor_info rg_mirror_actor_info(void *function, void *context, rg_address actor) {
    RG_MIRROR_GUARDED(
        rg_actor_info, {"libswiftRemoteMirror failed"},
        ((rg_actor_info_fn)function)(context, actor));
}
/// `swift_reflection_nextJob`: the job after `job` in an actor's queue, or 0.
static inline rg_address rg_mirror_next_job(void *function, void *context, rg_address job) {
    RG_MIRROR_GUARDED(rg_address, 0, ((rg_next_job_fn)function)(context, job));
}

#endif
