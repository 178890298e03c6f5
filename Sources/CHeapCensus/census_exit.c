// The at-exit leak check's hook (the SuiteLeaks module): in a process that should check for
// leaked cycles when it exits, a constructor starts the census before any of the program's code
// runs and registers an atexit handler that calls SuiteLeaks' Swift entry point.
//
// Which processes: with SuiteLeaks in a library preloaded through LD_PRELOAD (its product
// SuiteLeaksPreload), every test process (an executable named *.xctest, as SwiftPM makes them)
// and no other (the preload also reaches `swift build`, the compilers and the linker: they are
// left alone); with SuiteLeaks linked into a program, only when RETAINGRAPH_LEAKS_AT_EXIT is 1
// (on, yes, true). RETAINGRAPH_LEAKS_AT_EXIT=0 (off, no, false) turns the check off either way.
//
// The entry point is a weak reference: a process that links the census without SuiteLeaks has
// none, and this file does nothing there. The handler is registered from a constructor, before
// the program registers its own, so it runs after them (atexit runs handlers in reverse): when
// the tests are over and XCTest or Swift Testing has written its results. If the check asks for
// a failing status (a new leak and RETAINGRAPH_LEAKS_FAIL=1), the handler flushes stdio and
// ends the process with it: an atexit handler cannot change the status otherwise; the handlers
// registered before it (the runtime libraries' own) are then skipped.
//
// Two copies of the census: a test bundle that links HeapCensus (its own copy of this C code,
// whose malloc takes every allocation: the executable's definition comes first) run with the
// preloaded library (a second copy, whose table then stays empty). Each copy's constructor
// looks for the other: the linked copy finds the preloaded one by its exported
// rg_suite_leaks_hand_over and tells it whether it has the check itself. With SuiteLeaks
// linked, the linked copy runs the check (it reads the heap) and the preloaded one steps aside;
// without, the preloaded copy fails the process at exit with a message saying why, rather than
// read no object and call it clean (which is what such a process did: the linked copy's weak
// reference to the check bound to the preloaded library's, whose census had seen nothing). The
// preloaded copy also checks that the process's malloc is its own: any other allocator
// (jemalloc, another interposer) is the same failure.

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/// SuiteLeaks' check (a Swift `@_cdecl` function): the exit status it wants, 0 for none.
extern int rg_suite_leaks_at_exit(void) __attribute__((weak));

/// Called by a linked copy of the census on the preloaded one (exported for that alone):
/// whether the linked copy runs the check itself, and the image it lives in.
int rg_suite_leaks_hand_over(int linked_has_check, const char *linked_image);

/// What a linked copy told this (preloaded) copy: 0 nothing, 1 it runs the check, 2 it takes
/// every allocation and has no check.
static _Atomic(int) linked_census;
/// The image of the copy that takes the process's allocations, when it is not this one.
static char foreign_image[512];

/// Whether two addresses lie in the same loaded image.
static int same_image(const void *a, const void *b) {
    Dl_info first, second;
    if (!dladdr(a, &first) || !dladdr(b, &second)) return 0;
    return first.dli_fbase == second.dli_fbase;
}

/// Whether this code lives in a library that LD_PRELOAD names.
static int is_preloaded(void) {
    const char *preload = getenv("LD_PRELOAD");
    Dl_info info;
    if (!preload || !dladdr((void *)&is_preloaded, &info) || !info.dli_fname) return 0;
    const char *name = strrchr(info.dli_fname, '/');
    name = name ? name + 1 : info.dli_fname;
    return *name && strstr(preload, name) != NULL;
}

int rg_suite_leaks_hand_over(int linked_has_check, const char *linked_image) {
    snprintf(foreign_image, sizeof foreign_image, "%s", linked_image ? linked_image : "?");
    atomic_store(&linked_census, linked_has_check ? 1 : 2);
    return 1;
}

/// Whether the process's malloc is this copy's; if not, names the image it lives in.
static int owns_malloc(void) {
    void *process_malloc = dlsym(RTLD_DEFAULT, "malloc");
    if (!process_malloc || same_image(process_malloc, (void *)&is_preloaded)) return 1;
    Dl_info info;
    const char *image = dladdr(process_malloc, &info) && info.dli_fname && *info.dli_fname
                            ? info.dli_fname
                            : "another image";
    snprintf(foreign_image, sizeof foreign_image, "%s", image);
    return 0;
}

/// The preloaded copy's handler when another copy takes the allocations: fail, loudly.
static void fail_unreadable(void) {
    fflush(NULL);
    if (atomic_load(&linked_census) == 2) {
        fprintf(stderr,
                "RetainGraph: the at-exit leak check cannot read this process's heap: the "
                "process links its own heap census (HeapCensus, in %s), which takes every "
                "allocation, so the preloaded library's census saw none. No object was read: "
                "this is not an all-clear. Link SuiteLeaks into the tests and set "
                "RETAINGRAPH_LEAKS_AT_EXIT=1 instead of preloading, or preload into a package "
                "that does not link HeapCensus.\n",
                foreign_image);
    } else {
        fprintf(stderr,
                "RetainGraph: the at-exit leak check cannot read this process's heap: its "
                "malloc is %s's, not the preloaded census's, which saw no allocation. No "
                "object was read: this is not an all-clear.\n",
                foreign_image);
    }
    _exit(1);
}

static void run_check(void) {
    int status = rg_suite_leaks_at_exit();
    if (status == 0) return;
    fflush(NULL);
    _exit(status);
}

/// The preloaded copy's handler: steps aside for a linked copy with the check, fails when
/// another copy or allocator takes the allocations, runs the check otherwise.
static void run_preloaded_check(void) {
    if (atomic_load(&linked_census) == 1) return;
    if (atomic_load(&linked_census) == 2 || !owns_malloc()) fail_unreadable();
    run_check();
}

__attribute__((constructor)) static void install_exit_check(void) {
    const char *setting = getenv("RETAINGRAPH_LEAKS_AT_EXIT");
    int off = setting && rg_is_no(setting);
    if (is_preloaded()) {
        if (!rg_suite_leaks_at_exit || off || !rg_is_test_process()) return;
        rg_census_set_recording(true);
        atexit(run_preloaded_check);
        return;
    }
    // A linked copy. Its weak reference to the check may have been bound to the preloaded
    // library's (whose census sees nothing here): only a check in this image is its own.
    int has_check = rg_suite_leaks_at_exit &&
                    same_image((void *)rg_suite_leaks_at_exit, (void *)&is_preloaded);
    // Is there a preloaded copy (the at-exit check's library) to hand over to?
    int (*hand_over)(int, const char *) =
        (int (*)(int, const char *))dlsym(RTLD_DEFAULT, "rg_suite_leaks_hand_over");
    int beside_preload = hand_over && !same_image((void *)hand_over, (void *)&is_preloaded);
    if (beside_preload) {
        Dl_info info;
        int named = dladdr((void *)&is_preloaded, &info) && info.dli_fname && *info.dli_fname;
        hand_over(has_check, named ? info.dli_fname : "the executable");
    }
    if (!has_check || off) return;
    int wanted = setting ? rg_is_yes(setting) : beside_preload && rg_is_test_process();
    if (!wanted) return;
    rg_census_set_recording(true);
    atexit(run_check);
}
