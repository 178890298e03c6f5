// swift-tools-version:6.1
//
// RetainGraph: finds the leaks that reachability-based tools cannot see, such as an owner kept
// alive by a repeating timer that a run loop still holds.
//
// Module map (one job each):
//   CLibunwind           C door 1: libunwind behind static inline wrappers
//   CSwiftRuntime        C door 2: three reference-counting entry points of the Swift runtime
//   Locking              a pthread-backed lock that ThreadSanitizer understands (package-internal)
//   StackTraces          cheap return-address capture, lazy symbolication and demangling
//   RetainGraph          the live object graph, snapshots, cycles and shortest root paths
//   TrackedTimers        run-loop, dispatch and frame timers, proxies, a named-timer registry
//   ReferenceReflection  discovers undeclared references from runtime metadata (opt-in)
//   CHeapCensus          C door 3: the census's interposed allocation functions and its table
//   HeapCensus           a census of live Swift heap objects and the heap's reference graph
//   HeapGrowth           what repeated work leaves behind on the heap (census snapshots diffed)
//   LeakTracking         expected death, verdicts, leak reports (text, JSON, DOT) and sinks
//   RetainGraphTesting   XCTest helpers and a Swift Testing trait
//   retain-graph         command-line tool: render and compare JSON reports
//   HeapExport           heap graphs written for other tools (V8 .heapsnapshot: DevTools, memlab)
import PackageDescription

let package = Package(
    name: "RetainGraph",
    products: [
        .library(name: "StackTraces", targets: ["StackTraces"]),
        .library(name: "RetainGraph", targets: ["RetainGraph"]),
        .library(name: "TrackedTimers", targets: ["TrackedTimers"]),
        .library(name: "ReferenceReflection", targets: ["ReferenceReflection"]),
        .library(name: "HeapCensus", targets: ["HeapCensus"]),
        .library(name: "HeapGrowth", targets: ["HeapGrowth"]),
        .library(name: "LeakTracking", targets: ["LeakTracking"]),
        .library(name: "RetainGraphTesting", targets: ["RetainGraphTesting"]),
        .library(name: "HeapExport", targets: ["HeapExport"]),
        .executable(name: "retain-graph", targets: ["retain-graph"]),
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
        .target(name: "Locking"),
        .target(name: "StackTraces", dependencies: ["CLibunwind", "Locking"]),
        .target(name: "RetainGraph", dependencies: ["CSwiftRuntime", "StackTraces", "Locking"]),
        .target(name: "TrackedTimers", dependencies: ["RetainGraph", "StackTraces", "Locking"]),
        .target(name: "ReferenceReflection", dependencies: ["RetainGraph", "Locking"]),
        .target(name: "CHeapCensus"),
        .target(
            name: "HeapCensus",
            dependencies: [
                "CHeapCensus", "RetainGraph", "ReferenceReflection", "StackTraces", "Locking",
            ]
        ),
        .target(name: "HeapGrowth", dependencies: ["HeapCensus"]),
        .target(
            name: "LeakTracking",
            dependencies: [
                "RetainGraph", "StackTraces", "Locking",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "RetainGraphTesting",
            dependencies: ["LeakTracking", "ReferenceReflection", "RetainGraph"]
        ),
        .executableTarget(
            name: "retain-graph",
            dependencies: [
                "HeapGrowth", "LeakTracking",
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
        .testTarget(name: "StackTracesTests", dependencies: ["StackTraces"]),
        .testTarget(name: "HeapCensusTests", dependencies: ["HeapCensus", "RetainGraph"]),
        .testTarget(name: "HeapGrowthTests", dependencies: ["HeapGrowth", "HeapCensus"]),
        .testTarget(
            name: "HeapCensusLeakTests",
            dependencies: ["HeapCensus", "LeakTracking", "RetainGraphTesting"]
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
            dependencies: ["RetainGraphTesting", "LeakTracking", "RetainGraph", "TrackedTimers"]
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
            dependencies: ["RetainGraphTesting", "LeakTracking", "TrackedTimers", "HeapCensus"]
        ),
        // Checks that the manifest and README.md tell the truth about the code.
        .testTarget(name: "RepositoryTests"),

        // Issue 25: heap graphs in other tools' formats (V8 `.heapsnapshot` for Chrome DevTools
        // and memlab), checked in a real headless Chromium (Scripts/devtools/, Python 3 only).
        .target(name: "HeapExport", dependencies: ["RetainGraph", "HeapCensus", "StackTraces"]),
        .testTarget(
            name: "HeapExportTests",
            dependencies: ["HeapExport", "HeapCensus", "RetainGraph"]
        ),
    ]
)
