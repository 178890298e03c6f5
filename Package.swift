// swift-tools-version:6.1
//
// RetainGraph: finds the leaks that reachability-based tools cannot see, such as an owner kept
// alive by a repeating timer that a run loop still holds.
//
// Module map (one job each):
//   CLibunwind         the only C door: libunwind behind static inline wrappers
//   Locking            a pthread-backed lock that ThreadSanitizer understands (package-internal)
//   StackTraces        cheap return-address capture, lazy symbolication and demangling
//   RetainGraph        the live object graph, snapshots, cycles and shortest root paths
import PackageDescription

let package = Package(
    name: "RetainGraph",
    products: [
        .library(name: "StackTraces", targets: ["StackTraces"]),
        .library(name: "RetainGraph", targets: ["RetainGraph"]),
    ],
    dependencies: [],
    targets: [
        .systemLibrary(
            name: "CLibunwind",
            pkgConfig: "libunwind",
            providers: [.apt(["libunwind-dev"])]
        ),
        .target(name: "Locking"),
        .target(
            name: "StackTraces",
            dependencies: ["CLibunwind", "Locking"]
        ),
        .target(
            name: "RetainGraph",
            dependencies: ["StackTraces", "Locking"]
        ),
        .testTarget(name: "StackTracesTests", dependencies: ["StackTraces"]),
        .testTarget(name: "RetainGraphTests", dependencies: ["RetainGraph"]),
    ]
)
