// The C side of StackTraces' fast symbolication route (see include/CSymbolizer.h): GNU
// extensions that Swift's Glibc module does not show (`pipe2`, `dl_iterate_phdr`,
// `posix_spawn_file_actions_addclosefrom_np`) wrapped in two functions. No allocation, no
// lock of our own (dl_iterate_phdr takes the loader's); safe to call from any thread.

#define _GNU_SOURCE
#include "CSymbolizer.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int rg_symbolizer_spawn(
    const char *path, char *const *argv, int *read_fd, pid_t *pid) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return errno;

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int error = posix_spawn_file_actions_init(&actions);
    if (error != 0) {
        close(fds[0]);
        close(fds[1]);
        return error;
    }
    error = posix_spawnattr_init(&attributes);
    if (error != 0) {
        posix_spawn_file_actions_destroy(&actions);
        close(fds[0]);
        close(fds[1]);
        return error;
    }

    // Standard output on the pipe (dup2 clears close-on-exec on the copy, even when the pipe
    // already is descriptor 1), first, in case this process had closed 0 or 2 and the pipe took
    // their place; then standard input and error on /dev/null; every other descriptor closed
    // where glibc can do it.
    if (!error) error = posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    if (!error) error = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (!error) error = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    if (!error) error = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif

    // A process group of its own, so that a timeout kills the child and anything it started;
    // no blocked signal and default actions, whatever this process and its thread had.
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (!error) error = posix_spawnattr_setpgroup(&attributes, 0);
    if (!error) error = posix_spawnattr_setsigmask(&attributes, &none);
    if (!error) error = posix_spawnattr_setsigdefault(&attributes, &all);
    if (!error) {
        error = posix_spawnattr_setflags(
            &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    }
    if (!error) error = posix_spawn(pid, path, &actions, &attributes, argv, environ);

    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (error != 0) {
        close(fds[0]);
        return error;
    }
    *read_fd = fds[0];
    return 0;
}

typedef struct {
    uintptr_t address;
    uintptr_t bias;
    uintptr_t base;
    char *path;
    size_t capacity;
    int found;
} image_search;

static int find_image(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    image_search *search = context;
    int contains = 0;
    uintptr_t lowest = UINTPTR_MAX;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (start < lowest) lowest = start;
        if (search->address >= start && search->address - start < header->p_memsz) contains = 1;
    }
    if (!contains) return 0;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    size_t length = strlen(name);
    if (length >= search->capacity) return 1;  // found, but the path does not fit
    memcpy(search->path, name, length + 1);
    long page = sysconf(_SC_PAGESIZE);
    search->bias = info->dlpi_addr;
    search->base = page > 0 ? lowest & ~((uintptr_t)page - 1) : lowest;
    search->found = 1;
    return 1;
}

int rg_loaded_image(
    uintptr_t address, uintptr_t *bias, uintptr_t *base, char *path, size_t capacity) {
    if (capacity == 0) return 0;
    image_search search = {address, 0, 0, path, capacity, 0};
    dl_iterate_phdr(find_image, &search);
    if (!search.found) return 0;
    *bias = search.bias;
    *base = search.base;
    return 1;
}
