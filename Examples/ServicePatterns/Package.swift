// swift-tools-version:6.1
//
// ServicePatterns: seven service patterns that leak when their stop is forgotten, tested the
// way RetainGraph's README says (its "Use it in your package" section), and nothing more: the
// products it lists, `@Test(.detectsLeaks)` with `LeakWatcher.current.expectDeallocation`,
// `trackForLeaks` in XCTest, the heap census started in each test. No RetainGraph type in the
// services themselves.
//
//   ServicePatterns        the services: a cache refresher on a Foundation.Timer, a Task poller,
//                          a DispatchSourceTimer heartbeat, a NotificationCenter observer, a
//                          URLSession client that is its session's delegate, a registry
//                          singleton holding closures, a document with a strong-delegate toolbar
//   ServicePatternsTests   each service forgotten (a known issue: the leak report) and stopped
//                          (passes), plus three XCTest cases
//
// `run-six.sh` runs the tests three times in parallel and three times serially and checks the
// reports (holder, property or capture to fix, hint, fingerprints).
import PackageDescription

let package = Package(
    name: "ServicePatterns",
    products: [
        .library(name: "ServicePatterns", targets: ["ServicePatterns"])
    ],
    dependencies: [
        // Identity by name: a clone of RetainGraph may sit in a folder of any name.
        .package(name: "RetainGraph", path: "../..")
    ],
    targets: [
        .target(name: "ServicePatterns"),
        .testTarget(
            name: "ServicePatternsTests",
            dependencies: [
                "ServicePatterns",
                .product(name: "RetainGraphTesting", package: "RetainGraph"),
                .product(name: "LeakTracking", package: "RetainGraph"),
                .product(name: "HeapCensus", package: "RetainGraph"),
            ]
        ),
    ]
)
