#!/usr/bin/env bash
# The heap census in a long run with no reads: CensusSoak (10 million allocate + free cycles of
# objects, arrays, closures and dictionaries, the census on), in a debug and a release build.
# The figures to read are RSS and the census table's bytes before, every million cycles, and
# after: bounded memory means they stop growing once the live set is reached.
#
#   Benchmarks/Scripts/census-soak.sh [CYCLES]       default 10000000
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
cycles="${1:-10000000}"
scratch="${CENSUS_SCRATCH:-$root/.build-bench-census}"

case "${1:-}" in -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}"; exit 0 ;; esac

for configuration in debug release; do
  echo "building CensusSoak ($configuration) in $scratch ..." >&2
  swift build --package-path "$benchmarks" --scratch-path "$scratch" -c "$configuration" \
    --product CensusSoak -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >&2 || { echo "CensusSoak build failed" >&2; exit 2; }
  echo "== $configuration, $(date -u '+%Y-%m-%d %H:%M UTC')"
  "$scratch/$configuration/CensusSoak" "$cycles"
done
