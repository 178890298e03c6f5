#!/usr/bin/env bash
# Runs ServicePatterns' tests six times, three in parallel (the default) and three with
# --no-parallel, each writing its leak reports as JSON (RETAINGRAPH_REPORTS, the test helpers'
# directory sink), then checks what a user relies on:
#   - every run passes: each forgot-to-stop variant is a known issue, each fixed variant passes;
#   - every leaking test's report names the right holder, marks the property or capture to fix
#     as its one suspect, and gives the right hint;
#   - the fingerprints are identical across the six runs (`retain-graph compare` of the first
#     run with each other finds nothing new and nothing fixed);
#   - `retain-graph compare --github-annotations` prints file= and line= for every leak.
#
#   Examples/ServicePatterns/run-six.sh                  # build, six runs, checks
#   SCRATCH=/tmp/sp Examples/ServicePatterns/run-six.sh  # another build folder
#
# Needs python3 (the JSON checks). Exit status 0 when every check passes.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="${SCRATCH:-$here/.build}"
work="$(mktemp -d "${TMPDIR:-/tmp}/service-patterns.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== build (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
start=$(date +%s)
swift build --build-tests --package-path "$here" --scratch-path "$scratch" >"$work/build.log" 2>&1 \
    || { tail -30 "$work/build.log"; exit 1; }
swift build --package-path "$root" --scratch-path "$scratch/root" --product retain-graph \
    >>"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
tool="$scratch/root/debug/retain-graph"
echo "   built in $(( $(date +%s) - start )) s"

status=0
runs=(parallel-1 parallel-2 parallel-3 serial-1 serial-2 serial-3)
for run in "${runs[@]}"; do
    flags=()
    [[ "$run" == serial-* ]] && flags=(--no-parallel)
    start=$(date +%s)
    if RETAINGRAPH_REPORTS="$work/$run" swift test --skip-build --package-path "$here" \
        --scratch-path "$scratch" "${flags[@]}" >"$work/$run.log" 2>&1; then
        echo "== $run: tests passed ($(( $(date +%s) - start )) s)"
    else
        echo "== $run: TESTS FAILED ($(( $(date +%s) - start )) s)"
        grep -E "✘|error:|failed" "$work/$run.log" | head -20
        status=1
    fi
    mkdir -p "$work/$run"
done

python3 - "$work" "${runs[@]}" <<'PY' || status=1
import json, os, sys

work, runs = sys.argv[1], sys.argv[2:]
# subject type -> (hint code, what the holder says (None: a cycle no root reaches), the one
# suspect (its holder's type, as its name begins, and the reference's description), words of the
# fix the hint must give)
expected = {
    "ServicePatterns.CacheRefresher": ("foundationTimer", "a Foundation.Timer",
        ("Timer", "._fire (a closure capturing CacheRefresher)"), "[weak self]"),
    "ServicePatterns.Poller": ("taskCapture", "a Task",
        ("closure context", "captures Poller"), "cancel the task"),
    "ServicePatterns.Heartbeat": ("dispatchBlockCapture", "a block libdispatch holds",
        ("block", "captures Heartbeat"), "cancel() the source"),
    "ServicePatterns.SettingsObserver": ("notificationObserverCapture", "_defaultCenter",
        ("closure context", "captures SettingsObserver"), "removeObserver(token)"),
    "ServicePatterns.APIClient": ("urlSessionDelegate", None,
        ("URLSession", ".delegate"), "invalidateAndCancel()"),
    "ServicePatterns.Subscriber": ("globalVariable", "EventBus.shared",
        ("[String: @Sendable () -> ()] storage", "value of [String: @Sendable () -> ()]"),
        "unregister it in stop()"),
    "ServicePatterns.Document": ("generic", None, ("Toolbar", ".delegate"), "make it weak"),
}

def short(obj):
    if obj.get("root"):
        return obj.get("rootShortName") or obj["root"]
    name = obj["typeName"]
    head, _, tail = name.partition(".")
    return tail if tail and "<" not in head else name

problems = []
prints = {}
for run in runs:
    folder = os.path.join(work, run)
    reports = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                reports.append(json.load(f))
    seen = {}
    for report in reports:
        objects = {o["id"]: o for o in report["objects"]}
        subject = report["subject"]["typeName"]
        seen[subject] = seen.get(subject, 0) + 1
        prints.setdefault(subject, []).append((run, report["fingerprint"], report))
        if subject not in expected:
            problems.append(f"{run}: unexpected leak of {subject}")
            continue
        code, holder, suspect, words = expected[subject]
        hint = report["hint"]
        if hint["code"] != code:
            problems.append(f"{run}: {subject}: hint {hint['code']}, expected {code}")
        if words not in hint["text"]:
            problems.append(f"{run}: {subject}: hint lacks {words!r}: {hint['text']}")
        chain = report["path"] or report.get("cycle") or []
        suspects = [(short(objects[r["from"]]), r["description"]) for r in chain
                    if r["isSuspect"]]
        if len(suspects) != 1 or not suspects[0][0].startswith(suspect[0]) \
                or suspects[0][1] != suspect[1]:
            problems.append(f"{run}: {subject}: suspects {suspects}, expected one like {suspect}")
        if report.get("cycle"):
            cycle_suspects = [r for r in report["cycle"] if r["isSuspect"]]
            if len(cycle_suspects) != 1:
                problems.append(f"{run}: {subject}: {len(cycle_suspects)} suspects in the cycle")
        first = report["path"][0]["from"] if report["path"] else None
        root = objects[first].get("root") if first else None
        if holder is None:
            if report["retention"] != "cycle":
                problems.append(f"{run}: {subject}: expected a cycle no root reaches, got "
                                f"{report['retention']} from {root}")
        elif not root or holder not in root:
            problems.append(f"{run}: {subject}: holder {root!r}, expected {holder!r}")
    for subject in expected:
        if seen.get(subject, 0) != 1:
            problems.append(f"{run}: {seen.get(subject, 0)} reports on {subject}, expected 1")

print("== fingerprints")
for subject in sorted(prints):
    values = prints[subject]
    distinct = sorted({fp for _, fp, _ in values})
    mark = "same in all runs" if len(distinct) == 1 and len(values) == len(runs) else "DIFFER"
    print(f"   {subject}: {', '.join(distinct)} ({mark})")
    if mark == "DIFFER":
        for run, fp, report in values:
            chain = " ".join(
                f"{r['from']}-{r['role']}:{r.get('detail') or ''}->{r['to']}"
                for r in report["path"] or report.get("cycle") or [])
            objects = {o["id"]: o for o in report["objects"]}
            first = report["path"][0]["from"] if report["path"] else None
            root = objects[first].get("root") if first else "(cycle)"
            problems.append(f"{run}: {subject} fingerprint {fp}: from {root}: {chain}")

if problems:
    print("== problems")
    for problem in problems:
        print("   " + problem)
    sys.exit(1)
print("== every leaking test names its holder, its one suspect and the right hint")
PY

echo "== retain-graph compare"
mkdir -p "$work/empty"
for run in "${runs[@]}"; do
    set +e
    "$tool" compare "$work/empty" "$work/$run" --github-annotations --workspace "$root" \
        >"$work/$run.compare" 2>&1
    code=$?
    set -e
    annotations=$(grep -c '^::' "$work/$run.compare" || true)
    located=$(grep -cE '^::(error|warning) file=[^,]+,line=[0-9]+,' "$work/$run.compare" || true)
    if [[ "$code" != 1 || "$annotations" != 7 || "$located" != 7 ]]; then
        echo "   $run: exit $code, $annotations annotations, $located with file= and line="
        cat "$work/$run.compare"
        status=1
    fi
    if [[ "$run" != "${runs[0]}" ]]; then
        set +e
        "$tool" compare "$work/${runs[0]}" "$work/$run" >"$work/$run.same" 2>&1
        code=$?
        set -e
        if [[ "$code" != 0 ]] || ! grep -q '^fixed (0):' "$work/$run.same"; then
            echo "   ${runs[0]} → $run: not the same leaks (exit $code)"
            cat "$work/$run.same"
            status=1
        fi
    fi
done
[[ "$status" == 0 ]] && echo "   7 annotations with file= and line= per run; run 1 and every other run: nothing new, nothing fixed"
grep -h '^::' "$work/${runs[0]}.compare" | sed -E 's/(title=[^:]*)::.*/\1/' | sed 's/^/   /'
echo "== done: $([[ "$status" == 0 ]] && echo "all checks passed" || echo "CHECKS FAILED") (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
exit "$status"
