#!/usr/bin/env bash
# Instructions and heap allocations per timer lifecycle (create + schedule + invalidate),
# counted by valgrind: repeatable where wall time on a shared VM is not.
#
#   Benchmarks/Scripts/lifecycle-count.sh               every variant
#   Benchmarks/Scripts/lifecycle-count.sh VARIANT...    only these (LifecycleCount list)
#
# Each variant runs twice under `valgrind --tool=callgrind` (N and 2N lifecycles) and twice
# under `valgrind --tool=memcheck` (M and 2M); per lifecycle = (count(2N) - count(N)) / N, so
# start-up and set-up cancel out. The tool is LifecycleCount (release, DWARF 4: valgrind 3.19
# cannot read DWARF 5). Prints a table with the goals' ratios: tracked / tracking off
# (goal <= 1.3) and tracking off / bare (goal <= 1.05). The run-loop and frame counts repeat to
# the instruction; the dispatch ones vary by about 10 % from run to run (libdispatch's worker
# thread parks and wakes a timing-dependent number of times), so compare several runs there.
#
# LIFECYCLE_MAIN_THREAD=1 counts the main thread's instructions only (callgrind
# --separate-threads): libdispatch's worker threads park and wake a timing-dependent number of
# times, which moves whole-process dispatch counts by up to 30 % between runs; the main thread,
# where a timer is created, resumed, cancelled and tracked, repeats within about 2 %.
#
# Environment: LIFECYCLE_N (default 20000), LIFECYCLE_M (default 2000), CALLGRIND_SCRATCH
# (SwiftPM scratch path, default .build-bench-callgrind at the repository root), CALLGRIND_OUT
# (folder for valgrind's files, default a temporary folder).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
n="${LIFECYCLE_N:-20000}"
m="${LIFECYCLE_M:-2000}"
scratch="${CALLGRIND_SCRATCH:-$root/.build-bench-callgrind}"
out="${CALLGRIND_OUT:-$(mktemp -d)}"
mkdir -p "$out"
export SWIFT_DETERMINISTIC_HASHING=1

case "${1:-}" in -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

echo "building LifecycleCount (release, DWARF 4) in $scratch ..." >&2
swift build --package-path "$benchmarks" --scratch-path "$scratch" -c release \
  --product LifecycleCount -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >&2 \
  || { echo "LifecycleCount build failed" >&2; exit 2; }
bin="$scratch/release/LifecycleCount"

variants=("$@")
[ ${#variants[@]} -eq 0 ] && mapfile -t variants < <("$bin" list)

ir() {  # ir VARIANT COUNT: callgrind's instruction total (the main thread's with LIFECYCLE_MAIN_THREAD=1)
  local log="$out/$1.$2.callgrind.log"
  if [ "${LIFECYCLE_MAIN_THREAD:-0}" = 1 ]; then
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/$1.$2.callgrind" \
      "$bin" "$1" "$2" >"$log" 2>&1 || { echo "run failed: $1 $2 (see $log)" >&2; return 1; }
    awk '/^totals:/ { print $2 }' "$out/$1.$2.callgrind-01"
    return
  fi
  valgrind --tool=callgrind --callgrind-out-file="$out/$1.$2.callgrind" "$bin" "$1" "$2" >"$log" 2>&1 \
    || { echo "run failed: $1 $2 (see $log)" >&2; return 1; }
  grep -Eo 'Collected : [0-9]+' "$log" | grep -Eo '[0-9]+'
}
allocs() {  # allocs VARIANT COUNT: memcheck's allocation total
  local log="$out/$1.$2.memcheck.log"
  valgrind --tool=memcheck --leak-check=no "$bin" "$1" "$2" >"$log" 2>&1 \
    || { echo "run failed: $1 $2 (see $log)" >&2; return 1; }
  grep -Eo 'total heap usage: [0-9,]+ allocs' "$log" | grep -Eo '[0-9,]+' | tr -d ,
}
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.1f", (b - a) / n }'; }

declare -A irs mallocs
for variant in "${variants[@]}"; do
  small="$(ir "$variant" "$n")" || exit 2
  large="$(ir "$variant" "$((2 * n))")" || exit 2
  irs[$variant]="$(per "$small" "$large" "$n")"
  small="$(allocs "$variant" "$m")" || exit 2
  large="$(allocs "$variant" "$((2 * m))")" || exit 2
  mallocs[$variant]="$(per "$small" "$large" "$m")"
  echo "  $variant: ${irs[$variant]} Ir, ${mallocs[$variant]} allocs per lifecycle" >&2
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
base() {  # the variant a row is compared with: bare for "off", off for tracked ones
  case "$1" in
    *-off) echo "${1%-off}-bare" ;;
    *-tracked|*-traced) echo "${1%-*}-off" ;;
    *) echo "" ;;
  esac
}
echo
echo "| variant | Ir per lifecycle | allocs per lifecycle | compared with | × Ir |"
echo "|---|---:|---:|---|---:|"
for variant in "${variants[@]}"; do
  b="$(base "$variant")"
  if [ -n "$b" ] && [ -n "${irs[$b]:-}" ]; then
    echo "| $variant | ${irs[$variant]} | ${mallocs[$variant]} | $b | $(ratio "${irs[$variant]}" "${irs[$b]}") |"
  else
    echo "| $variant | ${irs[$variant]} | ${mallocs[$variant]} | | |"
  fi
done
