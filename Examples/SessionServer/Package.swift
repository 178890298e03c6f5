// swift-tools-version:6.2
//
// SessionServer: a Hummingbird server whose sessions leak through their refresh timers, and the
// tests that show it over real HTTP. A nested package, so that RetainGraph itself never depends
// on a server framework.
//
//   SessionServer         the app: routes, sessions, the six refresh strategies (library)
//   session-server        runs the app (`swift run session-server --refresh task-loop-leaking`)
//   session-server-profiled  the same, linked with HeapProfiles: /debug/pprof/heap on request
//   SessionServerTests    start the server on an ephemeral loopback port and drive it with
//                         AsyncHTTPClient
import PackageDescription

let package = Package(
    name: "SessionServer",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SessionServer", targets: ["SessionServer"]),
        .executable(name: "session-server", targets: ["session-server"]),
        .executable(name: "session-server-profiled", targets: ["session-server-profiled"]),
    ],
    dependencies: [
        // Identity by name: a clone of RetainGraph may sit in a folder of any name.
        .package(name: "RetainGraph", path: "../.."),
        // No traits: neither swift-configuration nor the full-Foundation extras are needed.
        .package(
            url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "SessionServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        .executableTarget(
            name: "session-server",
            dependencies: [
                "SessionServer",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // The same server linked with HeapProfiles: `/debug/pprof/heap` with --heap-profile.
        // `session-server` above must keep linking no RetainGraph product.
        .executableTarget(
            name: "session-server-profiled",
            dependencies: [
                "SessionServer",
                .product(name: "HeapProfiles", package: "RetainGraph"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        .testTarget(
            name: "SessionServerTests",
            dependencies: [
                "SessionServer",
                .product(name: "HeapCensus", package: "RetainGraph"),
                .product(name: "HeapGrowth", package: "RetainGraph"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "LeakTracking", package: "RetainGraph"),
                // Attaches to the built session-server from outside (issue 26).
                .product(name: "ProcessAttach", package: "RetainGraph"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
