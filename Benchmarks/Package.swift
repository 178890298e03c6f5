// swift-tools-version:6.1
//
// Benchmarks for RetainGraph, on ordo-one/benchmark. A separate package so that the library's
// users never resolve the benchmark tooling.
//
//   cd Benchmarks && swift package --scratch-path ../.build-bench benchmark --target StackTraceCapture
//
// One folder per benchmark target under Benchmarks/Benchmarks/<Name>/, as the plugin expects.
import PackageDescription

let package = Package(
    name: "RetainGraphBenchmarks",
    dependencies: [
        // The root package, named explicitly: a clone's folder name is not its identity.
        .package(name: "RetainGraph", path: "../"),
        // The MallocInterposer trait powers the malloc metrics; naming traits also turns off the
        // default RuntimeInterposer trait, whose ARC metrics crash on Linux with Swift 6.3.
        .package(
            url: "https://github.com/ordo-one/benchmark",
            exact: "1.38.1",
            traits: ["MallocInterposer"]
        ),
    ],
    targets: [
        // Dispatch cost per timer fire (TimerDispatch, DispatchCount for callgrind): the callee
        // lives in BenchmarkSupport so every variant calls across a module boundary.
        .target(name: "BenchmarkSupport", path: "Sources/BenchmarkSupport"),
        .target(
            name: "DispatchVariants",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "TrackedTimers", package: "RetainGraph"),
                .product(name: "RetainGraph", package: "RetainGraph"),
            ],
            path: "Sources/DispatchVariants"
        ),
        .executableTarget(
            name: "DispatchCount", dependencies: ["DispatchVariants"], path: "Sources/DispatchCount"
        ),
        // Timer lifecycle (create + schedule + invalidate) for callgrind and allocation counts.
        .executableTarget(
            name: "LifecycleCount",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "TrackedTimers", package: "RetainGraph"),
                .product(name: "RetainGraph", package: "RetainGraph"),
            ],
            path: "Sources/LifecycleCount"
        ),
        // Resident memory over a million timer lifecycles and graph registrations, no reads
        // (issue 17): `swift run -c release --package-path Benchmarks MemorySoak`.
        .executableTarget(
            name: "MemorySoak",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "TrackedTimers", package: "RetainGraph"),
                .product(name: "RetainGraph", package: "RetainGraph"),
            ],
            path: "Sources/MemorySoak"
        ),
        // Analysis at heap scale (issue 15): every figure of its table, with the load average.
        .executableTarget(
            name: "CheckScale",
            dependencies: [
                .product(name: "LeakTracking", package: "RetainGraph"),
                .product(name: "ReferenceReflection", package: "RetainGraph"),
                .product(name: "TrackedTimers", package: "RetainGraph"),
                .product(name: "RetainGraph", package: "RetainGraph"),
            ],
            path: "Sources/CheckScale"
        ),
        .executableTarget(
            name: "GraphScale",
            dependencies: [
                .product(name: "RetainGraph", package: "RetainGraph"),
                .product(name: "HeapExport", package: "RetainGraph"),
            ],
            path: "Sources/GraphScale"
        ),
        // Heap census (issue 13): allocation cost not linked / off / on (Scripts/census-cost.sh,
        // callgrind), the scan of 1M live objects (CensusScale), memory in a long run (CensusSoak).
        // CensusSupport must never depend on HeapCensus: CensusCostBare is the unlinked baseline.
        .target(name: "CensusSupport", path: "Sources/CensusSupport"),
        .executableTarget(
            name: "CensusCostBare", dependencies: ["CensusSupport"], path: "Sources/CensusCostBare"
        ),
        .executableTarget(
            name: "CensusCost",
            dependencies: ["CensusSupport", .product(name: "HeapCensus", package: "RetainGraph")],
            path: "Sources/CensusCost"
        ),
        .executableTarget(
            name: "CensusScale",
            dependencies: [
                "CensusSupport", .product(name: "HeapCensus", package: "RetainGraph"),
                .product(name: "HeapGrowth", package: "RetainGraph"),
            ],
            path: "Sources/CensusScale"
        ),
        .executableTarget(
            name: "CensusSoak",
            dependencies: ["CensusSupport", .product(name: "HeapCensus", package: "RetainGraph")],
            path: "Sources/CensusSoak"
        ),
        // Attach (issue 26): the heap `retain-graph attach` finds against the in-process
        // census of the same program, objects and roles (Scripts/attach-scale.sh).
        .executableTarget(
            name: "AttachCensusCompare",
            dependencies: [
                .product(name: "HeapCensus", package: "RetainGraph"),
                .product(name: "HeapExport", package: "RetainGraph"),
                .product(name: "ObjectGraph", package: "RetainGraph"),
            ],
            path: "Sources/AttachCensusCompare"
        ),
        // Issue 27: census memory per object with creation sites, and one heap profile of a
        // process with 1M live objects (sampled mode): `HeapProfileScale census|sampled`.
        .executableTarget(
            name: "HeapProfileScale",
            dependencies: [
                "CensusSupport", .product(name: "HeapCensus", package: "RetainGraph"),
                .product(name: "HeapProfiles", package: "RetainGraph"),
            ],
            path: "Sources/HeapProfileScale"
        ),
        // Issue 24: the snapshot of a test process's heap (40k objects of a server's shapes) and
        // the at-exit leak check, in debug and release (Scripts/exit-check-scale.sh).
        .executableTarget(
            name: "ExitCheckScale",
            dependencies: [
                "CensusSupport", .product(name: "HeapCensus", package: "RetainGraph"),
                .product(name: "SuiteLeaks", package: "RetainGraph"),
            ],
            path: "Sources/ExitCheckScale"
        ),
        // The leaked-task check at the end of a test, with 1,000 live tasks (issue 34:
        // Scripts/tasks-scale.sh).
        .executableTarget(
            name: "TaskCheckScale",
            dependencies: [
                "CensusSupport", .product(name: "HeapCensus", package: "RetainGraph"),
                .product(name: "ProcessAttach", package: "RetainGraph"),
                .product(name: "RetainGraphTesting", package: "RetainGraph"),
            ],
            path: "Sources/TaskCheckScale"
        ),
        // Symbolication cost per address (StackTraces): the Runtime module against
        // llvm-symbolizer, debug and release, 10 to 1,000 new addresses (issue: fast symbols).
        .executableTarget(
            name: "SymbolicationCost",
            dependencies: [
                .product(name: "StackTraces", package: "RetainGraph"),
                .product(name: "LeakTracking", package: "RetainGraph"),
                .product(name: "ReferenceReflection", package: "RetainGraph"),
                .product(name: "TrackedTimers", package: "RetainGraph"),
            ],
            path: "Sources/SymbolicationCost"
        ),
        .executableTarget(
            name: "TimerDispatch",
            dependencies: [
                "DispatchVariants",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/TimerDispatch",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "TimerTracking",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "TrackedTimers", package: "RetainGraph"),
                .product(name: "RetainGraph", package: "RetainGraph"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/TimerTracking",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Reflection walk cost per object and per discovered reference.
        .executableTarget(
            name: "ReflectionWalk",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ReferenceReflection", package: "RetainGraph"),
            ],
            path: "Benchmarks/ReflectionWalk",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StackTraceCapture",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "StackTraces", package: "RetainGraph"),
            ],
            path: "Benchmarks/StackTraceCapture",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // A teardown leak check (LeakWatcher.verdicts) over a live graph of 10k nodes.
        .executableTarget(
            name: "LeakCheck",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LeakTracking", package: "RetainGraph"),
                .product(name: "RetainGraph", package: "RetainGraph"),
            ],
            path: "Benchmarks/LeakCheck",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Rendering a report on an object in a 10,000-reference cycle: text, JSON, summary.
        .executableTarget(
            name: "ReportRendering",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LeakTracking", package: "RetainGraph"),
                .product(name: "RetainGraph", package: "RetainGraph"),
            ],
            path: "Benchmarks/ReportRendering",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Edge insert/remove, snapshot cost, SCC + root paths at 10k/100k/1M nodes, memory per edge.
        .executableTarget(
            name: "GraphDetection",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetainGraph", package: "RetainGraph"),
            ],
            path: "Benchmarks/GraphDetection",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
    ]
)
