#!/usr/bin/env bash
# The census's snapshot and the at-exit leak check in a debug and a release build, in one run
# (issue 24: "snapshot of a 40k-object heap, debug build / release build ≤ 3×", "the at-exit
# check, 40k objects, debug build ≤ 0.5 s"). Builds ExitCheckScale in both configurations,
# runs each REPEATS times over the same heap (about 40,000 objects of a server's shapes, with
# 200 leaked cycles), then CensusScale's catalog (40,000 objects of one shape) in both, and
# prints the medians and the debug / release ratios of process CPU time.
#
#   Benchmarks/Scripts/exit-check-scale.sh [REPEATS]     default 15
#
# Wall clock follows CPU time on a quiet machine (the snapshot is single-threaded); the script
# prints the load average with every figure. For a profile of the debug build:
#   perf record -g .build-bench-exit/debug/ExitCheckScale 100 45 100 40 2>/dev/null
#
# Environment: EXIT_SCRATCH (SwiftPM scratch path, default .build-bench-exit at the repository
# root).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
repeats="${1:-15}"
case "$repeats" in -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
scratch="${EXIT_SCRATCH:-$root/.build-bench-exit}"

for configuration in debug release; do
  echo "building ExitCheckScale and CensusScale ($configuration) in $scratch ..." >&2
  for product in ExitCheckScale CensusScale; do
    swift build --package-path "$benchmarks" --scratch-path "$scratch" -c "$configuration" \
      --product "$product" >&2 || { echo "$product build failed" >&2; exit 2; }
  done
done

echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(nproc) cores, $(uname -srm);" \
  "load: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A snapshot check catalog
for configuration in debug release; do
  echo
  echo "== ExitCheckScale, $configuration"
  output="$("$scratch/$configuration/ExitCheckScale" 100 45 100 "$repeats" 2>/dev/null)"
  echo "$output"
  snapshot[$configuration]="$(echo "$output" |
    sed -nE 's/^HeapCensus.snapshot\(\): median wall [0-9.]+ ms, CPU ([0-9.]+) ms.*/\1/p')"
  check[$configuration]="$(echo "$output" |
    sed -nE 's/^the at-exit check.*: median wall [0-9.]+ ms, CPU ([0-9.]+) ms.*/\1/p')"
  echo
  echo "== CensusScale 40 sections of 995 items (first snapshot, types new), $configuration"
  times=()
  for run in $(seq 1 5); do
    cpu="$("$scratch/$configuration/CensusScale" on 40 995 100 |
      sed -nE 's/^snapshot \(scan \+ build\): .*process CPU ([0-9.]+) s/\1/p')"
    times+=("$cpu")
  done
  catalog[$configuration]="$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)"
  echo "snapshot CPU, 5 runs: ${times[*]} s (median ${catalog[$configuration]} s)"
done

ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
echo
echo "== debug / release (process CPU, medians; load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "snapshot, server-shaped heap: ${snapshot[debug]} ms / ${snapshot[release]} ms =" \
  "$(ratio "${snapshot[debug]}" "${snapshot[release]}")x (goal <= 3x)"
echo "snapshot, catalog heap (cold): ${catalog[debug]} s / ${catalog[release]} s =" \
  "$(ratio "${catalog[debug]}" "${catalog[release]}")x"
echo "at-exit check, debug: ${check[debug]} ms (goal <= 500 ms); release: ${check[release]} ms"
