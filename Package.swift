// swift-tools-version:6.2
//
// RetainGraph: finds the leaks that reachability-based tools cannot see, such as an owner kept
// alive by a repeating timer that a run loop still holds.
//
// Module map (one job each; CONTRIBUTING.md says which module owns which concept):
//   CLibunwind           C door: libunwind behind static inline wrappers
//   CSwiftRuntime        C door: four reference-counting entry points of the Swift runtime
//   CLinkedModules       C door: weak symbols of optional modules linked into the program
//                        (the census's discoverer, found without a dependency on HeapCensus)
//   CProcessMemory       C door: safe reads of this process's memory, loads ThreadSanitizer
//                        does not instrument
//   CHeapCensus          C door: the census's interposed allocation functions, its table,
//                        creation sites and the sampled mode
//   CZlib                C door: zlib's deflate with a gzip wrapper (Debian's zlib1g-dev)
//   CProcessAccess       C door: ptrace, waitpid and process_vm_readv on another process
//   CSwiftRemoteMirror   C door: the toolchain's libswiftRemoteMirror, loaded with dlopen
//   CSymbolizer          C door: starts llvm-symbolizer (posix_spawn, a close-on-exec pipe) and
//                        reads the loader's image list (dl_iterate_phdr)
//   Locking              a pthread-backed lock that ThreadSanitizer understands (package-internal)
//   RetainGraphUtilities byte counts, type-name spellings, text from another process made safe
//                        to print, ELF images and /proc (package-internal)
//   StackTraces          cheap return-address capture, lazy symbolication and demangling
//   ObjectGraph          the one graph: compact representation, builder, one ownership and role
//                        vocabulary, components, the prioritizing path finder
//   RuntimeLayouts       the one layout compiler over a metadata source (this process's runtime,
//                        or a remote mirror) and the one executor of layouts (package-internal)
//   HeapExport           graphs written for other tools (V8 .heapsnapshot: DevTools, memlab)
//                        and graph files
//   HeapGraph            the one heap snapshot: built from any reader's scan, with its paths,
//                        holders, text and comparisons
//   ProcessAttach        reads a stopped process's Swift heap from outside (ptrace, a copy,
//                        glibc's heap, libswiftRemoteMirror) into a HeapSnapshot
//   RetainGraph          the live object graph, its snapshots (views over ObjectGraph), discovery
//   TrackedTimers        run-loop, dispatch and frame timers, proxies, a named-timer registry
//   ReferenceReflection  discovers undeclared references by reading watched objects (opt-in)
//   HeapCensus           a census of live Swift heap objects, read into a HeapSnapshot
//   RetainGraphReports   report types readable without the census or a test framework
//   HeapGrowth           what repeated work leaves behind on the heap (census snapshots diffed)
//   CHeapDump            C door: the forked child's core writer (async-signal-safe) and the
//                        dump watcher thread
//   HeapDumps            cores of this process written by a forked child while it runs on: on
//                        a call, a signal, or resident memory past a threshold
//   HeapProfiles         pprof heap profiles of the census's sampled mode, and a
//                        handler-agnostic /debug/pprof/heap endpoint
//   LeakTracking         expected death, verdicts, leak reports (text, JSON, DOT) and sinks
//   RetainGraphTesting   every Swift Testing trait and XCTest helper (leaks, heap growth)
//   SuiteLeaks           the at-exit check of a whole test run: leaked cycles, grouped, as
//                        reports (linked, or preloaded as SuiteLeaksPreload)
//   retain-graph         command-line tool: render and compare reports, look at a saved heap,
//                        attach to a running process (no census, no test framework linked)
import PackageDescription

let package = Package(
    name: "RetainGraph",
    products: [
        .library(name: "StackTraces", targets: ["StackTraces"]),
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "HeapGraph", targets: ["HeapGraph"]),
        .library(name: "HeapExport", targets: ["HeapExport"]),
        .library(name: "ProcessAttach", targets: ["ProcessAttach"]),
        .library(name: "RetainGraph", targets: ["RetainGraph"]),
        .library(name: "TrackedTimers", targets: ["TrackedTimers"]),
        .library(name: "ReferenceReflection", targets: ["ReferenceReflection"]),
        .library(name: "HeapCensus", targets: ["HeapCensus"]),
        .library(name: "HeapGrowth", targets: ["HeapGrowth"]),
        .library(name: "RetainGraphReports", targets: ["RetainGraphReports"]),
        .library(name: "HeapProfiles", targets: ["HeapProfiles"]),
        .library(name: "LeakTracking", targets: ["LeakTracking"]),
        .library(name: "RetainGraphTesting", targets: ["RetainGraphTesting"]),
        .executable(name: "retain-graph", targets: ["retain-graph"]),
        // Issue 24 (at-exit leaks): SuiteLeaks to link, and the same as a library to preload
        // into a test run that does not depend on RetainGraph:
        // `LD_PRELOAD=…/libSuiteLeaksPreload.so swift test`.
        .library(name: "SuiteLeaks", targets: ["SuiteLeaks"]),
        .library(name: "SuiteLeaksPreload", type: .dynamic, targets: ["SuiteLeaks"]),
        // Issue 33: cores written by a forked child while the process runs on. Link it, or
        // preload it into a program that does not: `LD_PRELOAD=…/libHeapDumpsPreload.so
        // RETAINGRAPH_DUMP_SIGNAL=SIGUSR2 ./server`.
        .library(name: "HeapDumps", targets: ["HeapDumps"]),
        .library(name: "HeapDumpsPreload", type: .dynamic, targets: ["HeapDumps"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibunwind",
            pkgConfig: "libunwind",
            providers: [.apt(["libunwind-dev"])]
        ),
        .systemLibrary(name: "CSwiftRuntime"),
        .systemLibrary(name: "CLinkedModules"),
        .target(name: "Locking"),
        .target(name: "RetainGraphUtilities", dependencies: ["Locking"]),
        .target(name: "CSymbolizer"),
        .target(name: "StackTraces", dependencies: ["CLibunwind", "Locking", "CSymbolizer"]),
        .target(name: "ObjectGraph", dependencies: ["Locking"]),
        .target(name: "CProcessMemory"),
        .target(
            name: "RuntimeLayouts",
            dependencies: ["ObjectGraph", "CProcessMemory", "Locking", "RetainGraphUtilities"]),
        .target(
            name: "HeapGraph",
            dependencies: [
                "ObjectGraph", "RuntimeLayouts", "RetainGraphUtilities", "StackTraces",
                "HeapExport",
            ]),
        .target(name: "HeapExport", dependencies: ["ObjectGraph"]),
        .systemLibrary(name: "CProcessAccess"),
        .systemLibrary(name: "CSwiftRemoteMirror"),
        .target(
            name: "ProcessAttach",
            dependencies: [
                "CProcessAccess", "CSwiftRemoteMirror", "ObjectGraph", "RuntimeLayouts",
                "HeapGraph", "HeapExport", "StackTraces", "RetainGraphUtilities", "Locking",
            ]
        ),
        .target(
            name: "RetainGraph",
            dependencies: [
                "ObjectGraph", "CSwiftRuntime", "CLinkedModules", "StackTraces", "Locking",
                "RetainGraphUtilities",
            ]
        ),
        .target(name: "TrackedTimers", dependencies: ["RetainGraph", "StackTraces", "Locking"]),
        .target(
            name: "ReferenceReflection", dependencies: ["RetainGraph", "RuntimeLayouts", "Locking"]
        ),
        .target(name: "CHeapCensus"),
        .target(
            name: "HeapCensus",
            dependencies: [
                "CHeapCensus", "RetainGraph", "ObjectGraph", "RuntimeLayouts", "StackTraces",
                "Locking", "RetainGraphUtilities", "HeapGraph",
            ]
        ),
        .target(name: "RetainGraphReports", dependencies: ["RetainGraphUtilities"]),
        .target(name: "CHeapDump"),
        .target(name: "HeapDumps", dependencies: ["CHeapDump"]),
        .target(
            name: "HeapGrowth",
            dependencies: ["HeapCensus", "RetainGraphReports", "StackTraces", "ObjectGraph"]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "HeapProfiles",
            dependencies: ["CZlib", "HeapCensus", "StackTraces", "ProcessAttach"]),
        // The at-exit check of a whole test run; the census's C door holds its exit hook
        // (census_exit.c).
        .target(
            name: "SuiteLeaks",
            dependencies: [
                "HeapCensus", "LeakTracking", "ObjectGraph", "RetainGraph", "RetainGraphUtilities",
                "ProcessAttach", "StackTraces",
            ]),
        .target(
            name: "LeakTracking",
            dependencies: [
                "RetainGraph", "StackTraces", "Locking", "RetainGraphReports",
                "RetainGraphUtilities",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "RetainGraphTesting",
            dependencies: [
                "LeakTracking", "ReferenceReflection", "RetainGraph", "HeapGrowth", "HeapCensus",
                "HeapExport", "ObjectGraph", "ProcessAttach", "StackTraces",
            ]
        ),
        // Links no census (no interposed malloc) and no test framework: a test checks the
        // built binary.
        .executableTarget(
            name: "retain-graph",
            dependencies: [
                "LeakTracking", "RetainGraphReports", "HeapExport", "ObjectGraph",
                "ProcessAttach", "RetainGraphUtilities",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "stack-trace-demo",
            dependencies: ["StackTraces"],
            path: "Examples/StackTraceDemo"
        ),
        .target(
            name: "SeedScenarios",
            dependencies: ["TrackedTimers", "LeakTracking", "ReferenceReflection", "RetainGraph"],
            path: "Examples/SeedScenarios"
        ),
        .executableTarget(
            name: "seed-demo",
            dependencies: ["SeedScenarios", "HeapCensus"],
            path: "Examples/SeedDemo"
        ),
        .target(
            name: "_TestSupport",
            dependencies: ["RetainGraph"],
            path: "Tests/_TestSupport"
        ),
        // One heap read from inside (the census) and from outside (an attach): the fixture
        // program links the census and writes its snapshot; the test attaches to it.
        .executableTarget(
            name: "InsideOutside", dependencies: ["HeapCensus"],
            path: "Tests/Fixtures/InsideOutside"),
        .testTarget(
            name: "HeapGraphTests",
            dependencies: ["HeapGraph", "ProcessAttach", "InsideOutside", "RuntimeLayouts"]),
        .testTarget(name: "StackTracesTests", dependencies: ["StackTraces"]),
        .testTarget(name: "RetainGraphUtilitiesTests", dependencies: ["RetainGraphUtilities"]),
        .testTarget(name: "RuntimeLayoutsTests", dependencies: ["RuntimeLayouts", "ObjectGraph"]),
        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph"]),
        .testTarget(
            name: "HeapCensusTests",
            dependencies: [
                "HeapCensus", "LeakTracking", "RetainGraph", "_CreationStackLibrary",
                "census-stacks-fixture", "_TestSupport",
            ]),
        // A library whose initializer a test reaches three calls deep (the creation stack must
        // still name the test's line), and the program the loader-lock and determinism tests
        // run as a child process.
        .target(name: "_CreationStackLibrary", path: "Tests/Fixtures/CreationStacks/Library"),
        .executableTarget(
            name: "census-stacks-fixture",
            dependencies: ["HeapCensus", "StackTraces", "_CreationStackLibrary"],
            path: "Tests/Fixtures/CreationStacks/census-stacks-fixture"),
        .testTarget(
            name: "HeapGrowthTests",
            dependencies: ["HeapGrowth", "HeapCensus", "RetainGraphReports", "RetainGraphTesting"]
        ),
        // Loads exported files into the real DevTools frontend in headless Chromium
        // (Scripts/devtools/, Python 3 only; Debian's chromium).
        .testTarget(
            name: "HeapExportTests",
            dependencies: [
                "HeapExport", "ObjectGraph", "HeapCensus", "RetainGraph", "retain-graph",
            ]
        ),
        // Starts real programs that link no RetainGraph product (the nested fixture package
        // Tests/Fixtures/AttachTargets, built on first use) and attaches to them.
        .testTarget(
            name: "ProcessAttachTests",
            dependencies: [
                "ProcessAttach", "ObjectGraph", "HeapExport", "RuntimeLayouts", "retain-graph",
            ]
        ),
        // The heap reader's fuzzer (issue 32): mutated copies of a captured fixture, each stage
        // of the reader run over them (Scripts/fuzz-reader.sh, `make fuzz`, a step of .ci/run).
        .executableTarget(
            name: "reader-fuzzer",
            dependencies: ["ProcessAttach", "ObjectGraph", "RetainGraphUtilities"],
            path: "Tests/Fuzzing/ReaderFuzzer"),
        // Dumps a real child process (Tests/Fixtures/AttachTargets' heap-dump-target, which links
        // HeapDumps) and reads the cores back with ProcessAttach.
        .testTarget(name: "HeapDumpsTests", dependencies: ["HeapDumps", "ProcessAttach"]),
        // Reads the profiles back with `go tool pprof` (Debian's golang-go) where it is installed.
        .testTarget(
            name: "HeapProfilesTests",
            dependencies: ["HeapProfiles", "HeapCensus", "ProcessAttach"]),
        .testTarget(
            name: "HeapCensusLeakTests",
            dependencies: [
                "HeapCensus", "LeakTracking", "RetainGraphTesting", "ReferenceReflection",
                "RetainGraph",
            ]
        ),
        .testTarget(
            name: "RetainGraphTests", dependencies: ["RetainGraph", "StackTraces", "_TestSupport"]),
        .testTarget(
            name: "TrackedTimersTests",
            dependencies: ["TrackedTimers", "RetainGraph", "_TestSupport"]
        ),
        .testTarget(
            name: "ReferenceReflectionTests",
            dependencies: [
                "ReferenceReflection", "RetainGraph", "TrackedTimers", "Locking", "_TestSupport",
            ]
        ),
        .testTarget(
            name: "LeakTrackingTests",
            dependencies: ["LeakTracking", "RetainGraph", "StackTraces"]
        ),
        .testTarget(
            name: "RetainGraphTestingTests",
            dependencies: [
                "RetainGraphTesting", "LeakTracking", "RetainGraph", "TrackedTimers",
                "ProcessAttach", "HeapCensus", "HeapGraph",
            ]
        ),
        // Real threads, run loops and timers, through a watcher's report to the built
        // `retain-graph`: run-loop roots' names, GitHub annotations on real report JSON.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "retain-graph", "HeapGrowth", "LeakTracking", "RetainGraph", "TrackedTimers",
                "_TestSupport",
            ]
        ),
        .testTarget(
            name: "SeedScenariosTests",
            dependencies: ["SeedScenarios", "LeakTracking", "seed-demo"]
        ),
        // Uses only what README.md's "Use it in your package" shows.
        .testTarget(
            name: "ReadmeTests",
            dependencies: [
                "RetainGraphTesting", "LeakTracking", "TrackedTimers", "HeapCensus", "HeapGrowth",
                "SuiteLeaks",
            ]
        ),
        // Checks that the manifest and README.md tell the truth about the code.
        .testTarget(name: "RepositoryTests"),

        // Reports a user can trust (issue 23): reports on platform types explained by the census
        // alone ("Created at" a line of the test file), read back by the built `retain-graph`
        // (annotations with file= and line=).
        .testTarget(
            name: "CensusReportEndToEndTests",
            dependencies: [
                "retain-graph", "HeapCensus", "LeakTracking", "ReferenceReflection",
            ]
        ),
        // Builds and runs Tests/Fixtures/ExitLeaks (a package of its own) with the preloaded
        // SuiteLeaksPreload library.
        .testTarget(
            name: "SuiteLeaksTests",
            dependencies: [
                "SuiteLeaks", "HeapCensus", "LeakTracking", "ObjectGraph", "StackTraces",
                "retain-graph",
            ]
        ),
    ]
)

// The modules that read the heap are compiled with optimization in debug builds too. A user's
// tests are debug builds, and what a test pays for a snapshot, the at-exit check or the growth
// check is per-object work in these modules: at -Onone it ran 3-7x the release build (every
// named value zeroed through a call to memset, no inlining, retains and releases around every
// access), optimized it runs as the release build does (issue 35: debug <= 2x release;
// Benchmarks/RESULTS.md). Swift 6.2's package manager accepts these flags in a package that is
// a dependency (tools version 6.2). Code that steps through these modules in a debugger sees
// optimized code; the user's own code stays at -Onone.
let heapReadingModules: Set<String> = [
    "Locking", "RetainGraphUtilities", "ObjectGraph", "RuntimeLayouts", "HeapGraph", "HeapExport",
    "ProcessAttach", "HeapCensus", "HeapGrowth", "SuiteLeaks",
]
let heapReadingCModules: Set<String> = ["CProcessMemory", "CHeapCensus"]
for target in package.targets {
    if heapReadingModules.contains(target.name) {
        target.swiftSettings =
            (target.swiftSettings ?? []) + [.unsafeFlags(["-O"], .when(configuration: .debug))]
    } else if heapReadingCModules.contains(target.name) {
        target.cSettings =
            (target.cSettings ?? []) + [.unsafeFlags(["-O2"], .when(configuration: .debug))]
    }
}
