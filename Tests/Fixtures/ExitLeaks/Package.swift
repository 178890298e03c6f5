// swift-tools-version:6.1
//
// A test suite that knows nothing of RetainGraph (SuiteLeaksTests runs it): its tests leak a
// reference cycle nothing reaches, keep a cycle reachable from a global, and keep an object in a
// cycle with a running Task. Run with the preloaded check, its processes must report the first
// and neither of the others, with the line that made it:
//
//   swift build --package-path Tests/Fixtures/ExitLeaks --product SuiteLeaksPreload
//   swift build --package-path Tests/Fixtures/ExitLeaks --build-tests
//   LD_PRELOAD=<scratch>/debug/libSuiteLeaksPreload.so swift test --package-path … --skip-build
//
// The dependency on RetainGraph (by path) is there only to build that library in the same
// scratch path: no target uses it.
import PackageDescription

let package = Package(
    name: "ExitLeaks",
    dependencies: [.package(name: "RetainGraph", path: "../../..")],
    targets: [.testTarget(name: "ExitLeaksTests", path: "Tests/ExitLeaksTests")]
)
