#!/usr/bin/env bash
# What the heap census adds to an allocation, counted by callgrind (load-independent).
#
#   Benchmarks/Scripts/census-cost.sh
#
# Two loops (CensusSupport's AllocationLoop): `object` allocates a small class instance and
# frees the previous one; `array` builds a [Payload] of four and drops the previous one (five
# mallocs and five frees: four objects and the array's storage). Four modes, release builds:
#   bare     CensusCostBare: does not link HeapCensus (glibc's malloc/free directly)
#   off      CensusCost off: links HeapCensus (its interposed malloc/free), census not started
#   on       CensusCost on: HeapCensus.start() before the loop (every object recorded with its
#            creation stack, up to 16 frames read from frame pointers; the tool exits unless it
#            sees an object and its site)
#   sampled  CensusCost sampled: HeapCensus.startSampling() (512 KiB), the census not recording
# Each runs under `valgrind --tool=callgrind` at N and 2N iterations; per iteration =
# (Ir(2N) - Ir(N)) / N, so start-up cancels out (the few samples' unwinding is spread over
# the iterations). Goals: off/bare <= 1.02, on/off <= 1.4 (issue 35), sampled/bare <= 1.03.
#
# Environment: CENSUS_COST_N (default 100000), CALLGRIND_SCRATCH (SwiftPM scratch path,
# default .build-bench-census at the repository root), CALLGRIND_OUT (folder for valgrind's
# files, default a temporary folder; `callgrind_annotate FILE` there says where instructions go).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
n="${CENSUS_COST_N:-100000}"
scratch="${CALLGRIND_SCRATCH:-$root/.build-bench-census}"
out="${CALLGRIND_OUT:-$(mktemp -d)}"
mkdir -p "$out"

case "${1:-}" in -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

for product in CensusCostBare CensusCost; do
  echo "building $product (release, DWARF 4: valgrind 3.19 cannot read DWARF 5) in $scratch ..." >&2
  swift build --package-path "$benchmarks" --scratch-path "$scratch" -c release \
    --product "$product" -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >&2 \
    || { echo "$product build failed" >&2; exit 2; }
done
bare="$scratch/release/CensusCostBare"
linked="$scratch/release/CensusCost"
# The linked executable must define malloc and free itself, the bare one must not.
nm -D --defined-only "$linked" | grep -qw malloc || { echo "CensusCost does not define malloc" >&2; exit 2; }
if nm -D --defined-only "$bare" | grep -qw malloc; then echo "CensusCostBare defines malloc" >&2; exit 2; fi

ir() {  # ir NAME COMMAND...: callgrind's instruction total for the command
  local name="$1"; shift
  local log="$out/$name.callgrind.log"
  valgrind --tool=callgrind --callgrind-out-file="$out/$name.callgrind" "$@" >"$log" 2>&1 \
    || { echo "run failed: $* (see $log)" >&2; return 1; }
  grep -Eo 'Collected : [0-9]+' "$log" | grep -Eo '[0-9]+'
}
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.1f", (b - a) / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "-" }'; }

declare -A irs
for loop in object array; do
  for mode in bare off on sampled; do
    if [ "$mode" = bare ]; then command=("$bare" "$loop"); else command=("$linked" "$mode" "$loop"); fi
    small="$(ir "$mode-$loop-$n" "${command[@]}" "$n")" || exit 2
    large="$(ir "$mode-$loop-$((2 * n))" "${command[@]}" "$((2 * n))")" || exit 2
    irs[$mode-$loop]="$(per "$small" "$large" "$n")"
    echo "  $mode $loop: ${irs[$mode-$loop]} Ir per iteration" >&2
  done
done

echo
echo "callgrind, release, N=$n and 2N; $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg); files in $out"
echo
echo "| loop | not linked (Ir/iter) | linked, off | linked, on | sampled | off / not linked (goal <= 1.02) | on / off (goal <= 1.4) | sampled / not linked (goal <= 1.03) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for loop in object array; do
  echo "| $loop | ${irs[bare-$loop]} | ${irs[off-$loop]} | ${irs[on-$loop]} | ${irs[sampled-$loop]} |" \
    "$(ratio "${irs[off-$loop]}" "${irs[bare-$loop]}") | $(ratio "${irs[on-$loop]}" "${irs[off-$loop]}") |" \
    "$(ratio "${irs[sampled-$loop]}" "${irs[bare-$loop]}") |"
done
