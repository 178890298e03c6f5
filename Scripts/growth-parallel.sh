#!/usr/bin/env bash
# Runs the growth checks that share the process with eight allocating neighbours
# (Tests/HeapGrowthTests/ParallelGrowthTests.swift) ten times in a row, in a normal parallel
# `swift test` run, and fails unless every run passes: the check must report its own body's
# exact growth (or state the interference) every time.
#
#   Scripts/growth-parallel.sh            # build, then 10 runs
#   RUNS=20 Scripts/growth-parallel.sh    # more runs
#   SCRATCH=.build-growth Scripts/growth-parallel.sh
set -euo pipefail

cd "$(dirname "$0")/.."
runs="${RUNS:-10}"
scratch="${SCRATCH:-.build}"

swift build --build-tests --scratch-path "$scratch" >/dev/null
passed=0
for run in $(seq 1 "$runs"); do
    log="$(mktemp)"
    start=$(date +%s)
    if swift test --skip-build --scratch-path "$scratch" --filter ParallelGrowthTests >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "run $run: passed ($(( $(date +%s) - start )) s)"
    else
        echo "run $run: FAILED ($(( $(date +%s) - start )) s)"
        grep -E "✘|Expectation failed|HEAP GROWTH|Other work|counted:" "$log" | head -40
    fi
    rm -f "$log"
done
echo "$passed of $runs runs passed (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
[[ "$passed" == "$runs" ]]
