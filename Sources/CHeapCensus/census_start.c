// The constructor: `RETAINGRAPH_CENSUS=1` (or on, yes, true) at launch starts recording before
// any of the program's code runs; `RETAINGRAPH_HEAP_SAMPLING=BYTES` starts the sampled mode
// with that mean interval (`on`, `yes`, `true` or `1`: the default, 512 KiB).

#define _GNU_SOURCE
#include "CHeapCensus.h"
#include "census_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_yes(const char *value) {
    return !strcmp(value, "1") || !strcasecmp(value, "on") || !strcasecmp(value, "yes") ||
           !strcasecmp(value, "true");
}

__attribute__((constructor)) static void start_from_environment(void) {
    const char *census = getenv("RETAINGRAPH_CENSUS");
    if (census && is_yes(census)) rg_census_set_recording(true);
    const char *sampling = getenv("RETAINGRAPH_HEAP_SAMPLING");
    if (!sampling) return;
    if (is_yes(sampling)) {
        rg_sampling_start(512 * 1024);
        return;
    }
    char *end = NULL;
    unsigned long long interval = strtoull(sampling, &end, 10);
    if (end != sampling && *end == 0 && interval > 0) rg_sampling_start((size_t)interval);
}
