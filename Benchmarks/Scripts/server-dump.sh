#!/usr/bin/env bash
# The session server dumped while wrk drives it (issue 33): its leaked sessions found "after the
# fact" in a core, and its throughput while it dumps itself.
#
#   Benchmarks/Scripts/server-dump.sh [ROUNDS] [SESSIONS]      defaults: 5 rounds, 2000 sessions
#
# Builds, in release, Examples/SessionServer's `session-server` (it links no RetainGraph
# product) and, from the root package, `retain-graph` and `libHeapDumpsPreload.so`. Starts the
# server with HeapDumps preloaded (RETAINGRAPH_DUMP_SIGNAL=SIGUSR2) and `--refresh
# task-loop-leaking` on an ephemeral loopback port, and leaks SESSIONS sessions (each opened,
# then ended: its refresh task keeps it). Then:
#   1. After the fact: `wrk -t2 -c32 -d10s` on GET /sessions; 3 s in, `kill -USR2`; once wrk is
#      done the core is read back with `retain-graph core CORE --who-holds SessionServer.Session`
#      (the README's "After the fact" shows such a run).
#   2. Throughput: ROUNDS rounds of two wrk runs each (order alternating): plain, and dumping (a
#      new dump asked for as soon as the previous one is written, the whole run long; each core
#      deleted once written). Prints requests/s with the load average, the dumps taken, and the
#      ratio of the medians (goal >= 0.9). wrk, the server and the dumps share the machine's
#      cores: re-take the ratio on a quiet machine (1-minute load below 1).
#
# Environment: SERVER_SCRATCH (default .build-server-release), CORES_SCRATCH (default
# .build-bench-cores), WRK_DURATION (default 10s), WRK_CONNECTIONS (default 32).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$(dirname "$here")")"
case "${1:-}" in -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
rounds="${1:-5}"
sessions="${2:-2000}"
server_scratch="${SERVER_SCRATCH:-$root/.build-server-release}"
scratch="${CORES_SCRATCH:-$root/.build-bench-cores}"
duration="${WRK_DURATION:-10s}"
connections="${WRK_CONNECTIONS:-32}"
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is not installed" >&2; exit 2; }

echo "building session-server, retain-graph and libHeapDumpsPreload.so (release) ..." >&2
swift build --package-path "$root/Examples/SessionServer" --scratch-path "$server_scratch" \
  -c release --product session-server >&2
swift build --package-path "$root" --scratch-path "$scratch" -c release --product retain-graph >&2
swift build --package-path "$root" --scratch-path "$scratch" -c release \
  --product HeapDumpsPreload >&2
server="$server_scratch/release/session-server"
tool="$scratch/release/retain-graph"
preload="$scratch/release/libHeapDumpsPreload.so"

work="$(mktemp -d)"
pid=""
cleanup() {
  rm -f "$work/dumping"
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

LD_PRELOAD="$preload" RETAINGRAPH_DUMP_SIGNAL=SIGUSR2 RETAINGRAPH_DUMP_LIMIT=100000 \
  RETAINGRAPH_DUMP_DIR="$work" RETAINGRAPH_DUMP_POLL_MS=20 \
  "$server" --refresh task-loop-leaking --host 127.0.0.1 --port 0 >"$work/server.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 600); do
  port="$(grep -Eo '127\.0\.0\.1:[0-9]+' "$work/server.log" | head -1 | sed 's/.*://')" || true
  [[ -n "$port" ]] && break
  kill -0 "$pid" 2>/dev/null || { echo "the server exited: $(cat "$work/server.log")" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$port" ]] || { echo "the server did not say its port" >&2; exit 1; }
url="http://127.0.0.1:$port"

# Leaks SESSIONS sessions: identifiers are s1, s2… in order; one curl per hundred requests.
for ((first = 1; first <= sessions; first += 100)); do
  last=$((first + 99 < sessions ? first + 99 : sessions))
  posts=(); deletes=()
  for ((n = first; n <= last; n++)); do
    posts+=(-o /dev/null -X POST -H 'content-type: application/json' -d "{\"user\":\"u$n\"}" "$url/sessions" --next)
    deletes+=(-o /dev/null -X DELETE "$url/sessions/s$n" --next)
  done
  curl -sf -o /dev/null "${posts[@]}" "$url/sessions"
  curl -sf -o /dev/null "${deletes[@]}" "$url/sessions"
done
echo "server $pid on $url: $(curl -sf "$url/sessions")"

dumps=0
# The driver polls with shell builtins only: an `ls` and a `sleep` every 10 ms (two processes
# each time) took a share of the two cores from the server and counted as the dump's cost.
mkfifo "$work/nap"
exec {nap_fd}<>"$work/nap"  # held open for reading and writing: a read waits for its timeout
nap() { read -r -t "$1" -u "$nap_fd" _ || true; }
# Sets `sidecar` to the first sidecar of the server's dumps in the work folder, or to nothing
# (no command substitution: that forks too).
find_sidecar() {
  local candidate
  sidecar=""
  for candidate in "$work"/core.*."$pid".*.txt; do
    if [[ -e "$candidate" ]]; then sidecar="$candidate"; return 0; fi
  done
  return 0
}
# dump: asks for one and waits for its sidecar (written whole once the dump has ended); sets
# last_core to the core's path. Each dump's core and sidecar are removed before the next, and
# the watcher takes the first number whose core and sidecar are free: the number repeats.
last_core=""
dump() {
  dumps=$((dumps + 1))
  rm -f "$work"/core.*."$pid".*.txt
  kill -USR2 "$pid"
  local sidecar="" tries
  for ((tries = 0; tries < 6000; tries++)); do
    find_sidecar
    [[ -n "$sidecar" ]] && break
    nap 0.01
  done
  [[ -n "$sidecar" ]] || { echo "dump $dumps did not finish" >&2; exit 1; }
  last_core="${sidecar%.txt}"
}

echo
echo "== after the fact: a dump while wrk runs, read back"
wrk -t2 -c"$connections" -d10s "$url/sessions" >"$work/wrk.txt" &
wrk_pid=$!
sleep 3
dump
core="$last_core"
wait "$wrk_pid"
echo "wrk: $(awk '/Requests\/sec/ { print $2 }' "$work/wrk.txt") requests/s; dump: $(tr '\n' ' ' < "$core.txt")"
echo "\$ retain-graph core $(basename "$core") --who-holds SessionServer.Session"
"$tool" core "$core" --who-holds SessionServer.Session | sed "s|$work/||"
rm -f "$core" "$core.txt"

echo
echo "== throughput while dumping: $rounds rounds, wrk -t2 -c$connections -d$duration GET /sessions"
rate() { wrk -t2 -c"$connections" -d"$duration" "$url/sessions" | awk '/Requests\/sec/ { print $2 }'; }
plain=(); dumping=()
for round in $(seq 1 "$rounds"); do
  order=(plain dumping); [[ $((round % 2)) -eq 0 ]] && order=(dumping plain)
  for which in "${order[@]}"; do
    before="$(load)"
    if [[ "$which" == plain ]]; then
      value="$(rate)"; plain+=("$value"); taken=0
    else
      touch "$work/dumping"
      start=$dumps
      echo "$dumps" > "$work/dump-count"
      (
        while [[ -f "$work/dumping" ]]; do
          dump; rm -f "$last_core" "$last_core.txt"
          echo "$dumps" > "$work/dump-count"
        done
      ) &
      looper=$!
      value="$(rate)"; dumping+=("$value")
      rm -f "$work/dumping"; wait "$looper"
      dumps="$(cat "$work/dump-count")"; taken=$((dumps - start))
    fi
    echo "round $round, $which: $value requests/s, $taken dumps (load before: $before)"
  done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mp="$(median "${plain[@]}")"; md="$(median "${dumping[@]}")"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); load $(load); server resident $(awk '/^VmRSS/ {print $2, $3}' "/proc/$pid/status")"
echo "| run | median requests/s | runs |"
echo "|---|---:|---|"
echo "| plain | $mp | ${plain[*]} |"
echo "| dumping all along | $md | ${dumping[*]} |"
awk -v d="$md" -v p="$mp" 'BEGIN { printf "dumping / plain: %.3f (goal >= 0.9)\n", d / p }'
