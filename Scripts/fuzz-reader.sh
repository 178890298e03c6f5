#!/usr/bin/env bash
# The heap reader's fuzzer (issue 32): captures the attach-hostile fixture once, then runs
# mutated copies of its heap through each stage of the reader (glibc's heap walk, the metadata
# check and layout compiler over libswiftRemoteMirror, the scan and graph builder, and now and
# then the whole analysis), each batch in a forked child: a crash, a hang past the budget, an
# unescaped name or an abort inside libswiftRemoteMirror that its guard did not contain is
# reproduced alone, reduced, and kept in Tests/Fuzzing/Corpus. A failure of the library that its
# guard contained (the analysis went on and said so) is counted apart and its input listed:
# each is a type the metadata check let through.
#
#   Scripts/fuzz-reader.sh [INPUTS] [SEED]       defaults: 100000 inputs, the day's date as seed
#
# Environment: FUZZ_SCRATCH (the SwiftPM scratch path holding a build of reader-fuzzer, default
# .build; CI passes .build-werror, already built), FUZZ_BUILD_FLAGS (that build's flags, so
# that nothing is rebuilt: CI's are -Xswiftc -warnings-as-errors), FUZZ_CONFIGURATION (debug or release,
# default debug), FUZZ_ARGS (more arguments: --weights heap:30,metadata:35,scan:34,full:1,
# --batch, --seconds). Replay one input: reader-fuzzer --fixture F --replay FILE.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
inputs="${1:-100000}"
seed="${2:-$(date -u +%Y%m%d)}"
scratch="${FUZZ_SCRATCH:-$root/.build}"
configuration="${FUZZ_CONFIGURATION:-debug}"

# shellcheck disable=SC2086
swift build --package-path "$root" --scratch-path "$scratch" -c "$configuration" \
  ${FUZZ_BUILD_FLAGS:-} --product reader-fuzzer >&2
swift build --package-path "$root/Tests/Fixtures/AttachTargets" \
  --scratch-path "$root/.build-fixtures-attach" --product attach-hostile >&2

echo "load $(cut -d' ' -f1-3 /proc/loadavg); reproduce with: $0 $inputs $seed"
# The Swift runtime's backtracer would print pages per crashing child: the fuzzer reports them.
# shellcheck disable=SC2086
SWIFT_BACKTRACE=enable=no "$scratch/$configuration/reader-fuzzer" \
  --fixture "$root/.build-fixtures-attach/debug/attach-hostile" \
  --inputs "$inputs" --seed "$seed" --corpus "$root/Tests/Fuzzing/Corpus" ${FUZZ_ARGS:-}
