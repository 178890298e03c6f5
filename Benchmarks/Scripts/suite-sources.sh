# Sourced by suite-leaks.sh and exit-check-suite.sh: the two real third-party test suites, from
# the package mirror, and the preloaded check.
#
#   suite_setup RUNS HELP "$@"  reads the script's arguments ([RUNS] [SUITE...]; -h prints the
#                              script's lines HELP, such as 2,17), sets runs, suites, work
#                              (SUITES_DIR, default .build-suites), configuration
#                              (PRELOAD_CONFIGURATION, default release), defines load, prints
#                              the machine and builds the preload (PRELOAD_SCRATCH, default
#                              .build-preload)
#   prepare_suite SUITE WORK   clones SUITE into WORK/SUITE once, builds its tests (debug, as
#                              `swift test` builds them), sets suite_source, suite_tag and
#                              suite_bundle (the test bundle), prints the build time
#   build_preload ROOT SCRATCH CONFIGURATION
#                              builds SuiteLeaksPreload, sets preload_library
#
# SUITE is async-algorithms (swift-async-algorithms 1.1.4, XCTest) or hummingbird (hummingbird
# 2.28.1, Swift Testing, real loopback servers).

prepare_suite() {
  local suite="$1" work="$2" url start
  case "$suite" in
    async-algorithms) url=https://github.com/apple/swift-async-algorithms.git; suite_tag=1.1.4 ;;
    hummingbird) url=https://github.com/hummingbird-project/hummingbird.git; suite_tag=2.28.1 ;;
    *) echo "unknown suite $suite" >&2; return 2 ;;
  esac
  suite_source="$work/$suite"
  if [[ ! -d "$suite_source/.git" ]]; then
    git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$suite_tag" "$url" \
      "$suite_source" >&2
  fi
  if [[ $suite == async-algorithms ]]; then
    # The mirror's copy lacks upstream's two symbolic links to Locking.swift (git keeps no
    # symlinks there): without them neither AsyncSequenceValidation nor the tests build.
    [[ -e "$suite_source/Sources/AsyncSequenceValidation/Locking.swift" ]] ||
      ln -s ../AsyncAlgorithms/Locking.swift \
        "$suite_source/Sources/AsyncSequenceValidation/Locking.swift"
    [[ -e "$suite_source/Tests/AsyncAlgorithmsTests/Support/Locking.swift" ]] ||
      ln -s ../../../Sources/AsyncAlgorithms/Locking.swift \
        "$suite_source/Tests/AsyncAlgorithmsTests/Support/Locking.swift"
  fi
  start=$(date +%s.%N)
  swift build --package-path "$suite_source" --build-tests >"$work/$suite-build.log" 2>&1 ||
    { echo "build failed: $work/$suite-build.log" >&2; return 2; }
  echo "build (debug, tests): $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
  suite_bundle="$(ls -d "$suite_source"/.build/debug/*PackageTests.xctest | head -1)"
}

build_preload() {
  local root="$1" scratch="$2" configuration="$3"
  echo "building SuiteLeaksPreload ($configuration) ..." >&2
  swift build --package-path "$root" --scratch-path "$scratch" -c "$configuration" \
    --product SuiteLeaksPreload >&2
  preload_library="$scratch/$configuration/libSuiteLeaksPreload.so"
  [[ -f "$preload_library" ]] || { echo "no $preload_library" >&2; return 2; }
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

suite_setup() {
  local default_runs="$1" help="$2"
  shift 2
  runs="${1:-$default_runs}"
  case "$runs" in -h|--help) sed -n "${help}p" "$0"; exit 0 ;; esac
  shift || true
  suites=("$@")
  [[ ${#suites[@]} -gt 0 ]] || suites=(async-algorithms hummingbird)
  work="${SUITES_DIR:-$root/.build-suites}"
  configuration="${PRELOAD_CONFIGURATION:-release}"
  mkdir -p "$work"
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); machine: $(nproc) cores, $(uname -srm);" \
    "swift: $(swift --version 2>/dev/null | head -1); load: $(load)"
  build_preload "$root" "${PRELOAD_SCRATCH:-$root/.build-preload}" "$configuration"
}
