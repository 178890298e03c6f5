// swift-tools-version:6.1
//
// A second package for the ExitLeaks fixture: a pretend client library whose sessions and
// connections hold each other until closed. The fixture's tests open sessions and forget to
// close them, so the leaked objects are made three calls deep inside this package's code: the
// at-exit check must still name the test's line.
import PackageDescription

let package = Package(
    name: "ExitLeaksKit",
    products: [.library(name: "ExitLeaksKit", targets: ["ExitLeaksKit"])],
    targets: [.target(name: "ExitLeaksKit")]
)
