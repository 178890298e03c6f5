// swift-tools-version:6.1
//
// A test suite that knows nothing of RetainGraph (SuiteLeaksTests runs it): its tests leak a
// reference cycle nothing reaches, keep a cycle reachable from a global, and keep an object in a
// cycle with a running Task; they open sessions of a second package (ExitLeaksKit, three calls
// from the test's line to the initializers) and forget to close them, from two lines; and
// XCTest's process leaks a closure cycle Swift Testing's does not. Run with the preloaded check,
// its processes must report the leaks and neither of the others, each at the line that made it:
//
//   swift build --package-path Tests/Fixtures/ExitLeaks --product SuiteLeaksPreload
//   swift build --package-path Tests/Fixtures/ExitLeaks --build-tests
//   LD_PRELOAD=<scratch>/debug/libSuiteLeaksPreload.so swift test --package-path … --skip-build
//
// The dependency on RetainGraph (by path) builds that library in the same scratch path, and two
// programs that link the census themselves (the preloaded check must not read an empty heap
// there): exit-leaks-census links HeapCensus, exit-leaks-linked links SuiteLeaks. The tests link
// no RetainGraph product.
import PackageDescription

let package = Package(
    name: "ExitLeaks",
    dependencies: [
        .package(name: "RetainGraph", path: "../../.."),
        .package(name: "ExitLeaksKit", path: "../ExitLeaksKit"),
    ],
    targets: [
        .testTarget(
            name: "ExitLeaksTests", dependencies: ["ExitLeaksKit"], path: "Tests/ExitLeaksTests"),
        .executableTarget(
            name: "exit-leaks-census",
            dependencies: [
                "ExitLeaksKit", .product(name: "HeapCensus", package: "RetainGraph"),
            ],
            path: "Sources/exit-leaks-census"),
        .executableTarget(
            name: "exit-leaks-linked",
            dependencies: [
                "ExitLeaksKit", .product(name: "SuiteLeaks", package: "RetainGraph"),
            ],
            path: "Sources/exit-leaks-linked"),
    ]
)
