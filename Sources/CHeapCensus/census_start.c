// The constructor, run before any of the program's code:
// - In a test process (SwiftPM's test bundle, `…PackageTests.xctest`, which runs XCTest and
//   Swift Testing alike) the census records from the first allocation, with no call and no
//   variable: objects made before the first test (singletons, caches) are known, so what
//   holds a leak does not depend on which test ran first. `RETAINGRAPH_CENSUS=0` (any value
//   but the four below) turns that off.
// - In any process, `RETAINGRAPH_CENSUS=1` (or on, yes, true) starts recording.
// - `RETAINGRAPH_HEAP_SAMPLING=BYTES` starts the sampled mode with that mean interval (`on`,
//   `yes`, `true` or `1`: the default, 512 KiB).

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

RG_HIDDEN int rg_is_yes(const char *value) {
    return !strcmp(value, "1") || !strcasecmp(value, "on") || !strcasecmp(value, "yes") ||
           !strcasecmp(value, "true");
}

RG_HIDDEN int rg_is_no(const char *value) {
    return !strcmp(value, "0") || !strcasecmp(value, "off") || !strcasecmp(value, "no") ||
           !strcasecmp(value, "false");
}

RG_HIDDEN int rg_is_test_process(void) {
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0) return 0;
    path[length] = 0;
    static const char suffix[] = ".xctest";
    size_t suffix_length = sizeof suffix - 1;
    return (size_t)length >= suffix_length &&
           !strcmp(path + length - suffix_length, suffix);
}

__attribute__((constructor)) static void start_from_environment(void) {
    const char *census = getenv("RETAINGRAPH_CENSUS");
    if (census ? rg_is_yes(census) : rg_is_test_process()) {
        rg_census_set_recording(true);
        rg_census_mark_recording_since_launch();
    }
    const char *sampling = getenv("RETAINGRAPH_HEAP_SAMPLING");
    if (!sampling) return;
    if (rg_is_yes(sampling)) {
        rg_sampling_start(512 * 1024);
        return;
    }
    char *end = NULL;
    unsigned long long interval = strtoull(sampling, &end, 10);
    if (end != sampling && *end == 0 && interval > 0) rg_sampling_start((size_t)interval);
}
