// Shared between the fork (heap_dump.c) and the child's writer (heap_dump_child.c).
#ifndef RETAINGRAPH_HEAP_DUMP_INTERNAL_H
#define RETAINGRAPH_HEAP_DUMP_INTERNAL_H

#include <stdint.h>
#include <time.h>

/// What the parent knows at the fork and the child writes down.
struct rg_dump_context {
    int fd;
    int32_t process_id;
    int32_t parent_id;
    /// The forking thread's id in the parent, and its name.
    int32_t thread_id;
    char thread_name[16];
    struct timespec time;
    /// The forking thread's registers in `user_regs_struct` order, as the child has them.
    uint64_t registers[27];
};

/// Writes the core to context->fd and exits with 0, or with the errno of the step that failed.
_Noreturn void rg_dump_child(const struct rg_dump_context *context);

#endif
