# RetainGraph: build, test and demo commands. Works on a fresh Debian/Ubuntu machine as root
# (or with sudo): missing system packages are installed with apt-get first.
#
#   make demo        run the seed demo (every seed scenario, live; `swift run seed-demo`)
#   make test        the whole test suite (swift test; installs graphviz, chromium, golang-go)
#   make test-devtools  the Chrome DevTools checks alone (HeapExportTests, headless Chromium)
#   make test-tsan   the Stress tests under ThreadSanitizer (8 threads x 10,000 timers per kind;
#                    RETAINGRAPH_STRESS_TIMERS=1000 for a quick run)
#   make werror      build everything, tests included, with warnings as errors
#   make test-server the server example's tests (nested package Examples/SessionServer, on
#                    Hummingbird and AsyncHTTPClient; scratch path .build-server)
#   make test-patterns  Examples/ServicePatterns six times (3 parallel, 3 serial): the same
#                    reports, holders, suspects, hints and fingerprints in every run
#   make bench       run the benchmarks (nested package in Benchmarks/)
#   make bench-attach   attach to a million live objects (Benchmarks/Scripts/attach-scale.sh)
#   make fuzz        the heap reader's fuzzer, 100,000 inputs (Scripts/fuzz-reader.sh; FUZZ_INPUTS,
#                    FUZZ_SEED; corpus in Tests/Fuzzing/Corpus)
#   make suite-leaks    the at-exit check on two real packages' suites (about 25 minutes)
#   make docs        build every DocC catalog with warnings as errors (Scripts/docs.sh)
#   make portable    retain-graph for machines without Swift: one archive with its libraries
#                    (Scripts/package-portable.sh; .build-portable/retain-graph-*.tar.gz)
#   make check-portable  that archive run in a mount namespace with the toolchain hidden (root)
#   make format      format in place; `make lint` only checks
#
# SCRATCH=.build-mine puts the main build somewhere other than .build; SWIFT_FLAGS adds build
# flags (CI runs `make test SCRATCH=.build-werror SWIFT_FLAGS="-Xswiftc -warnings-as-errors"`).

SWIFT ?= swift
DEMO ?= seed-demo
SCRATCH ?=
SWIFT_FLAGS ?=
WERROR_FLAGS := -Xswiftc -warnings-as-errors
SCRATCH_FLAG := $(if $(SCRATCH),--scratch-path $(SCRATCH),)
SUDO := $(shell [ "$$(id -u)" = 0 ] || command -v sudo)
APT_INSTALL := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends

.PHONY: demo test test-tsan test-server test-devtools test-patterns werror bench bench-build \
	bench-attach fuzz suite-leaks docs format lint deps deps-test portable check-portable

# Required to build: libunwind's headers and pkg-config file (Sources/CLibunwind) and zlib's
# (Sources/CZlib, for the pprof profiles' gzip).
deps:
	@dpkg -s libunwind-dev zlib1g-dev >/dev/null 2>&1 \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) libunwind-dev zlib1g-dev)

# What the tests drive for real: graphviz (`dot`; the DOT rendering tests skip without it),
# Chromium (the DevTools tests load .heapsnapshot files into its frontend and fail without it)
# and Go (`go tool pprof` reads the heap profiles; those tests skip without it).
deps-test:
	@(command -v dot && command -v chromium && command -v go) >/dev/null 2>&1 \
		|| ($(SUDO) apt-get update && $(APT_INSTALL) graphviz chromium golang-go) \
		|| echo "note: graphviz, chromium or golang-go not installed; see the Makefile"

demo: deps
	$(SWIFT) run $(SCRATCH_FLAG) $(SWIFT_FLAGS) $(DEMO)

test: deps deps-test
	$(SWIFT) test $(SCRATCH_FLAG) $(SWIFT_FLAGS)

# A filter that matches no test still exits 0 (XCTest warns "No matching test cases were run",
# Swift Testing reports 0 tests), so this passes before any Stress test exists.
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter Stress

werror: deps
	$(SWIFT) build --build-tests --scratch-path .build-werror $(WERROR_FLAGS)

# The heap reader's fuzzer on mutated copies of the attach-hostile fixture (issue 32).
FUZZ_INPUTS ?= 100000
FUZZ_SEED ?=
fuzz: deps
	FUZZ_SCRATCH=$(if $(SCRATCH),$(SCRATCH),.build) FUZZ_BUILD_FLAGS="$(SWIFT_FLAGS)" \
		Scripts/fuzz-reader.sh $(FUZZ_INPUTS) $(FUZZ_SEED)

# A nested package, so the main package never depends on a server framework. Its targets treat
# warnings as errors in their own Package.swift (SwiftPM's -warnings-as-errors flag would also
# reach the server framework's sources).
# In parallel: the suites that run a server inside the test process (the heap growth tests
# count the whole process's sessions) are serialized among themselves by their parent suite,
# InProcessServers (Tests/SessionServerTests/InProcessServers.swift).
test-server: deps
	$(SWIFT) test --package-path Examples/SessionServer --scratch-path .build-server

# The DevTools checks alone: exported .heapsnapshot files loaded into Chromium's DevTools
# frontend (headless); screenshots land under the build folder's debug/devtools/.
test-devtools: deps deps-test
	$(SWIFT) test $(SCRATCH_FLAG) $(SWIFT_FLAGS) --filter HeapExportTests

# Six runs of the service patterns' tests, reports compared (python3 reads the JSON).
test-patterns: deps
	Examples/ServicePatterns/run-six.sh

bench-build: deps
	$(SWIFT) build -c release --package-path Benchmarks --scratch-path .build-bench

bench: deps
	cd Benchmarks && $(SWIFT) package --scratch-path ../.build-bench benchmark

bench-attach: deps
	Benchmarks/Scripts/attach-scale.sh

suite-leaks: deps
	Benchmarks/Scripts/suite-leaks.sh

# Symbol graphs from the build in SCRATCH (with SWIFT_FLAGS, so CI reuses its werror build).
docs: deps
	Scripts/docs.sh $(SCRATCH_FLAG) $(SWIFT_FLAGS)

# Release build, static Swift standard library, with libswiftRemoteMirror.so and the shared
# libraries a slim image lacks (Documentation/Containers.md).
portable: deps
	Scripts/package-portable.sh

check-portable: portable
	Scripts/check-portable.sh

format:
	Scripts/format.sh

lint:
	Scripts/format.sh --lint
