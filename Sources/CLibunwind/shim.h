// The package's door to stack unwinding (one of its C doors: see CONTRIBUTING.md): libunwind,
// local unwinding only, and a frame-pointer walk that takes no lock.
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
#include <stdint.h>

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

/// The top of the calling thread's stack, above which no frame record of it lies, for a frame
/// at `frame`; 0 when unknown. x86_64: the thread descriptor, which glibc places at the top of
/// every thread's stack mapping, or on the main thread (whose descriptor is elsewhere)
/// `__libc_stack_end`.
static inline __attribute__((always_inline)) uintptr_t clibunwind_stack_end(uintptr_t frame) {
#if defined(__x86_64__)
    extern void *__libc_stack_end;
    uintptr_t thread;
    __asm__("movq %%fs:0, %0" : "=r"(thread));
    if (frame < thread) return thread;
    if (frame < (uintptr_t)__libc_stack_end) return (uintptr_t)__libc_stack_end;
#else
    (void)frame;
#endif
    return 0;
}

/// Stores up to `capacity` return addresses of the calling thread, innermost first, read from
/// frame pointers (the frame records that Swift and most C code on Linux x86_64 keep), and
/// returns how many were stored.
///
/// The walk starts at the frame of the function this is inlined into (always inlined) and
/// reads a record only if it lies above the previous one and below the top of this thread's
/// stack, so it never faults, whatever a function built without frame pointers left in the
/// register; it stops there (such a function's callers are not seen). It calls nothing, takes
/// no lock and allocates nothing: safe with the loader's lock held, inside malloc, and in a
/// signal handler. On architectures other than x86_64 it stores nothing.
static inline __attribute__((always_inline)) int
clibunwind_frame_pointer_backtrace(void **buffer, int capacity) {
    if (buffer == 0 || capacity <= 0) {
        return 0;
    }
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    uintptr_t end = clibunwind_stack_end(frame);
    int count = 0;
    while (end != 0 && count < capacity) {
        uintptr_t address = ((const uintptr_t *)frame)[1];
        if (address == 0) {
            break;
        }
        buffer[count++] = (void *)address;
        uintptr_t next = ((const uintptr_t *)frame)[0];
        if (next <= frame || next >= end || end - next < 16) {
            break;
        }
        frame = next;
    }
    return count;
}

#endif
