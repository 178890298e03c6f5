#!/usr/bin/env bash
# Instructions per timer fire, Swift and Objective-C, counted by callgrind: repeatable where
# wall time on a shared VM is not.
#
#   Benchmarks/Scripts/callgrind.sh                 measure, print, check the baseline
#   Benchmarks/Scripts/callgrind.sh --update        measure and rewrite the baseline
#   Benchmarks/Scripts/callgrind.sh --swift-only    skip the Objective-C peer
#   Benchmarks/Scripts/callgrind.sh VARIANT...      only these variants (Swift or ObjC names)
#
# Each variant runs under `valgrind --tool=callgrind` twice, at N and 2N calls; instructions per
# call = (Ir(2N) - Ir(N)) / N, so start-up and set-up cancel out. The Swift side is the
# DispatchCount tool (release, DWARF 4: valgrind 3.19 cannot read DWARF 5); the Objective-C side
# is Benchmarks/ObjCPeer (run.sh builds it, installing GNUstep when missing).
#
# Exit status: 0 when every count is within its tolerance (percent, plus 2 instructions) of the
# checked-in baseline
# (Benchmarks/Scripts/callgrind-baseline.tsv), 1 when one exceeds it (a regression), 2 on a
# usage or build error. Counts lower than the baseline pass and are reported as improvements.
#
# Environment: SWIFT_N (default 100000), OBJC_N (default 10000), CALLGRIND_SCRATCH (SwiftPM
# scratch path, default .build-bench-callgrind at the repository root), CALLGRIND_OUT (folder
# for callgrind's files, default a temporary folder).
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
benchmarks="$(dirname "$here")"
root="$(dirname "$benchmarks")"
baseline="$here/callgrind-baseline.tsv"
swift_n="${SWIFT_N:-100000}"
objc_n="${OBJC_N:-10000}"
scratch="${CALLGRIND_SCRATCH:-$root/.build-bench-callgrind}"
out="${CALLGRIND_OUT:-$(mktemp -d)}"
mkdir -p "$out"

update=0
swift_only=0
only=()
for argument in "$@"; do
  case "$argument" in
    --update) update=1 ;;
    --swift-only) swift_only=1 ;;
    -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "unknown option $argument" >&2; exit 2 ;;
    *) only+=("$argument") ;;
  esac
done

# Swift seeds its hasher randomly per process, so dictionary probes (the selector table, the
# forwarding proxy's hooks) would change the count from run to run.
export SWIFT_DETERMINISTIC_HASHING=1

command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }

echo "building DispatchCount (release, DWARF 4) in $scratch ..." >&2
swift build --package-path "$benchmarks" --scratch-path "$scratch" -c release \
  --product DispatchCount -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 >&2 \
  || { echo "DispatchCount build failed" >&2; exit 2; }
swift_bin="$scratch/release/DispatchCount"
objc_bin=""
if [ "$swift_only" -eq 0 ]; then
  echo "building the Objective-C peer ..." >&2
  objc_bin="$("$benchmarks/ObjCPeer/run.sh" build)" || { echo "ObjC peer build failed" >&2; exit 2; }
fi

selected() {
  [ ${#only[@]} -eq 0 ] && return 0
  local name
  for name in "${only[@]}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}

# total_ir LANG VARIANT N: callgrind's instruction total for one run.
total_ir() {
  local lang="$1" variant="$2" n="$3" file="$out/$1.$2.$3.callgrind" log="$out/$1.$2.$3.log"
  local bin="$swift_bin" args=("$variant" "$n")
  if [ "$lang" = objc ]; then bin="$objc_bin"; args=(count "$variant" "$n"); fi
  if ! valgrind --tool=callgrind --callgrind-out-file="$file" "$bin" "${args[@]}" >"$log" 2>&1; then
    echo "run failed: $lang $variant $n (see $log)" >&2
    return 1
  fi
  grep -Eo 'Collected : [0-9]+' "$log" | grep -Eo '[0-9]+'
}

results=()  # "lang variant ir"
measure() {
  local lang="$1" variant="$2" n="$3" small large
  small="$(total_ir "$lang" "$variant" "$n")" || exit 2
  large="$(total_ir "$lang" "$variant" "$((2 * n))")" || exit 2
  results+=("$lang $variant $(( (large - small + n / 2) / n ))")
  echo "  $lang $variant: $(( (large - small + n / 2) / n )) Ir/call" >&2
}

echo "counting (Swift N=$swift_n, ObjC N=$objc_n; output in $out) ..." >&2
for variant in $("$swift_bin" list); do
  selected "$variant" && measure swift "$variant" "$swift_n"
done
if [ -n "$objc_bin" ]; then
  for variant in $("$objc_bin" list); do
    selected "$variant" && measure objc "$variant" "$objc_n"
  done
fi

lookup() {  # lookup LANG VARIANT -> Ir/call or empty
  local lang="$1" variant="$2" entry
  for entry in "${results[@]}"; do
    set -- $entry
    if [ "$1" = "$lang" ] && [ "$2" = "$variant" ]; then echo "$3"; return; fi
  done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

swift_direct="$(lookup swift direct)"; swift_weak="$(lookup swift closure-weak-self)"
objc_direct="$(lookup objc direct)"; objc_weak="$(lookup objc block-weak)"
echo
echo "| language | variant | Ir/call | × direct | × [weak self] closure / weak block |"
echo "|---|---|---:|---:|---:|"
for entry in "${results[@]}"; do
  set -- $entry
  if [ "$1" = swift ]; then d="$swift_direct"; w="$swift_weak"; else d="$objc_direct"; w="$objc_weak"; fi
  echo "| $1 | $2 | $3 | $(ratio "$3" "${d:-0}") | $(ratio "$3" "${w:-0}") |"
done

echo
proxy="$(lookup swift weakproxy-forward)"
nsproxy="$(lookup objc nsproxy-forward-invocation)"
if [ -n "$proxy" ] && [ -n "$swift_weak" ]; then
  r="$(ratio "$proxy" "$swift_weak")"
  verdict="$(awk -v r="$r" 'BEGIN { print (r <= 1.0 ? "met" : "MISSED") }')"
  echo "goal WeakProxy.forward / [weak self] closure = $r (≤ 1.0): $verdict"
fi
if [ -n "$proxy" ] && [ -n "$nsproxy" ]; then
  r="$(ratio "$nsproxy" "$proxy")"
  verdict="$(awk -v r="$r" 'BEGIN { print (r >= 100 ? "met" : "MISSED") }')"
  echo "goal NSProxy forwardInvocation / WeakProxy.forward = $r (≥ 100): $verdict"
fi
closure="$(lookup swift closure)"
if [ -n "$proxy" ] && [ -n "$closure" ]; then
  r="$(ratio "$proxy" "$closure")"
  verdict="$(awk -v r="$r" 'BEGIN { print (r <= 2.0 ? "met" : "MISSED") }')"
  echo "stretch WeakProxy.forward / stored closure = $r (≤ 2.0): $verdict"
fi

if [ "$update" -eq 1 ]; then
  # Rows measured now replace their old values; rows not measured this time are kept.
  {
    echo "# Callgrind instructions per call; written by Scripts/callgrind.sh --update."
    echo "# language	variant	ir_per_call	tolerance_percent"
    if [ -f "$baseline" ]; then
      grep -v '^#' "$baseline" | while IFS=$'\t' read -r lang variant ir tolerance; do
        [ -n "$(lookup "$lang" "$variant")" ] || printf '%s\t%s\t%s\t%s\n' "$lang" "$variant" "$ir" "$tolerance"
      done
    fi
    for entry in "${results[@]}"; do
      set -- $entry
      tolerance=5
      case "$2" in runloop-*) tolerance=25 ;; esac  # the run loop polls a timing-dependent number of times
      # keep a hand-edited tolerance
      if [ -f "$baseline" ]; then
        old="$(awk -F'\t' -v l="$1" -v v="$2" '$1 == l && $2 == v { print $4 }' "$baseline")"
        [ -n "$old" ] && tolerance="$old"
      fi
      printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$tolerance"
    done
  } >"$baseline.new"
  mv "$baseline.new" "$baseline"
  echo "baseline written: $baseline"
  exit 0
fi

[ -f "$baseline" ] || { echo "no baseline at $baseline (run with --update)"; exit 0; }
status=0
echo
for entry in "${results[@]}"; do
  set -- $entry
  line="$(awk -F'\t' -v l="$1" -v v="$2" '$1 == l && $2 == v { print $3, $4 }' "$baseline")"
  [ -z "$line" ] && { echo "no baseline: $1 $2"; continue; }
  set -- "$1" "$2" "$3" $line
  # percent tolerance plus 2 instructions of slack, so that tiny counts are not all-or-nothing
  limit="$(awk -v b="$4" -v t="$5" 'BEGIN { printf "%d", b * (1 + t / 100) + 2.5 }')"
  if [ "$3" -gt "$limit" ]; then
    echo "REGRESSION $1 $2: $3 Ir/call > $limit (baseline $4 + $5%)"
    status=1
  elif [ "$3" -lt "$(awk -v b="$4" -v t="$5" 'BEGIN { printf "%d", b * (1 - t / 100) }')" ]; then
    echo "improved   $1 $2: $3 Ir/call (baseline $4; run --update to record it)"
  fi
done
[ "$status" -eq 0 ] && echo "callgrind counts within the baseline's tolerances"
exit "$status"
