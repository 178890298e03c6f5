// The forked child's view of its memory map: /proc/self/maps read once into a static buffer
// and parsed in place, each image's relocated read-only range (PT_GNU_RELRO) from its headers in
// memory, what the core holds of each mapping, and the other threads' stacks. Async-signal-safe
// only (see heap_dump_child.c).
#define _GNU_SOURCE
#include "heap_dump_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>


#define MAX_RELRO 4096
#define PAGE RG_PAGE

static char maps_text_storage[RG_MAPS_CAPACITY];
char *const rg_maps_text = maps_text_storage;
unsigned long rg_maps_length;
static struct { unsigned long start, end; } relro[MAX_RELRO];
static int relro_count;

// --- text, without stdio --------------------------------------------------------------------

unsigned long rg_put_hex_text(char *to, unsigned long value) {
    char digits[16];
    int n = 0;
    do { digits[n++] = "0123456789abcdef"[value & 15]; value >>= 4; } while (value != 0);
    for (int i = 0; i < n; i++) to[i] = digits[n - 1 - i];
    return (unsigned long)n;
}

unsigned long rg_put_decimal_text(char *to, unsigned long value, int width) {
    char digits[24];
    int n = 0;
    do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value != 0);
    while (n < width) digits[n++] = '0';
    for (int i = 0; i < n; i++) to[i] = digits[n - 1 - i];
    return (unsigned long)n;
}

/// Reads a whole file into `buffer` with open/read; its length, or -1 (errno set).
long rg_read_file(const char *path, void *buffer, unsigned long capacity) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    unsigned long used = 0;
    for (;;) {
        if (used == capacity) { close(fd); errno = EFBIG; return -1; }
        ssize_t n = read(fd, (char *)buffer + used, capacity - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { int saved = errno; close(fd); errno = saved; return -1; }
        if (n == 0) break;
        used += (unsigned long)n;
    }
    close(fd);
    return (long)used;
}

// --- the memory map -------------------------------------------------------------------------


static unsigned long parse_hex(const char **at, const char *end) {
    unsigned long value = 0;
    while (*at < end) {
        char c = **at;
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) break;
        value = value << 4 | (unsigned long)digit;
        (*at)++;
    }
    return value;
}

static void skip_spaces(const char **at, const char *end) {
    while (*at < end && **at == ' ') (*at)++;
}

/// Parses the line at *at; advances past it. Returns 0 at the end of the text.
int rg_next_mapping(const char **at, struct mapping *m) {
    const char *end = rg_maps_text + rg_maps_length;
    if (*at >= end) return 0;
    m->start = parse_hex(at, end);
    if (*at < end && **at == '-') (*at)++;
    m->end = parse_hex(at, end);
    skip_spaces(at, end);
    m->readable = end - *at > 3 && (*at)[0] == 'r';
    m->writable = end - *at > 3 && (*at)[1] == 'w';
    m->executable = end - *at > 3 && (*at)[2] == 'x';
    m->shared = end - *at > 3 && (*at)[3] == 's';
    while (*at < end && **at != ' ') (*at)++;
    skip_spaces(at, end);
    m->offset = parse_hex(at, end);
    skip_spaces(at, end);
    while (*at < end && **at != ' ') (*at)++;  // device
    skip_spaces(at, end);
    m->inode = 0;
    while (*at < end && **at >= '0' && **at <= '9') m->inode = m->inode * 10 + (unsigned long)(*(*at)++ - '0');
    skip_spaces(at, end);
    m->path = *at;
    while (*at < end && **at != '\n') (*at)++;
    m->path_length = (unsigned long)(*at - m->path);
    if (*at < end) (*at)++;
    return m->end > m->start;
}

int rg_path_is(const struct mapping *m, const char *name) {
    unsigned long n = strlen(name);
    return m->path_length == n && memcmp(m->path, name, n) == 0;
}

int rg_is_file(const struct mapping *m) { return m->path_length > 0 && m->path[0] == '/'; }

int rg_is_included(const struct mapping *m) {
    return !rg_path_is(m, "[vvar]") && !rg_path_is(m, "[vsyscall]") && !rg_path_is(m, "[vvar_vclock]");
}

/// Copies `count` bytes at `address` through a pipe, so that an unreadable address fails with
/// EFAULT instead of a fault. Returns 0 on success.
static int safe_copy(int pipe_fds[2], void *to, unsigned long address, unsigned long count) {
    ssize_t n = write(pipe_fds[1], (const void *)address, count);
    if (n != (ssize_t)count) {
        if (n > 0) (void)!read(pipe_fds[0], to, (size_t)n);
        return -1;
    }
    return read(pipe_fds[0], to, count) == (ssize_t)count ? 0 : -1;
}

/// Finds each image's relocated read-only range (PT_GNU_RELRO) from its headers in memory.
void rg_find_relocated_ranges(void) {
    int pipe_fds[2];
    relro_count = 0;
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return;
    const char *at = rg_maps_text;
    struct mapping m;
    while (rg_next_mapping(&at, &m)) {
        if (!rg_is_file(&m) || m.offset != 0 || !m.readable || relro_count == MAX_RELRO) continue;
        Elf64_Ehdr header;
        if (m.end - m.start < sizeof header) continue;
        if (safe_copy(pipe_fds, &header, m.start, sizeof header) != 0) continue;
        if (memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_phentsize != sizeof(Elf64_Phdr)
            || header.e_phnum == 0 || header.e_phnum > 64
            || header.e_phoff + header.e_phnum * sizeof(Elf64_Phdr) > m.end - m.start)
            continue;
        Elf64_Phdr headers[64];
        if (safe_copy(pipe_fds, headers, m.start + header.e_phoff,
                      header.e_phnum * sizeof(Elf64_Phdr)) != 0)
            continue;
        unsigned long bias = 0;
        int found = 0;
        for (int i = 0; i < header.e_phnum; i++) {
            if (headers[i].p_type == PT_LOAD && headers[i].p_offset == 0) {
                bias = m.start - (headers[i].p_vaddr & ~(PAGE - 1));
                found = 1;
                break;
            }
        }
        for (int i = 0; found && i < header.e_phnum && relro_count < MAX_RELRO; i++) {
            if (headers[i].p_type != PT_GNU_RELRO) continue;
            relro[relro_count].start = bias + headers[i].p_vaddr;
            relro[relro_count].end = bias + headers[i].p_vaddr + headers[i].p_memsz;
            relro_count++;
        }
    }
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

static int overlaps_relro(const struct mapping *m) {
    for (int i = 0; i < relro_count; i++) {
        if (relro[i].start < m->end && m->start < relro[i].end) return 1;
    }
    return 0;
}

/// How many bytes of mapping `m` the core holds.
unsigned long rg_dump_size(const struct mapping *m) {
    if (!m->readable || m->shared) return 0;
    if (!rg_is_file(m)) return m->end - m->start;  // anonymous, [heap], [stack], [vdso]
    if (m->writable || overlaps_relro(m)) return m->end - m->start;
    if (m->offset == 0) return PAGE;  // the ELF header and build id
    return 0;
}

// --- the other threads' stacks ----------------------------------------------------------------

char rg_stacks_text[1 << 16];
unsigned long rg_stacks_length;

/// glibc's `struct pthread` starts with its TCB: `tcb` (itself) at 0, `self` (itself) at 16. A
/// thread's sits at the top of its stack mapping, below its static TLS.
static unsigned long thread_pointer_in(unsigned long start, unsigned long end) {
    unsigned long low = end - start > (256UL << 10) ? end - (256UL << 10) : start;
    for (unsigned long at = (end - 24) & ~7UL; at >= low && at + 24 <= end; at -= 8) {
        const unsigned long *words = (const unsigned long *)at;
        if (words[0] == at && words[2] == at) return at;
    }
    return 0;
}

/// Lists the stacks of the threads other than the caller (whose stack holds `own_stack`): the
/// main thread's [stack], and each anonymous rw-p mapping right above an anonymous ---p guard
/// (glibc's thread stacks), with the thread pointer found at its top.
void rg_find_other_stacks(unsigned long own_stack) {
    rg_stacks_length = 0;
    const char *at = rg_maps_text;
    struct mapping m, previous = {0};
    int has_previous = 0;
    while (rg_next_mapping(&at, &m)) {
        int guarded = has_previous && previous.end == m.start && !previous.readable
            && !previous.writable && previous.path_length == 0;
        int is_stack = rg_path_is(&m, "[stack]")
            || (guarded && m.readable && m.writable && !m.shared && m.path_length == 0);
        if (is_stack && !(m.start <= own_stack && own_stack < m.end)
            && rg_stacks_length + 64 < sizeof rg_stacks_text)
        {
            unsigned long pointer = rg_path_is(&m, "[stack]") ? 0 : thread_pointer_in(m.start, m.end);
            rg_stacks_length += rg_put_hex_text(rg_stacks_text + rg_stacks_length, m.start);
            rg_stacks_text[rg_stacks_length++] = ' ';
            rg_stacks_length += rg_put_hex_text(rg_stacks_text + rg_stacks_length, m.end);
            rg_stacks_text[rg_stacks_length++] = ' ';
            rg_stacks_length += rg_put_hex_text(rg_stacks_text + rg_stacks_length, pointer);
            rg_stacks_text[rg_stacks_length++] = '\n';
        }
        previous = m;
        has_previous = 1;
    }
}

