// The forked child's core writer. Runs in a child of a multithreaded process, so it calls only
// async-signal-safe functions (open, read, write, lseek, ftruncate, close, clock_gettime,
// setpriority, _exit): no allocation, no lock, no stdio. Its buffers are static: the child has
// its own copy of them, and in the parent they stay untouched pages (holes in a core).
//
// The core it writes (read by ProcessAttach's ProcessCore and by gdb):
//   ELF header, PT_NOTE, one PT_LOAD per mapping of /proc/self/maps but [vvar]/[vsyscall];
//   notes: NT_PRSTATUS of the calling thread (its registers as the child sees them), NT_PRPSINFO,
//   NT_AUXV, NT_FILE, and RETAINGRAPH notes (the maps text, the calling thread's name, the
//   time, what a forked child cannot see, the other threads' stacks, the writer "fork dump");
//   contents: anonymous private memory, private writable file mappings, each image's relocated
//   read-only data (PT_GNU_RELRO), the first page of each ELF file and the vDSO; pages of zeros
//   are left as holes.
#define _GNU_SOURCE
#include "include/CHeapDump.h"
#include "heap_dump_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define MAPS_CAPACITY (4u << 20)
#define MAX_RELRO 4096

static char maps_text[MAPS_CAPACITY];
static unsigned long maps_length;
static unsigned char auxv[4096];
static unsigned long auxv_length;
static struct { unsigned long start, end; } relro[MAX_RELRO];
static int relro_count;
static unsigned char out[1 << 16];
static unsigned long out_used;
static int out_fd;
static int out_failed;

static const char statement[] =
    "a fork dump: a child forked from the process wrote it while the process ran on\n"
    "only the forking thread's registers are known: the other threads' registers at the fork "
    "are lost (the child has one thread)\n"
    "the other threads' stacks are read whole, conservatively, as 'a thread's stack at fork': "
    "words below their stack pointers may be stale\n"
    "objects held only in another thread's registers at the fork are not seen\n"
    "a thread in the middle of malloc or of a reference count update at the fork may leave its "
    "block or object half made in the copy\n";

// --- output ---------------------------------------------------------------------------------

static void flush_out(void) {
    unsigned long done = 0;
    while (done < out_used && !out_failed) {
        ssize_t n = write(out_fd, out + done, out_used - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { out_failed = errno ? errno : EIO; break; }
        done += (unsigned long)n;
    }
    out_used = 0;
}

static void put(const void *bytes, unsigned long count) {
    const unsigned char *from = bytes;
    while (count > 0) {
        if (out_used == sizeof out) flush_out();
        unsigned long room = sizeof out - out_used;
        unsigned long n = count < room ? count : room;
        memcpy(out + out_used, from, n);
        out_used += n;
        from += n;
        count -= n;
    }
}

static void put_zeros(unsigned long count) {
    static const unsigned char zeros[64];
    while (count > 0) {
        unsigned long n = count < sizeof zeros ? count : sizeof zeros;
        put(zeros, n);
        count -= n;
    }
}

static unsigned long padded(unsigned long n) { return (n + 3) & ~3UL; }

static unsigned long note_size(unsigned long name_size, unsigned long description) {
    return 12 + padded(name_size) + padded(description);
}

static void put_note_header(const char *name, uint32_t type, unsigned long description) {
    uint32_t header[3] = {(uint32_t)strlen(name) + 1, (uint32_t)description, type};
    put(header, sizeof header);
    put(name, header[0]);
    put_zeros(padded(header[0]) - header[0]);
}

static void put_padding(unsigned long description) { put_zeros(padded(description) - description); }

// --- text, without stdio --------------------------------------------------------------------

static unsigned long put_hex_text(char *to, unsigned long value) {
    char digits[16];
    int n = 0;
    do { digits[n++] = "0123456789abcdef"[value & 15]; value >>= 4; } while (value != 0);
    for (int i = 0; i < n; i++) to[i] = digits[n - 1 - i];
    return (unsigned long)n;
}

static unsigned long put_decimal_text(char *to, unsigned long value, int width) {
    char digits[24];
    int n = 0;
    do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value != 0);
    while (n < width) digits[n++] = '0';
    for (int i = 0; i < n; i++) to[i] = digits[n - 1 - i];
    return (unsigned long)n;
}

/// Reads a whole file into `buffer` with open/read; its length, or -1 (errno set).
static long read_file(const char *path, void *buffer, unsigned long capacity) {
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

struct mapping {
    unsigned long start, end, offset, inode;
    char readable, writable, executable, shared;
    const char *path;
    unsigned long path_length;
};

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
static int next_mapping(const char **at, struct mapping *m) {
    const char *end = maps_text + maps_length;
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

static int path_is(const struct mapping *m, const char *name) {
    unsigned long n = strlen(name);
    return m->path_length == n && memcmp(m->path, name, n) == 0;
}

static int is_file(const struct mapping *m) { return m->path_length > 0 && m->path[0] == '/'; }

static int is_included(const struct mapping *m) {
    return !path_is(m, "[vvar]") && !path_is(m, "[vsyscall]") && !path_is(m, "[vvar_vclock]");
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
static void find_relocated_ranges(void) {
    int pipe_fds[2];
    relro_count = 0;
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return;
    const char *at = maps_text;
    struct mapping m;
    while (next_mapping(&at, &m)) {
        if (!is_file(&m) || m.offset != 0 || !m.readable || relro_count == MAX_RELRO) continue;
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
static unsigned long dump_size(const struct mapping *m) {
    if (!m->readable || m->shared) return 0;
    if (!is_file(m)) return m->end - m->start;  // anonymous, [heap], [stack], [vdso]
    if (m->writable || overlaps_relro(m)) return m->end - m->start;
    if (m->offset == 0) return PAGE;  // the ELF header and build id
    return 0;
}

// --- the other threads' stacks ----------------------------------------------------------------

static char stacks_text[1 << 16];
static unsigned long stacks_length;

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
static void find_other_stacks(unsigned long own_stack) {
    stacks_length = 0;
    const char *at = maps_text;
    struct mapping m, previous = {0};
    int has_previous = 0;
    while (next_mapping(&at, &m)) {
        int guarded = has_previous && previous.end == m.start && !previous.readable
            && !previous.writable && previous.path_length == 0;
        int is_stack = path_is(&m, "[stack]")
            || (guarded && m.readable && m.writable && !m.shared && m.path_length == 0);
        if (is_stack && !(m.start <= own_stack && own_stack < m.end)
            && stacks_length + 64 < sizeof stacks_text)
        {
            unsigned long pointer = path_is(&m, "[stack]") ? 0 : thread_pointer_in(m.start, m.end);
            stacks_length += put_hex_text(stacks_text + stacks_length, m.start);
            stacks_text[stacks_length++] = ' ';
            stacks_length += put_hex_text(stacks_text + stacks_length, m.end);
            stacks_text[stacks_length++] = ' ';
            stacks_length += put_hex_text(stacks_text + stacks_length, pointer);
            stacks_text[stacks_length++] = '\n';
        }
        previous = m;
        has_previous = 1;
    }
}

// --- the notes ------------------------------------------------------------------------------

static unsigned long file_note_size(void) {
    unsigned long size = 16;
    const char *at = maps_text;
    struct mapping m;
    while (next_mapping(&at, &m)) {
        if (is_file(&m)) size += 24 + m.path_length + 1;
    }
    return size;
}

static void put_file_note(unsigned long size) {
    uint64_t count = 0;
    const char *at = maps_text;
    struct mapping m;
    while (next_mapping(&at, &m)) count += is_file(&m);
    uint64_t header[2] = {count, PAGE};
    put(header, sizeof header);
    at = maps_text;
    while (next_mapping(&at, &m)) {
        if (!is_file(&m)) continue;
        uint64_t entry[3] = {m.start, m.end, m.offset / PAGE};
        put(entry, sizeof entry);
    }
    at = maps_text;
    while (next_mapping(&at, &m)) {
        if (!is_file(&m)) continue;
        put(m.path, m.path_length);
        put_zeros(1);
    }
    put_padding(size);
}

static void put_text_note(uint32_t type, const char *text, unsigned long length) {
    put_note_header("RETAINGRAPH", type, length);
    put(text, length);
    put_padding(length);
}

// --- the core -------------------------------------------------------------------------------

static int is_zero_page(const unsigned char *page) {
    const unsigned long *words = (const unsigned long *)page;
    for (unsigned long i = 0; i < PAGE / sizeof(unsigned long); i++) {
        if (words[i] != 0) return 0;
    }
    return 1;
}

/// Writes `count` bytes from `address` at the file's position; an unreadable page is skipped (a
/// hole). Pages of zeros of anonymous memory (`direct`: safe to read here) are holes too.
static int write_memory(int fd, unsigned long address, unsigned long count, int direct) {
    unsigned long done = 0;
    while (done < count) {
        unsigned long run = 0;
        if (direct) {
            while (done + run < count && run < (1UL << 20)
                   && !is_zero_page((const unsigned char *)(address + done + run)))
                run += PAGE;
            if (run == 0) {
                if (lseek(fd, (off_t)PAGE, SEEK_CUR) < 0) return errno;
                done += PAGE;
                continue;
            }
        } else {
            run = count - done < (1UL << 20) ? count - done : (1UL << 20);
        }
        ssize_t n = write(fd, (const void *)(address + done), run);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EFAULT) return errno;
        if (n <= 0) {  // unreadable (past a file's end): leave a hole
            if (lseek(fd, (off_t)PAGE, SEEK_CUR) < 0) return errno;
            done += PAGE;
            continue;
        }
        done += (unsigned long)n;
    }
    return 0;
}

static void set_header(Elf64_Phdr *header, uint32_t type, uint32_t flags, unsigned long offset,
                       unsigned long address, unsigned long file_size, unsigned long memory_size) {
    memset(header, 0, sizeof *header);
    header->p_type = type;
    header->p_flags = flags;
    header->p_offset = offset;
    header->p_vaddr = address;
    header->p_filesz = file_size;
    header->p_memsz = memory_size;
    header->p_align = type == PT_LOAD ? PAGE : 1;
}

_Noreturn void rg_dump_child(const struct rg_dump_context *context) {
    out_fd = context->fd;
    setpriority(PRIO_PROCESS, 0, 10);  // the process serves; the dump comes second
    int adjust = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (adjust >= 0) { (void)!write(adjust, "1000", 4); close(adjust); }  // killed first, if any

    long length = read_file("/proc/self/maps", maps_text, sizeof maps_text);
    if (length <= 0) _exit(errno ? errno : EIO);
    maps_length = (unsigned long)length;
    long auxv_read = read_file("/proc/self/auxv", auxv, sizeof auxv);
    auxv_length = auxv_read > 0 ? (unsigned long)auxv_read : 0;
    char comm[32] = {0};
    char comm_path[64] = "/proc/";
    unsigned long path_length = 6 + put_decimal_text(comm_path + 6, (unsigned long)context->process_id, 0);
    memcpy(comm_path + path_length, "/comm", 6);
    long comm_length = read_file(comm_path, comm, sizeof comm - 1);
    if (comm_length > 0 && comm[comm_length - 1] == '\n') comm[--comm_length] = 0;
    find_relocated_ranges();
    find_other_stacks(context->registers[19]);

    char thread_line[48];
    unsigned long thread_length = put_decimal_text(thread_line, (unsigned long)context->thread_id, 0);
    thread_line[thread_length++] = '\t';
    for (int i = 0; i < 15 && context->thread_name[i]; i++) thread_line[thread_length++] = context->thread_name[i];
    thread_line[thread_length++] = '\n';
    char time_text[48];
    unsigned long time_length = put_decimal_text(time_text, (unsigned long)context->time.tv_sec, 0);
    time_text[time_length++] = '.';
    time_length += put_decimal_text(time_text + time_length, (unsigned long)context->time.tv_nsec, 9);
    static const char writer[] = "fork dump";

    unsigned long loads = 0;
    const char *at = maps_text;
    struct mapping m;
    while (next_mapping(&at, &m)) loads += is_included(&m);
    unsigned long files = file_note_size();
    unsigned long notes = note_size(5, 336) + note_size(5, 136) + note_size(5, files)
        + (auxv_length ? note_size(5, auxv_length) : 0) + note_size(12, maps_length)
        + note_size(12, thread_length) + note_size(12, sizeof statement - 1)
        + note_size(12, time_length) + note_size(12, stacks_length) + note_size(12, sizeof writer - 1);
    unsigned long headers = sizeof(Elf64_Ehdr) + (loads + 1) * sizeof(Elf64_Phdr);
    unsigned long offset = (headers + notes + PAGE - 1) & ~(PAGE - 1);

    Elf64_Ehdr elf;
    memset(&elf, 0, sizeof elf);
    memcpy(elf.e_ident, ELFMAG, SELFMAG);
    elf.e_ident[EI_CLASS] = ELFCLASS64;
    elf.e_ident[EI_DATA] = ELFDATA2LSB;
    elf.e_ident[EI_VERSION] = EV_CURRENT;
    elf.e_type = ET_CORE;
    elf.e_machine = EM_X86_64;
    elf.e_version = EV_CURRENT;
    elf.e_phoff = sizeof elf;
    elf.e_ehsize = sizeof elf;
    elf.e_phentsize = sizeof(Elf64_Phdr);
    elf.e_phnum = loads + 1 < 0xFFFF ? (uint16_t)(loads + 1) : 0xFFFF;
    put(&elf, sizeof elf);
    Elf64_Phdr header;
    set_header(&header, PT_NOTE, PF_R, headers, 0, notes, 0);
    put(&header, sizeof header);
    at = maps_text;
    unsigned long data = offset;
    while (next_mapping(&at, &m)) {
        if (!is_included(&m)) continue;
        unsigned long size = dump_size(&m);
        uint32_t flags = (m.readable ? PF_R : 0) | (m.writable ? PF_W : 0) | (m.executable ? PF_X : 0);
        set_header(&header, PT_LOAD, flags, data, m.start, size, m.end - m.start);
        put(&header, sizeof header);
        data += (size + PAGE - 1) & ~(PAGE - 1);
    }

    unsigned char status[336] = {0};
    memcpy(status + 32, &context->thread_id, 4);
    memcpy(status + 36, &context->parent_id, 4);
    memcpy(status + 112, context->registers, sizeof context->registers);
    put_note_header("CORE", NT_PRSTATUS, sizeof status);
    put(status, sizeof status);
    unsigned char info[136] = {0};
    info[1] = 'R';
    memcpy(info + 24, &context->process_id, 4);
    memcpy(info + 28, &context->parent_id, 4);
    memcpy(info + 40, comm, comm_length > 15 ? 15 : (comm_length > 0 ? (unsigned long)comm_length : 0));
    memcpy(info + 56, comm, comm_length > 79 ? 79 : (comm_length > 0 ? (unsigned long)comm_length : 0));
    put_note_header("CORE", NT_PRPSINFO, sizeof info);
    put(info, sizeof info);
    if (auxv_length) {
        put_note_header("CORE", NT_AUXV, auxv_length);
        put(auxv, auxv_length);
        put_padding(auxv_length);
    }
    put_note_header("CORE", NT_FILE, files);
    put_file_note(files);
    put_text_note(0x52470001, maps_text, maps_length);
    put_text_note(0x52470002, thread_line, thread_length);
    put_text_note(0x52470003, statement, sizeof statement - 1);
    put_text_note(0x52470004, time_text, time_length);
    put_text_note(0x52470005, stacks_text, stacks_length);
    put_text_note(0x52470006, writer, sizeof writer - 1);
    flush_out();
    if (out_failed) _exit(out_failed);

    at = maps_text;
    data = offset;
    while (next_mapping(&at, &m)) {
        if (!is_included(&m)) continue;
        unsigned long size = dump_size(&m);
        if (size > 0) {
            if (lseek(out_fd, (off_t)data, SEEK_SET) < 0) _exit(errno);
            int failed = write_memory(out_fd, m.start, size, !is_file(&m) && !path_is(&m, "[vvar]"));
            if (failed) _exit(failed);
        }
        data += (size + PAGE - 1) & ~(PAGE - 1);
    }
    if (ftruncate(out_fd, (off_t)data) != 0) _exit(errno);
    _exit(0);
}
