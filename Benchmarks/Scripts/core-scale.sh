#!/usr/bin/env bash
# Core files and fork dumps at scale (issue 33): the figures of the issue's table.
#
#   Benchmarks/Scripts/core-scale.sh [RUNS] [OBJECTS] [RESIDENT_MIB]
#                                    defaults: 3 runs, 1000000 objects, 1024 MiB
#
#   1. `retain-graph dump`, target stopped, OBJECTS objects (goal <= 0.25 s): the stop the tool
#      reports, dumping `attach-many OBJECTS` (a linked list a global holds; no RetainGraph code).
#   2. `retain-graph core --who-holds`, OBJECTS objects (goal <= 1 s): the wall clock of
#      `retain-graph core CORE --who-holds attach_many.Node`, process start to exit.
#   3. core file size vs resident memory (goal <= 1.1x): the core's blocks on disk (du; pages of
#      zeros are holes) over the target's VmRSS when dumped, for `retain-graph dump`'s core and
#      for a fork dump's (the file's length, holes included, is printed too).
#   4. fork dump, parent paused (goal <= 50 ms at 1 GiB resident): `attach-many OBJECTS` and
#      `attach-dump-target` grown to RESIDENT_MIB MiB, each with libHeapDumpsPreload.so preloaded
#      (RETAINGRAPH_DUMP_SIGNAL=SIGUSR2), dumped on SIGUSR2; the pause (the thread inside
#      clone; pause_cpu_ns: its CPU time, the figure on a busy machine) and the dump's time from
#      the core's sidecar (CORE.txt).
#
# Everything is built in release. Wall clock is a result only on a quiet machine: the load
# average is printed with every figure.
#
# Environment: CORES_SCRATCH (SwiftPM scratch path prefix, default .build-bench-cores at the
# repository root; the fixtures get a -fixtures suffix).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$(dirname "$here")")"
case "${1:-}" in -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
runs="${1:-3}"
objects="${2:-1000000}"
resident_mib="${3:-1024}"
scratch="${CORES_SCRATCH:-$root/.build-bench-cores}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "building retain-graph, libHeapDumpsPreload.so and the fixtures (release) ..." >&2
swift build --package-path "$root" --scratch-path "$scratch" -c release --product retain-graph >&2
swift build --package-path "$root" --scratch-path "$scratch" -c release \
  --product HeapDumpsPreload >&2
swift build --package-path "$root/Tests/Fixtures/AttachTargets" --scratch-path "$scratch-fixtures" \
  -c release >&2
tool="$scratch/release/retain-graph"
preload="$scratch/release/libHeapDumpsPreload.so"
fixtures="$scratch-fixtures/release"

load() { cut -d' ' -f1-3 /proc/loadavg; }
now() { date +%s.%N; }
resident() { awk '/^VmRSS/ {print $2 * 1024}' "/proc/$1/status"; }
disk() { echo $(( $(stat -c '%b * %B' "$1") )); }
ratio() { echo "scale=3; $1 / $2" | bc -l; }

# start NAME COMMAND...: runs it with a pipe on its standard input; waits for its "ready" line.
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

# fork_dump PID DIR N: SIGUSR2, then waits for the sidecar of dump N; prints it on one line.
fork_dump() {
  local pid="$1" dir="$2" n="$3" sidecar
  # The watcher numbers a dump with the first number whose core and sidecar are both free, and
  # writes the sidecar whole once the dump has ended: a run's core and sidecar are removed
  # after it, so every run waits for a sidecar of its own.
  rm -f "$dir"/core.*."$pid".*.txt
  kill -USR2 "$pid"
  for _ in $(seq 1 6000); do
    sidecar=$(ls "$dir"/core.*."$pid".*.txt 2>/dev/null || true)
    [[ -n "$sidecar" ]] && break
    sleep 0.05
  done
  [[ -n "$sidecar" ]] || { echo "no dump $n of $pid" >&2; exit 2; }
  awk '{printf "%s=%s ", $1, $2}' "$sidecar"
}

echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(nproc) cores, $(uname -srm)"
echo
echo "== figures 1-3: retain-graph dump and core, attach-many $objects"
start many "$fixtures/attach-many" "$objects"
many_pid=$(awk '/^ready/ {print $2}' "$work/many.out")
for run in $(seq 1 "$runs"); do
  before=$(load)
  rss=$(resident "$many_pid")
  "$tool" dump "$many_pid" "$work/many.core" > "$work/dump-$run.txt"
  stopped=$(grep -o 'stopped [0-9.]* m\?s' "$work/dump-$run.txt")
  start_time=$(now)
  "$tool" core "$work/many.core" --who-holds attach_many.Node > "$work/core-$run.txt"
  wall=$(echo "$(now) - $start_time" | bc -l)
  printf 'run %d: dump %s | core --who-holds %.3f s wall | core %d bytes on disk (%d long) / VmRSS %d = %s | load %s -> %s\n' \
    "$run" "$stopped" "$wall" "$(disk "$work/many.core")" "$(stat -c %s "$work/many.core")" \
    "$rss" "$(ratio "$(disk "$work/many.core")" "$rss")" "$before" "$(load)"
  rm -f "$work/many.core"
done
grep -m1 '^WHO HOLDS' "$work/core-1.txt"
kill -9 "$many_pid"

echo
echo "== figure 4: fork dump of attach-many $objects (HeapDumps preloaded)"
mkdir -p "$work/fork-many"
LD_PRELOAD="$preload" RETAINGRAPH_DUMP_SIGNAL=SIGUSR2 RETAINGRAPH_DUMP_LIMIT=100 \
  RETAINGRAPH_DUMP_DIR="$work/fork-many" RETAINGRAPH_DUMP_POLL_MS=20 \
  start forkmany "$fixtures/attach-many" "$objects"
fork_pid=$(awk '/^ready/ {print $2}' "$work/forkmany.out")
for run in $(seq 1 "$runs"); do
  before=$(load)
  rss=$(resident "$fork_pid")
  printf 'run %d: %s| disk/VmRSS %s | load %s -> %s\n' "$run" "$(fork_dump "$fork_pid" "$work/fork-many" "$run")" \
    "$(ratio "$(disk "$(ls "$work"/fork-many/core.*[0-9])")" "$rss")" "$before" "$(load)"
  rm -f "$work"/fork-many/core.*
done
kill -9 "$fork_pid"

echo
echo "== figure 4: fork dump of attach-dump-target grown to $resident_mib MiB (HeapDumps preloaded)"
mkdir -p "$work/fork-big"
LD_PRELOAD="$preload" RETAINGRAPH_DUMP_SIGNAL=SIGUSR2 RETAINGRAPH_DUMP_LIMIT=100 \
  RETAINGRAPH_DUMP_DIR="$work/fork-big" RETAINGRAPH_DUMP_POLL_MS=20 \
  start big "$fixtures/attach-dump-target"
big_pid=$(awk '/^ready/ {print $2}' "$work/big.out")
echo "grow $resident_mib" >&"$big_fd"
for _ in $(seq 1 1200); do grep -q '^grown' "$work/big.out" && break; sleep 0.1; done
echo "resident: $(resident "$big_pid") bytes"
for run in $(seq 1 "$runs"); do
  before=$(load)
  rss=$(resident "$big_pid")
  printf 'run %d: %s| disk/VmRSS %s | load %s -> %s\n' "$run" "$(fork_dump "$big_pid" "$work/fork-big" "$run")" \
    "$(ratio "$(disk "$(ls "$work"/fork-big/core.*[0-9])")" "$rss")" "$before" "$(load)"
  rm -f "$work"/fork-big/core.*
done
