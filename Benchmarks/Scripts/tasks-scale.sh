#!/usr/bin/env bash
# Tasks (issue 34) at scale: the two figures of the issue's table, in release builds.
#
#   Benchmarks/Scripts/tasks-scale.sh [RUNS] [TASKS] [LIVE]      defaults: 5 runs, 10000, 1000
#
#   1. `retain-graph attach PID --tasks` on a process with TASKS suspended tasks, end to end
#      (goal <= 1 s): the wall clock of the tool, process start to exit, attached to
#      `attach-tasks TASKS` (Tests/Fixtures/AttachTargets, no RetainGraph code in it), with its
#      user and system CPU time (the tool's and its llvm-symbolizer runs'). Each run is paired
#      with a plain `retain-graph attach PID` of the same process, alternating, and the ratio
#      of their medians is printed: a ratio holds on a loaded machine where a wall clock does
#      not. The first --tasks run of a fresh tool is also printed (the symbolizer's own start).
#   2. the leaked-task check at the end of a test with LIVE live tasks (goal <= 20 ms):
#      TaskCheckScale (Benchmarks/Sources), which prints wall and process CPU time.
#
# Wall clock is a result only on a quiet machine: the load average is printed with every
# figure.
#
# Environment: TASKS_SCRATCH (SwiftPM scratch path prefix, default .build-bench-tasks at the
# repository root; the fixtures and the benchmarks get -fixtures and -benchmarks suffixes).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
case "${1:-}" in -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
runs="${1:-5}"
tasks="${2:-10000}"
live="${3:-1000}"
scratch="${TASKS_SCRATCH:-$root/.build-bench-tasks}"
work="$(mktemp -d)"
target=""
cleanup() {
  [ -n "$target" ] && kill -9 "$target" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "building retain-graph, attach-tasks and TaskCheckScale (release) ..." >&2
swift build --package-path "$root" --scratch-path "$scratch" -c release --product retain-graph >&2
swift build --package-path "$root/Tests/Fixtures/AttachTargets" --scratch-path "$scratch-fixtures" \
  -c release --product attach-tasks >&2
swift build --package-path "$benchmarks" --scratch-path "$scratch-benchmarks" -c release \
  --product TaskCheckScale >&2
tool="$scratch/release/retain-graph"

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(nproc) cores, $(uname -srm); load: $(load)"

mkfifo "$work/in"
"$scratch-fixtures/release/attach-tasks" "$tasks" < "$work/in" > "$work/out" 2>/dev/null &
target="$!"
exec {keep}> "$work/in"
for _ in $(seq 600); do grep -q '^ready' "$work/out" && break; sleep 0.1; done
grep -q '^ready' "$work/out" || { echo "attach-tasks did not start" >&2; exit 2; }

# One run of the tool: "wall user system" in seconds, its output in $work/last.
timed() {
  /usr/bin/time -f '%e %U %S' -o "$work/time" "$tool" attach "$target" "$@" > "$work/last" 2>&1
  cat "$work/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo
echo "== 1. retain-graph attach PID --tasks, $tasks suspended tasks (goal <= 1 s)"
first="$(timed --tasks)"
echo "first run: wall, user, system (s): $first   load: $(load)"
grep -m1 ' tasks in ' "$work/last" || true
: > "$work/tasks"; : > "$work/plain"
for run in $(seq "$runs"); do
  with="$(timed --tasks)"; echo "$with" >> "$work/tasks"
  without="$(timed)"; echo "$without" >> "$work/plain"
  echo "run $run: --tasks $with | plain $without   load: $(load)"
done
tasks_median="$(cut -d' ' -f1 "$work/tasks" | median)"
plain_median="$(cut -d' ' -f1 "$work/plain" | median)"
cpu_tasks="$(awk '{ print $2 + $3 }' "$work/tasks" | median)"
cpu_plain="$(awk '{ print $2 + $3 }' "$work/plain" | median)"
echo "median wall: --tasks $tasks_median s, plain $plain_median s" \
  "(ratio $(awk -v a="$tasks_median" -v b="$plain_median" 'BEGIN { printf "%.2f", a / b }'))"
echo "median CPU (user + system): --tasks $cpu_tasks s, plain $cpu_plain s" \
  "(ratio $(awk -v a="$cpu_tasks" -v b="$cpu_plain" 'BEGIN { printf "%.2f", a / b }'))   load: $(load)"

echo
echo "== 2. the leaked-task check at the end of a test, $live live tasks (goal <= 20 ms)"
"$scratch-benchmarks/release/TaskCheckScale" "$live" 15
