// Reads of other objects' memory and of the loaded images, for the census's scan: only of
// blocks the census knows are live (under their stripe's lock), never a lock held by user
// code. (Reads of words that may not be pointers are RuntimeLayouts' job: CProcessMemory.)

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <elf.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

size_t rg_census_block_size(const void *block) { return malloc_usable_size((void *)block); }

extern size_t swift_retainCount(void *object);

extern bool swift_isDeallocating(void *object);

size_t rg_census_retain_count(const void *object) {
    // An object whose deinit runs still reads 1 (its fields may already be released): dead.
    if (swift_isDeallocating((void *)object)) return 0;
    return swift_retainCount((void *)object);
}

typedef struct {
    void (*visitor)(void *, uintptr_t, uintptr_t, const char *);
    void *context;
} segments_context;

static int visit_image(struct dl_phdr_info *info, size_t size, void *raw) {
    (void)size;
    segments_context *context = raw;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || !(header->p_flags & PF_W)) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        context->visitor(context->context, start, start + header->p_memsz, info->dlpi_name);
    }
    return 0;
}

void rg_census_writable_segments(void (*visitor)(void *, uintptr_t, uintptr_t, const char *),
                                 void *context) {
    segments_context state = {visitor, context};
    // dl_iterate_phdr holds the loader's lock while the visitor runs, and the visitor (Swift)
    // allocates. The census's own allocations here are not the program's, so they are not
    // recorded at all. (Once, a traced or sampled allocation here unwound with libunwind, whose
    // own lock another thread held while it waited for the loader's: a deadlock, seen in CI.
    // Creation traces and samples now read frame pointers and take no such lock.)
    rg_census_enter_internal();
    dl_iterate_phdr(visit_image, &state);
    rg_census_leave_internal();
}

int rg_census_thread_name(uintptr_t thread, char *buffer, size_t length) {
    // The name a thread gave itself (pthread_setname_np): glibc reads the kernel's comm of
    // another thread. Callers pass a thread they found running.
    return pthread_getname_np((pthread_t)thread, buffer, length);
}
