// This process's memory read safely: whether a range is mapped, asked of the kernel
// (process_vm_readv on this very process reports an unmapped range as an error), and a copy
// ThreadSanitizer does not instrument. Never called from inside malloc.

#define _GNU_SOURCE
#include "CProcessMemory.h"

#include <sys/uio.h>
#include <unistd.h>

bool rg_memory_is_readable(uintptr_t address, size_t size) {
    char buffer[256];
    if (size > sizeof buffer) size = sizeof buffer;
    struct iovec local = {buffer, size};
    struct iovec remote = {(void *)address, size};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}

__attribute__((no_sanitize("thread", "address"))) void rg_copy_bytes(void *destination,
                                                                        uintptr_t source,
                                                                        size_t size) {
    const volatile unsigned char *from = (const volatile unsigned char *)source;
    unsigned char *to = destination;
    for (size_t index = 0; index < size; index++) to[index] = from[index];
}
