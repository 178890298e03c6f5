// StackTraces' door to C for its fast symbolication route (see symbolizer.c): starting the
// external symbolizer with a close-on-exec pipe on its standard output, and the loaded image
// (path, load bias, base) that holds an address. Only Sources/StackTraces/SymbolizerProcess.swift
// imports this module.
//
// Nothing here is stable API: the functions are internal to the StackTraces module.

#ifndef RETAINGRAPH_CSYMBOLIZER_H
#define RETAINGRAPH_CSYMBOLIZER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// Starts the program at `path` with `argv` (NULL-terminated; `argv[0]` is the program's name)
/// and this process's environment, in a process group of its own, with standard input and
/// standard error on /dev/null and standard output on a new pipe.
///
/// Wraps `pipe2(O_CLOEXEC)` and `posix_spawn`. The child starts with no blocked signals and
/// every signal's default action, and with no file descriptor of this process but its three
/// standard ones. On success, `*read_fd` is the pipe's read end (close-on-exec; the caller
/// reads and closes it) and `*pid` the child (the caller reaps it with `waitpid`); the write
/// end is already closed here. Returns 0, or an `errno` value with nothing left open.
int rg_symbolizer_spawn(
    const char *_Nonnull path, char *_Nullable const *_Nonnull argv, int *_Nonnull read_fd,
    pid_t *_Nonnull pid);

/// The loaded image whose segments contain `address`: its load bias (what to subtract from a
/// runtime address to get the address its file uses, for its symbols and DWARF), its base (where
/// its lowest segment starts), and its path as the dynamic loader opened it, copied into `path`
/// (`capacity` bytes, NUL-terminated; empty for the main program).
///
/// Wraps `dl_iterate_phdr`, which holds the dynamic loader's lock while it runs, so an image
/// being unloaded is never read. Returns 1 when an image's `PT_LOAD` segment contains `address`
/// (and its path fits in `path`), 0 otherwise.
int rg_loaded_image(
    uintptr_t address, uintptr_t *_Nonnull bias, uintptr_t *_Nonnull base, char *_Nonnull path,
    size_t capacity);

#endif
