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

/// One line of /proc/self/maps, parsed in place (the path points into the text).
struct mapping {
    unsigned long start, end, offset, inode;
    char readable, writable, executable, shared;
    const char *path;
    unsigned long path_length;
};

#define RG_MAPS_CAPACITY (4u << 20)
#define RG_PAGE 4096UL

// In heap_dump_maps.c; hidden: not exported from libHeapDumpsPreload.so.
#pragma GCC visibility push(hidden)
/// The child's copy of /proc/self/maps, read once.
extern char *const rg_maps_text;
extern unsigned long rg_maps_length;
/// The other threads' stacks, `START END THREADPOINTER` lines in hex.
extern char rg_stacks_text[1 << 16];
extern unsigned long rg_stacks_length;
unsigned long rg_put_hex_text(char *to, unsigned long value);
unsigned long rg_put_decimal_text(char *to, unsigned long value, int width);
/// Reads a whole file with open/read; its length, or -1 (errno set).
long rg_read_file(const char *path, void *buffer, unsigned long capacity);
/// Parses the line at *at and advances past it; 0 at the end of the text.
int rg_next_mapping(const char **at, struct mapping *m);
int rg_path_is(const struct mapping *m, const char *name);
int rg_is_file(const struct mapping *m);
/// Whether the core has a segment for the mapping (not [vvar], [vsyscall]).
int rg_is_included(const struct mapping *m);
void rg_find_relocated_ranges(void);
/// How many bytes of the mapping the core holds.
unsigned long rg_dump_size(const struct mapping *m);
/// Lists the stacks of the threads other than the one whose stack holds `own_stack`.
void rg_find_other_stacks(unsigned long own_stack);

/// Writes the core to context->fd and exits with 0, or with the errno of the step that failed.
_Noreturn void rg_dump_child(const struct rg_dump_context *context);
#pragma GCC visibility pop

#endif
