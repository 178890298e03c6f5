#!/usr/bin/env bash
# Attach (issue 26) at scale: the three figures of the issue's table.
#
#   Benchmarks/Scripts/attach-scale.sh [RUNS] [OBJECTS]      defaults: 3 runs, 1000000 objects
#
#   1. target stopped, 1M live objects (goal <= 1 s): the stop `retain-graph attach` reports
#      (first thread stopped to last thread let go), attaching to `attach-many OBJECTS` (a
#      linked list a global holds; Tests/Fixtures/AttachTargets, no RetainGraph code in it).
#   2. attach to answer `--who-holds`, 1M live objects (goal <= 3 s): the wall clock of
#      `retain-graph attach PID --who-holds attach_many.Node`, process start to exit.
#   3. objects found vs the in-process census of the same program (goal >= 99 %, none the
#      census lacks): AttachCensusCompare (Benchmarks/Sources) built with HeapCensus, serving
#      about OBJECTS objects of every kind, attached to, then its census's graph written and
#      compared with the attach's (objects, type names, references and their roles); the
#      chunk headers of the objects one has and the other lacks are printed while the
#      program still runs.
#
# Everything is built in release. Wall clock is a result only on a quiet machine: the load
# average is printed with every figure.
#
# Environment: ATTACH_SCRATCH (SwiftPM scratch path prefix, default .build-bench-attach at the
# repository root; the fixtures and the benchmarks get -fixtures and -benchmarks suffixes).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
case "${1:-}" in -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
runs="${1:-3}"
objects="${2:-1000000}"
scratch="${ATTACH_SCRATCH:-$root/.build-bench-attach}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building retain-graph, the fixtures and AttachCensusCompare (release) ..." >&2
swift build --package-path "$root" --scratch-path "$scratch" -c release --product retain-graph >&2
swift build --package-path "$root/Tests/Fixtures/AttachTargets" --scratch-path "$scratch-fixtures" \
  -c release >&2
swift build --package-path "$benchmarks" --scratch-path "$scratch-benchmarks" -c release \
  --product AttachCensusCompare >&2
tool="$scratch/release/retain-graph"
fixtures="$scratch-fixtures/release"
compare="$scratch-benchmarks/release/AttachCensusCompare"

load() { cut -d' ' -f1-3 /proc/loadavg; }
now() { date +%s.%N; }

# Starts a program with a pipe on its standard input; waits for its "ready" line.
start() {
  local name="$1"; shift
  mkfifo "$work/$name.in"
  "$@" < "$work/$name.in" > "$work/$name.out" 2>/dev/null &
  pids+=("$!")
  exec {fd}> "$work/$name.in"
  eval "${name}_fd=$fd"
  for _ in $(seq 1 600); do grep -q '^ready' "$work/$name.out" && break; sleep 0.1; done
  grep -q '^ready' "$work/$name.out" || { echo "$name did not start" >&2; exit 2; }
}

echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(nproc) cores, $(uname -srm)"
echo
echo "== figures 1 and 2: attach-many $objects"
start many "$fixtures/attach-many" "$objects"
many_pid=$(awk '/^ready/ {print $2}' "$work/many.out")
for run in $(seq 1 "$runs"); do
  before=$(load)
  start_time=$(now)
  "$tool" attach "$many_pid" --who-holds attach_many.Node > "$work/attach-$run.txt"
  end_time=$(now)
  stopped=$(grep -m1 '^stopped' "$work/attach-$run.txt")
  objects_line=$(head -1 "$work/attach-$run.txt")
  wall=$(echo "$end_time - $start_time" | bc -l)
  printf 'run %d: %s | %s | --who-holds answered in %.3f s wall | load %s -> %s\n' \
    "$run" "${objects_line#*: }" "$stopped" "$wall" "$before" "$(load)"
done
kill -9 "$many_pid"

echo
echo "== figure 3: objects found vs the in-process census (AttachCensusCompare)"
sections=$(( (objects + 999) / 1000 ))
RETAINGRAPH_CENSUS=1 start census "$compare" serve "$work/census.json" "$sections"
census_pid=$(awk '/^ready/ {print $2}' "$work/census.out")
# To a file, then its first lines: `| head -2` closed the pipe while the tool still wrote, and
# the tool's SIGPIPE ended this script (pipefail) before the comparison.
"$tool" attach "$census_pid" --top 5 --output "$work/attach.json" > "$work/attach-top.txt"
head -2 "$work/attach-top.txt"
echo go >&"$census_fd"
for _ in $(seq 1 600); do grep -q '^done' "$work/census.out" && break; sleep 0.1; done
"$compare" compare "$work/census.json" "$work/attach.json" | tee "$work/compare.txt" \
  && verdict=met || verdict="NOT met"
echo "goal (>= 99 %, no object the census lacks): $verdict; load $(load)"
addresses=$(grep -o 'at 0x[0-9a-f]*' "$work/compare.txt" | cut -d' ' -f2 | head -20 || true)
if [[ -n "$addresses" ]]; then
  echo
  echo "== chunk headers of the objects only one of them has (the census's process still runs)"
  # shellcheck disable=SC2086
  "$compare" headers "$census_pid" $addresses
fi
