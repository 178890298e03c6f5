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

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/// SuiteLeaks' check (a Swift `@_cdecl` function): the exit status it wants, 0 for none.
extern int rg_suite_leaks_at_exit(void) __attribute__((weak));

/// Whether this code lives in a library that LD_PRELOAD names.
static int is_preloaded(void) {
    const char *preload = getenv("LD_PRELOAD");
    Dl_info info;
    if (!preload || !dladdr((void *)&is_preloaded, &info) || !info.dli_fname) return 0;
    const char *name = strrchr(info.dli_fname, '/');
    name = name ? name + 1 : info.dli_fname;
    return *name && strstr(preload, name) != NULL;
}

static void run_check(void) {
    int status = rg_suite_leaks_at_exit();
    if (status == 0) return;
    fflush(NULL);
    _exit(status);
}

__attribute__((constructor)) static void install_exit_check(void) {
    if (!rg_suite_leaks_at_exit) return;
    const char *setting = getenv("RETAINGRAPH_LEAKS_AT_EXIT");
    if (setting && rg_is_no(setting)) return;
    int wanted = is_preloaded() ? rg_is_test_process() : setting && rg_is_yes(setting);
    if (!wanted) return;
    rg_census_set_recording(true);
    atexit(run_check);
}
