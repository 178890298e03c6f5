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
# the run's other failures apart: each recorded task must be one the test really left alive
# (read its line), or it is a false positive. Tests outside any `@Suite` are not covered.
#
# PACKAGE may be this repository or a package that depends on it by path (the session server
# example: Examples/SessionServer, whose manifest names this repository as `..` or `../..`:
# the copy keeps the path working by being made beside the original).
#
# Environment: TRAIT_SCRATCH (SwiftPM scratch path, default .build-task-trait in the copy's
# parent). Takes a debug build of the whole package (about 8 minutes on 2 cores) and one run.
set -euo pipefail
shopt -s inherit_errexit

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$(dirname "$here")")"
case "${1:-}" in -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}"; exit 0 ;; esac
package="$(cd "${1:-$root}" && pwd)"
copy="$package.task-trait"
scratch="${TRAIT_SCRATCH:-$copy/.build-task-trait}"
log="$copy.log"

echo "copying $package to $copy ..." >&2
rm -rf "$copy"
mkdir -p "$copy"
(cd "$package" && git ls-files -z --cached --others --exclude-standard . \
  | xargs -0 -I{} cp --parents {} "$copy/")
# The copy sits beside the original, so a manifest that points at this repository by a
# relative path (`..`) still finds it from the copy when the copy is of this repository's
# example; when it is this repository, its own examples are not built.

python3 - "$copy" <<'PY'
import os, re, sys
copy = sys.argv[1]
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
        if "@Suite" not in text:
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
manifest = os.path.join(copy, "Package.swift")
text = open(manifest, encoding="utf-8").read()
is_this_repository = '.library(name: "RetainGraphTesting"' in text or 'name: "RetainGraphTesting"' in text
product = '"RetainGraphTesting"' if is_this_repository else \
    '.product(name: "RetainGraphTesting", package: "RetainGraph")'
def add(match):
    head = match.group(0)
    return head + product + ", "
text = re.sub(r'\.testTarget\(\s*name:\s*"(?!RetainGraphTestingTests")[^"]+",\s*dependencies:\s*\[', add, text)
open(manifest, "w", encoding="utf-8").write(text)
print(f"{changed} files with suites now detect leaked tasks", file=sys.stderr)
PY

echo "building and running the suite (log: $log) ..." >&2
set +e
(cd "$copy" && swift test --scratch-path "$scratch" > "$log" 2>&1)
status=$?
set -e
echo "swift test exited $status"
echo
echo "== issues the trait recorded"
grep -E "started by this test is still" "$log" | sed -E 's/^.*Test ([^ ]+) recorded an issue at ([^:]+:[0-9]+)[^:]*: /\1 (\2): /' \
  | sort | uniq -c || echo "none"
echo
echo "== other failures"
grep -E "✘ Test .* recorded an issue" "$log" | grep -v "started by this test is still" \
  | cut -c1-300 || echo "none"
grep -E "Test run with|Executed .* tests" "$log" | tail -2
