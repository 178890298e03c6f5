#!/usr/bin/env bash
# The server example's throughput with sampled heap profiles against the server that does not
# link RetainGraph at all (issue 27: sampled / not linked >= 0.97), with wrk on loopback.
#
#   Benchmarks/Scripts/server-throughput.sh [ROUNDS]          default 5 rounds
#
# Builds Examples/SessionServer's `session-server` (links no RetainGraph product) and
# `session-server-profiled` (links HeapProfiles: malloc and free interposed) in release, then
# runs ROUNDS rounds; each round runs both servers one after the other (the order alternates
# between rounds), each on an ephemeral loopback port: `wrk -t2 -c32 -d10s` on GET /sessions
# after a 2 s warm-up; the profiled server with `--heap-profile on` (one sample per 512 KiB)
# and one profile fetched from /debug/pprof/heap after its run, so the figure includes a
# server that really sampled. Prints each run's requests per second with the load average, and
# the ratio of the medians. wrk and the server share the machine's cores: compare the ratio, and
# re-take it on a quiet machine (1-minute load below 1).
#
# Environment: SERVER_SCRATCH (SwiftPM scratch path, default .build-server-release at the
# repository root), WRK_DURATION (default 10s), WRK_CONNECTIONS (default 32).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$(dirname "$here")")"
rounds="${1:-5}"
scratch="${SERVER_SCRATCH:-$root/.build-server-release}"
duration="${WRK_DURATION:-10s}"
connections="${WRK_CONNECTIONS:-32}"

case "${1:-}" in -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }

echo "building session-server and session-server-profiled (release) in $scratch ..." >&2
for product in session-server session-server-profiled; do
  swift build --package-path "$root/Examples/SessionServer" --scratch-path "$scratch" \
    -c release --product "$product" >&2 || { echo "$product build failed" >&2; exit 2; }
done
bin="$scratch/release"
if nm -D --defined-only "$bin/session-server" | grep -qw malloc; then
  echo "session-server defines malloc: it must not link the census" >&2; exit 2
fi
nm -D --defined-only "$bin/session-server-profiled" | grep -qw malloc \
  || { echo "session-server-profiled does not define malloc" >&2; exit 2; }

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

run() {  # run NAME ARGS...: starts the server, prints wrk's requests/s, stops the server
  local name="$1"; shift
  : >"$log"
  "$bin/$name" --host 127.0.0.1 --port 0 "$@" >"$log" 2>&1 &
  local pid=$! port="" waited=0
  while [ -z "$port" ]; do
    # Hummingbird logs the bound address on stderr (unbuffered); stdout is buffered in a file.
    port="$(grep -Eo '127\.0\.0\.1:[0-9]+' "$log" | head -1 | sed 's/.*://')" || true
    if [ -z "$port" ]; then
      kill -0 "$pid" 2>/dev/null || { echo "$name exited: $(cat "$log")" >&2; return 1; }
      waited=$((waited + 1)); [ "$waited" -lt 600 ] || { kill "$pid"; return 1; }
      sleep 0.1
    fi
  done
  wrk -t2 -c"$connections" -d2s "http://127.0.0.1:$port/sessions" >/dev/null
  local rate
  rate="$(wrk -t2 -c"$connections" -d"$duration" "http://127.0.0.1:$port/sessions" \
    | awk '/Requests\/sec/ { print $2 }')"
  if [ "$name" = session-server-profiled ]; then
    curl -sf -o /dev/null "http://127.0.0.1:$port/debug/pprof/heap" \
      || { echo "no profile from $name" >&2; kill "$pid"; return 1; }
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$rate"
}

bare=(); sampled=()
for round in $(seq 1 "$rounds"); do
  order=(bare sampled); [ $((round % 2)) -eq 0 ] && order=(sampled bare)
  for which in "${order[@]}"; do
    load="$(cut -d' ' -f1-3 /proc/loadavg)"
    if [ "$which" = bare ]; then
      rate="$(run session-server)"; bare+=("$rate")
    else
      rate="$(run session-server-profiled --heap-profile on)"; sampled+=("$rate")
    fi
    echo "round $round, $which: $rate requests/s (load before: $load)"
  done
done

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mb="$(median "${bare[@]}")"; ms="$(median "${sampled[@]}")"
echo
echo "wrk -t2 -c$connections -d$duration GET /sessions, release, $rounds rounds; $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| server | median requests/s | runs |"
echo "|---|---:|---|"
echo "| session-server (not linked) | $mb | ${bare[*]} |"
echo "| session-server-profiled --heap-profile on | $ms | ${sampled[*]} |"
awk -v s="$ms" -v b="$mb" 'BEGIN { printf "sampled / not linked: %.3f (goal >= 0.97)\n", s / b }'
