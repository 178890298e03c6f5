#!/usr/bin/env bash
# The heap census at scale: about a million live objects (CensusScale, release).
#
#   Benchmarks/Scripts/census-scale.sh [RUNS]        default 3 runs
#
# Prints, per run: HeapCensus.snapshot() (scan + build, goal <= 1 s) and
# snapshot.retentionPath(to:) for an item at the end of a 1,000-link chain (goal <= 100 ms), in
# wall clock and process CPU time, with /proc/loadavg around them; objectCount, referenceCount,
# the census's bytes per live object (goal <= 24) and RSS (peak: VmHWM). Then the same graph
# without the census, for the RSS the census adds. Wall clock is a result only on a quiet
# machine (load average below 1 on 2 cores): this script prints the load with every figure.
#
# The build flags are census-cost.sh's (DWARF 4), so the three scripts share one scratch path
# without rebuilding each other's products.
#
# Environment: CENSUS_SCRATCH (SwiftPM scratch path, default .build-bench-census at the
# repository root).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
runs="${1:-3}"
scratch="${CENSUS_SCRATCH:-$root/.build-bench-census}"

case "${1:-}" in -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}"; exit 0 ;; esac

echo "building CensusScale (release) in $scratch ..." >&2
swift build --package-path "$benchmarks" --scratch-path "$scratch" -c release \
  --product CensusScale -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >&2 || { echo "CensusScale build failed" >&2; exit 2; }
bin="$scratch/release/CensusScale"

echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(nproc) cores, $(uname -srm);" \
  "uptime:$(uptime | sed 's/.*load average/ load average/')"
for run in $(seq 1 "$runs"); do
  echo
  echo "== run $run: census on"
  "$bin" on
done
echo
echo "== the same graph, census off"
"$bin" off
