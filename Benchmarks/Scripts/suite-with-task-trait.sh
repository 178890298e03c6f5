#!/usr/bin/env bash
# A whole suite run with the leaked-task trait on every suite (issue 34): no false positive.
#
#   Benchmarks/Scripts/suite-with-task-trait.sh [PACKAGE]     default: this repository
#
# Swift Testing has no trait for a whole run, so the script applies `.detectsLeakedTasks` the
# way a user would, to every `@Suite` of a copy of PACKAGE's test sources (the trait is
# recursive: each test of the suite is checked), adds `import RetainGraphTesting` to those
# files and the product to each test target, then runs `swift test` on the copy. It prints
# every issue the trait recorded (`Task N started by this test is still …`) with its test, and
# the run's other failures apart (files that use the trait already, which test it, are left as
# they are): each recorded task must be one the test really left alive
# (read its line), or it is a false positive. Tests outside any `@Suite` are not covered.
#
# PACKAGE may be this repository or a package that depends on it by path (the session server
# example: Examples/SessionServer, whose manifest names this repository as `../..`: the copy's
# manifest names the same directory by its absolute path).
#
# Environment: TRAIT_COPY (where the copy is made, default a new temporary directory),
# TRAIT_SCRATCH (SwiftPM scratch path, default COPY.build beside the copy, kept for the next
# run). Takes a debug build of the whole package (about 8 minutes on 2 cores) and one run.
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$(dirname "$here")")"
case "${1:-}" in -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
package="$(cd "${1:-$root}" && pwd)"
copy="${TRAIT_COPY:-$(mktemp -d)/$(basename "$package")}"
scratch="${TRAIT_SCRATCH:-$copy.build}"
log="$copy.log"

echo "copying $package to $copy ..." >&2
rm -rf "$copy"
mkdir -p "$copy"
(cd "$package" && git ls-files -z --cached --others --exclude-standard . \
  | xargs -0 cp -p --parents -t "$copy/")

python3 - "$copy" "$package" <<'PY'
import os, re, sys
copy, package = sys.argv[1], sys.argv[2]
suite_call = re.compile(r'@Suite\(\s*("(?:[^"\\]|\\.)*")\s*(,|\))')
changed = 0
for directory, _, files in os.walk(os.path.join(copy, "Tests")):
    # Fixture packages and programs are built on their own, without the trait's module.
    if os.sep + "Fixtures" in directory[len(copy):]:
        continue
    for name in files:
        if not name.endswith(".swift"):
            continue
        path = os.path.join(directory, name)
        text = open(path, encoding="utf-8").read()
        # Files that use the trait already test it: their counts of issues are their own.
        if "@Suite" not in text or ".detectsLeakedTasks" in text:
            continue
        # A display name comes first: the trait goes after it.
        text = suite_call.sub(
            lambda m: f'@Suite({m.group(1)}, .detectsLeakedTasks{m.group(2) if m.group(2) == ")" else ","}',
            text)
        text = re.sub(r'@Suite\((?!"|\.detectsLeakedTasks|\s*"|")', '@Suite(.detectsLeakedTasks, ', text)
        text = re.sub(r'@Suite(?=\s)', '@Suite(.detectsLeakedTasks)', text)
        text = text.replace(".detectsLeakedTasks, )", ".detectsLeakedTasks)")
        if "import RetainGraphTesting" not in text:
            text = "import RetainGraphTesting\n" + text
        open(path, "w", encoding="utf-8").write(text)
        changed += 1
        checked = directory
# One planted leak, so that a run that records nothing shows the trait was on.
if changed:
    open(os.path.join(checked, "TaskTraitSelfCheck.swift"), "w", encoding="utf-8").write(
        "import RetainGraphTesting\nimport Testing\n\n"
        "@Suite(.detectsLeakedTasks) struct TaskTraitSelfCheck {\n"
        "    @Test func aTaskLeftOnAContinuationIsRecorded() async {\n"
        "        Task { await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in } }\n"
        "    }\n}\n")
manifest = os.path.join(copy, "Package.swift")
text = open(manifest, encoding="utf-8").read()
# Packages named by a relative path are the original's neighbours: named absolutely.
text = re.sub(r'(\.package\((?:name:\s*"[^"]*",\s*)?path:\s*")([^"/][^"]*)"',
              lambda m: m.group(1) + os.path.normpath(os.path.join(package, m.group(2))) + '"',
              text)
is_this_repository = '.library(name: "RetainGraphTesting"' in text or 'name: "RetainGraphTesting"' in text
product = '"RetainGraphTesting"' if is_this_repository else \
    '.product(name: "RetainGraphTesting", package: "RetainGraph")'
def add(match):
    # Once per list: a target that already depends on the product keeps its list.
    rest = match.string[match.end():]
    listed = rest[:rest.find("]")]
    if "RetainGraphTesting" in listed:
        return match.group(0)
    return match.group(0) + product + ", "
text = re.sub(r'\.testTarget\(\s*name:\s*"(?!RetainGraphTestingTests")[^"]+",\s*dependencies:\s*\[', add, text)
# A test target declared without dependencies gets the product as its one dependency.
text = re.sub(r'(\.testTarget\(\s*name:\s*"(?!RetainGraphTestingTests")[^"]+")(\s*\)|,(?!\s*dependencies))',
              lambda m: m.group(1) + ", dependencies: [" + product + "]" + m.group(2), text)
open(manifest, "w", encoding="utf-8").write(text)
print(f"{changed} files with suites now detect leaked tasks", file=sys.stderr)
PY

echo "building and running the suite (log: $log) ..." >&2
set +e
(cd "$copy" && swift test --scratch-path "$scratch" > "$log" 2>&1)
status=$?
set -e
echo "swift test exited $status"
if ! grep -qE "Test run with [0-9]+ tests" "$log"; then
  echo "the suite did not run: the build failed (see $log):"
  grep -E "error:" "$log" | sort -u | head -20
  exit 2
fi
# An issue's comment follows its `✘ … recorded an issue` line (`↳` and indented lines).
python3 - "$log" <<'PY' || status=2
import re, sys
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().splitlines()
trait, other, planted = [], [], False
for position, line in enumerate(lines):
    match = re.match(r"✘ Test (.+?) recorded an issue at (\S+?:\d+):\d+: (.*)", line)
    if not match:
        continue
    comment = []
    for following in lines[position + 1:]:
        if following[:1] in ("✔", "✘", "◇", "━", "􀟈") or not following.strip():
            break
        comment.append(following.lstrip("↳± ").rstrip())
    text = " ".join([match.group(3)] + comment)
    if "started by this test is still" not in text:
        other.append(line[:300])
    elif match.group(1).startswith("aTaskLeftOnAContinuationIsRecorded"):
        planted = True
    else:
        leak = next((c for c in comment if "started by this test is still" in c), text)
        trait.append(f"{match.group(1)} ({match.group(2)}): {leak[:300]}")
print()
print("self-check: the planted task was recorded (the trait is on)" if planted
      else "self-check FAILED: the planted task (TaskTraitSelfCheck) was not recorded")
print()
print("== issues the trait recorded")
print("\n".join(trait) if trait else "none")
print()
print("== other failures")
print("\n".join(other) if other else "none")
sys.exit(0 if planted else 1)
PY
grep -E "Test run with|Executed .* tests" "$log" | tail -2
[[ $status == 2 ]] && exit 2
exit 0
