#!/usr/bin/env bash
# Every figure of issue 15's table ("Analysis at heap scale"), each with the load average it
# was taken at. Wall-clock figures mean something only on a quiet machine: the script prints
# the 1-minute load before and after each run and warns when it exceeds the number of cores.
# Memory figures (bytes per node and per edge, peak RSS) do not depend on the load.
#
#   Benchmarks/Scripts/graph-scale.sh            build (release) and print the table
#   GRAPH_SCALE_SKIP_BUILD=1 Benchmarks/Scripts/graph-scale.sh
#
# Figures and where they come from (GraphScale, Benchmarks/Sources/GraphScale):
#   snapshot of a live graph, 1M nodes / 2M edges      `live 1000000`, median of 3
#   detection end to end from a live graph, 1M / 2M    `live 1000000`, median of 3
#   memory per node / per edge in the live graph       `live 1000000` (resident deltas)
#   peak RSS at 4M nodes / 8M edges, end to end        `live-end-to-end 4000000` (VmHWM)
#   per-edge detection cost at 1M vs 10k               `live-end-to-end` at both, medians
#   (extra) CompactGraph alone, 1M: SCC + root paths, 100 who-holds-it queries   `compact`
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
scratch="${GRAPH_SCALE_SCRATCH:-$root/.build-bench}"
cores="$(nproc)"

if [[ -z "${GRAPH_SCALE_SKIP_BUILD:-}" ]]; then
    swift build -c release --package-path "$benchmarks" --scratch-path "$scratch" \
        --product GraphScale >&2
fi
tool="$scratch/release/GraphScale"

load() { cut -d' ' -f1-3 /proc/loadavg; }
warn_if_loaded() {
    awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v c="$cores" \
        'BEGIN { if (l > c) print "WARNING: 1-minute load " l " > " c " cores: wall-clock figures are not results" }'
}

echo "# graph-scale.sh on $(hostname), $(date -u +%Y-%m-%dT%H:%MZ), $cores cores, $(uname -r)"
echo "# load before: $(load)"
warn_if_loaded

live="$("$tool" live 1000000)"
echo "$live" | grep -E '^#|FIGURE'
small="$("$tool" live-end-to-end 10000)"
large="$("$tool" live-end-to-end 1000000)"
echo "$small" | grep -E 'FIGURE'
echo "$large" | grep -E 'FIGURE'
huge="$("$tool" live-end-to-end 4000000)"
echo "$huge" | grep -E 'FIGURE|peak RSS|resident with'

# The compact graph alone (what the heap census builds): "who holds it" queries.
"$tool" compact 1000000 | grep -E '^#|who-holds|SCC \+ root paths|graph arrays'

per_edge() { echo "$1" | grep 'FIGURE detection end to end' | sed -E 's/.*: ([0-9.]+) ms.*/\1/'; }
awk -v s="$(per_edge "$small")" -v l="$(per_edge "$large")" 'BEGIN {
    ps = s * 1e6 / 20016; pl = l * 1e6 / 2000016
    printf "TABLE per-edge detection cost: 10k %.1f ns/edge, 1M %.1f ns/edge, ratio %.2fx (goal <= 3x)\n", ps, pl, pl / ps
}'
echo "# load after: $(load)"
warn_if_loaded
