#!/usr/bin/env bash
# Leaked cycles at the exit of two real third-party test suites, with no test changed (issue
# 24): swift-async-algorithms 1.1.4 (XCTest) and hummingbird 2.28.1 (Swift Testing, real
# loopback servers), from the package mirror. Each suite's tests are built once (debug, as
# `swift test` builds them), then run RUNS times without and RUNS times with the check
# preloaded, alternating (off, on, off, on, ...), each run timed; the script prints per run the
# wall time, the exit status and the test counts, and per suite the leak groups the check found
# (shape, cycles, bytes, fingerprint) and whether the results were the same with and without.
#
#   Benchmarks/Scripts/suite-leaks.sh [RUNS] [SUITE...]   default 3 runs, both suites
#
# SUITE is async-algorithms or hummingbird. The preloaded library is SuiteLeaksPreload, built
# in release from this checkout (PRELOAD_CONFIGURATION=debug for a debug one). Wall clock is
# a result only on a quiet machine: the load average is printed with every run.
#
# Environment: SUITES_DIR (where the suites are cloned and built, default .build-suites at the
# repository root), PRELOAD_SCRATCH (the library's scratch path, default .build-preload).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$(dirname "$here")")"
# shellcheck source=suite-sources.sh
source "$here/suite-sources.sh"
suite_setup 3 2,17 "$@"
library="$preload_library"

# The counts a test run prints last: XCTest's "Executed N tests, with F failures" and Swift
# Testing's "Test run with N tests ... passed/failed".
counts() {
  local log="$1" xctest testing
  xctest="$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1 |
    sed -E 's/.*Executed ([0-9]+) tests?, with ([0-9]+) failures?.*/XCTest \1 run, \2 failed/')" || true
  testing="$(grep -E "Test run with [0-9]+ tests?" "$log" | tail -1 |
    sed -E 's/.*Test run with ([0-9]+) tests?.* (passed|failed).*/Swift Testing \1 \2/')" || true
  echo "${xctest:-XCTest none}; ${testing:-Swift Testing none}"
}

for suite in "${suites[@]}"; do
  echo
  echo "== $suite, load: $(load)"
  prepare_suite "$suite" "$work"
  source="$suite_source"
  echo "$suite $suite_tag ($(git -C "$source" rev-parse --short HEAD))"
  results=()
  for run in $(seq 1 "$runs"); do
    for mode in off on; do
      log="$work/$suite-$mode-$run.log"
      reports="$work/$suite-reports-$run"
      rm -rf "$reports"
      before="$(load)"
      start=$(date +%s.%N)
      status=0
      if [[ $mode == on ]]; then
        LD_PRELOAD="$library" RETAINGRAPH_LEAKS_JSON="$reports/" \
          swift test --package-path "$source" --skip-build >"$log" 2>&1 || status=$?
      else
        swift test --package-path "$source" --skip-build >"$log" 2>&1 || status=$?
      fi
      seconds="$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")"
      summary="$(counts "$log")"
      results+=("$mode|$summary|$status")
      printf '%s run %d, census %-3s: %7.1f s, exit %d, %s (load %s -> %s)\n' \
        "$suite" "$run" "$mode" "$seconds" "$status" "$summary" "$before" "$(load)"
    done
  done
  # The same results with and without: every run's counts and status, by mode.
  off="$(printf '%s\n' "${results[@]}" | grep '^off|' | cut -d'|' -f2- | sort -u)"
  on="$(printf '%s\n' "${results[@]}" | grep '^on|' | cut -d'|' -f2- | sort -u)"
  if [[ "$off" == "$on" ]]; then echo "results unchanged: $off"; else
    echo "RESULTS DIFFER: off: $off / on: $on"; fi
  echo "the check's summary (last run with the census):"
  grep -E "^RetainGraph:|^[0-9]+\. |^     |^   created at|^\(checked in" "$work/$suite-on-$runs.log" || echo "(none printed)"
  echo "reports: $(ls "$work/$suite-reports-$runs" 2>/dev/null | wc -l) files in $work/$suite-reports-$runs"
done
