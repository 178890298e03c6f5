#!/usr/bin/env bash
# The at-exit check's cost in one real test process (issue 35): hummingbird 2.28.1's Swift
# Testing process (about 32,000 objects at exit, loopback servers) and swift-async-algorithms
# 1.1.4's XCTest process, each run directly as `swift test` runs it (the suites' tests built
# once, in debug), RUNS times without and RUNS times with the check preloaded, alternating
# (off, on, off, on, ...). Per run: wall time, processor time (user + system) and peak RSS, read
# by GNU time, the load average, and for the runs with the check its own line ("checked in
# … s: heap read in …, analysis and reports … s; processor … s, symbolizer … s"). Per suite:
# the medians, and the ratios on / off of wall time, processor time and peak RSS.
#
#   Benchmarks/Scripts/exit-check-suite.sh [RUNS] [SUITE...]   default 5 runs, both suites
#
# Goals: the check ≤ 0.5 s; wall time on / off ≤ 1.05×; peak RSS on / off ≤ 1.3×. Wall clock is
# a result only on a quiet machine (the load is printed with every run); the check's processor
# time and the processor-time ratio say more on a loaded one.
#
# Environment: SUITES_DIR (default .build-suites at the repository root), PRELOAD_SCRATCH
# (default .build-preload), PRELOAD_CONFIGURATION (release, or debug for the tests' figure).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$(dirname "$here")")"
median() {
  sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# shellcheck source=suite-sources.sh
source "$here/suite-sources.sh"
suite_setup 5 2,19 "$@"
echo "preload: $preload_library ($configuration)"

for suite in "${suites[@]}"; do
  echo
  echo "== $suite, load: $(load)"
  prepare_suite "$suite" "$work"
  arguments=()
  [[ $suite == hummingbird ]] && arguments=(--testing-library swift-testing)
  echo "process: $(basename "$suite_bundle") ${arguments[*]}"
  : >"$work/$suite-exit-check.tsv"
  for run in $(seq 1 "$runs"); do
    for mode in off on; do
      log="$work/$suite-process-$mode-$run.log"
      times="$work/$suite-process-$mode-$run.time"
      before="$(load)"
      status=0
      variables=()
      [[ $mode == on ]] && variables=(LD_PRELOAD="$preload_library"
        RETAINGRAPH_LEAKS_JSON="$work/$suite-process-reports/")
      # A run that hangs (async-algorithms' XCTest process has, waiting on an expectation) is
      # ended after RUN_TIMEOUT seconds and left out of the medians, as is any failing run.
      (cd "$suite_source" && /usr/bin/time -f '%e %U %S %M' -o "$times" \
        timeout "${RUN_TIMEOUT:-300}" env "${variables[@]}" "$suite_bundle" "${arguments[@]}") \
        >"$log" 2>&1 || status=$?
      read -r wall user system rss < <(tail -1 "$times")
      cpu="$(awk "BEGIN { printf \"%.2f\", $user + $system }")"
      check="$(grep -E '^\(checked in' "$log" | tail -1 || true)"
      read_objects="$(grep -E '^RetainGraph:' "$log" | tail -1 | grep -oE '[0-9]+ objects read' || true)"
      [[ $status == 0 ]] && printf '%s\t%s\t%s\t%s\t%s\n' "$mode" "$wall" "$cpu" "$rss" \
        "$(sed -E 's/^\(checked in ([0-9.]+) s.*processor ([0-9.]+) s.*/\1 \2/' <<<"$check")" \
        >>"$work/$suite-exit-check.tsv"
      printf '%s run %d, check %-3s: wall %6.2f s, processor %6.2f s, peak RSS %4d MB, exit %d (load %s -> %s)%s\n' \
        "$suite" "$run" "$mode" "$wall" "$cpu" "$((rss / 1024))" "$status" "$before" "$(load)" \
        "${check:+; $read_objects $check}"
    done
  done
  for column in 2 3 4; do
    off="$(awk -F'\t' -v c="$column" '$1 == "off" { print $c }' "$work/$suite-exit-check.tsv" | median)"
    on="$(awk -F'\t' -v c="$column" '$1 == "on" { print $c }' "$work/$suite-exit-check.tsv" | median)"
    name=(- - "wall (s)" "processor (s)" "peak RSS (KB)")
    printf '%s median %-14s off %10s  on %10s  on / off %.3f\n' "$suite" "${name[$column]}" \
      "$off" "$on" "$(awk "BEGIN { print $on / $off }")"
  done
  checks="$(awk -F'\t' '$1 == "on" { split($5, t, " "); print t[1] }' "$work/$suite-exit-check.tsv" | median)"
  cpus="$(awk -F'\t' '$1 == "on" { split($5, t, " "); print t[2] }' "$work/$suite-exit-check.tsv" | median)"
  echo "$suite median check: $checks s wall, $cpus s processor (goal <= 0.5 s)"
done
