// The package's door to libunwind (one of its C doors: see CONTRIBUTING.md), local unwinding
// only.
//
// `UNW_LOCAL_ONLY` must be defined before <libunwind.h>: without it the header names the
// `_Ux86_64_*` remote-unwinding symbols, which Debian's libunwind does not export. Swift code
// calls the `static inline` wrappers below, never libunwind directly, and only one Swift file
// (Sources/StackTraces/Unwinder.swift) imports this module.
//
// Headers come from Debian's `libunwind-dev` (pkg-config name `libunwind`).

#ifndef RETAINGRAPH_CLIBUNWIND_SHIM_H
#define RETAINGRAPH_CLIBUNWIND_SHIM_H

#define UNW_LOCAL_ONLY
#include <errno.h>
#include <libunwind.h>

/// Stores up to `capacity` return addresses of the calling thread, innermost first, into `buffer`
/// and returns how many were stored (0 on failure, never negative).
///
/// Wraps `unw_backtrace`. errno is saved and restored around the call, because libunwind's
/// memory-validation probe can leave `EAGAIN` behind and callers must not see it change.
/// Always inlined, so the wrapper never adds a frame of its own.
static inline __attribute__((always_inline)) int
clibunwind_backtrace(void **buffer, int capacity) {
    if (buffer == 0 || capacity <= 0) {
        return 0;
    }
    int savedErrno = errno;
    int count = unw_backtrace(buffer, capacity);
    errno = savedErrno;
    if (count < 0) {
        return 0;
    }
    return count > capacity ? capacity : count;
}

#endif
