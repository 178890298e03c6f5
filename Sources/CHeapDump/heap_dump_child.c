// The forked child's core writer. Runs in a child of a multithreaded process, so it calls only
// async-signal-safe functions (open, read, write, lseek, ftruncate, close, clock_gettime,
// setpriority, getrlimit, capget, sched_setscheduler, _exit): no allocation, no lock, no
// stdio. Its buffers are static: the child has
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
#include <sched.h>
#include <fcntl.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PAGE RG_PAGE

static unsigned char auxv[4096];
static unsigned long auxv_length;
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

// --- the notes ------------------------------------------------------------------------------

static unsigned long file_note_size(void) {
    unsigned long size = 16;
    const char *at = rg_maps_text;
    struct mapping m;
    while (rg_next_mapping(&at, &m)) {
        if (rg_is_file(&m)) size += 24 + m.path_length + 1;
    }
    return size;
}

static void put_file_note(unsigned long size) {
    uint64_t count = 0;
    const char *at = rg_maps_text;
    struct mapping m;
    while (rg_next_mapping(&at, &m)) count += rg_is_file(&m);
    uint64_t header[2] = {count, PAGE};
    put(header, sizeof header);
    at = rg_maps_text;
    while (rg_next_mapping(&at, &m)) {
        if (!rg_is_file(&m)) continue;
        uint64_t entry[3] = {m.start, m.end, m.offset / PAGE};
        put(entry, sizeof entry);
    }
    at = rg_maps_text;
    while (rg_next_mapping(&at, &m)) {
        if (!rg_is_file(&m)) continue;
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

/// Whether a thread of this process at nice 19 may be moved from SCHED_IDLE back to
/// SCHED_OTHER: the kernel asks that RLIMIT_NICE allow nice 19, or CAP_SYS_NICE.
static int may_leave_idle_policy(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NICE, &limit) == 0 && limit.rlim_cur >= 1) return 1;
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capget, &header, data) != 0) return 0;
    return (data[CAP_TO_INDEX(CAP_SYS_NICE)].effective & CAP_TO_MASK(CAP_SYS_NICE)) != 0;
}

_Noreturn void rg_dump_child(const struct rg_dump_context *context) {
    out_fd = context->fd;
    // The process serves; the dump takes only the time it leaves. At nice 10 the child took a
    // share of a saturated machine and the server kept 0.80x its throughput while dumping; at
    // nice 19, 0.85x; under SCHED_IDLE, 0.93-1.00x (Benchmarks/RESULTS.md, server-dump.sh).
    // SCHED_IDLE only where the parent may take the child out of it again (rg_dump_write does,
    // after a grace period, so that a saturated machine cannot starve the dump for good).
    setpriority(PRIO_PROCESS, 0, 19);
    if (may_leave_idle_policy()) {
        struct sched_param idle = {0};
        (void)sched_setscheduler(0, SCHED_IDLE, &idle);
    }
    int adjust = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (adjust >= 0) { (void)!write(adjust, "1000", 4); close(adjust); }  // killed first, if any

    long length = rg_read_file("/proc/self/maps", rg_maps_text, RG_MAPS_CAPACITY);
    if (length <= 0) _exit(errno ? errno : EIO);
    rg_maps_length = (unsigned long)length;
    long auxv_read = rg_read_file("/proc/self/auxv", auxv, sizeof auxv);
    auxv_length = auxv_read > 0 ? (unsigned long)auxv_read : 0;
    char comm[32] = {0};
    char comm_path[64] = "/proc/";
    unsigned long path_length = 6 + rg_put_decimal_text(comm_path + 6, (unsigned long)context->process_id, 0);
    memcpy(comm_path + path_length, "/comm", 6);
    long comm_length = rg_read_file(comm_path, comm, sizeof comm - 1);
    if (comm_length > 0 && comm[comm_length - 1] == '\n') comm[--comm_length] = 0;
    rg_find_relocated_ranges();
    rg_find_other_stacks(context->registers[19]);

    char thread_line[48];
    unsigned long thread_length = rg_put_decimal_text(thread_line, (unsigned long)context->thread_id, 0);
    thread_line[thread_length++] = '\t';
    for (int i = 0; i < 15 && context->thread_name[i]; i++) thread_line[thread_length++] = context->thread_name[i];
    thread_line[thread_length++] = '\n';
    char time_text[48];
    unsigned long time_length = rg_put_decimal_text(time_text, (unsigned long)context->time.tv_sec, 0);
    time_text[time_length++] = '.';
    time_length += rg_put_decimal_text(time_text + time_length, (unsigned long)context->time.tv_nsec, 9);
    static const char writer[] = "fork dump";

    unsigned long loads = 0;
    const char *at = rg_maps_text;
    struct mapping m;
    while (rg_next_mapping(&at, &m)) loads += rg_is_included(&m);
    unsigned long files = file_note_size();
    unsigned long notes = note_size(5, 336) + note_size(5, 136) + note_size(5, files)
        + (auxv_length ? note_size(5, auxv_length) : 0) + note_size(12, rg_maps_length)
        + note_size(12, thread_length) + note_size(12, sizeof statement - 1)
        + note_size(12, time_length) + note_size(12, rg_stacks_length) + note_size(12, sizeof writer - 1);
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
    at = rg_maps_text;
    unsigned long data = offset;
    while (rg_next_mapping(&at, &m)) {
        if (!rg_is_included(&m)) continue;
        unsigned long size = rg_dump_size(&m);
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
    put_text_note(0x52470001, rg_maps_text, rg_maps_length);
    put_text_note(0x52470002, thread_line, thread_length);
    put_text_note(0x52470003, statement, sizeof statement - 1);
    put_text_note(0x52470004, time_text, time_length);
    put_text_note(0x52470005, rg_stacks_text, rg_stacks_length);
    put_text_note(0x52470006, writer, sizeof writer - 1);
    flush_out();
    if (out_failed) _exit(out_failed);

    at = rg_maps_text;
    data = offset;
    while (rg_next_mapping(&at, &m)) {
        if (!rg_is_included(&m)) continue;
        unsigned long size = rg_dump_size(&m);
        if (size > 0) {
            if (lseek(out_fd, (off_t)data, SEEK_SET) < 0) _exit(errno);
            int failed = write_memory(out_fd, m.start, size, !rg_is_file(&m) && !rg_path_is(&m, "[vvar]"));
            if (failed) _exit(failed);
        }
        data += (size + PAGE - 1) & ~(PAGE - 1);
    }
    if (ftruncate(out_fd, (off_t)data) != 0) _exit(errno);
    _exit(0);
}
