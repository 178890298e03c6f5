import Foundation
import Testing

/// What each product links, read from the built binaries (their dynamic symbol tables, the
/// libraries they need, the symbols their object files use), not from the sources.
@Suite("Product boundaries, checked on the built binaries")
struct ProductBoundaryTests {
    /// The folder the test bundle was built in, where SwiftPM puts the products and the
    /// modules' object files.
    static var buildDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Runs a binutils tool and returns its standard output.
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) \(arguments.joined(separator: " "))")
        return String(decoding: data, as: UTF8.self)
    }

    @Test("retain-graph defines no allocator entry point and needs no test framework")
    func commandLineToolLinksNoCensusAndNoTestFramework() throws {
        let tool = Self.buildDirectory.appendingPathComponent("retain-graph")
        try #require(
            FileManager.default.isExecutableFile(atPath: tool.path),
            "retain-graph not built next to the test bundle")
        let defined = try Self.run("nm", ["-D", "--defined-only", tool.path])
            .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        for entryPoint in ["malloc", "free", "posix_memalign", "_Block_copy", "swift_allocObject"] {
            #expect(!defined.contains(entryPoint), "retain-graph exports \(entryPoint)")
        }
        let needed = try Self.run("readelf", ["-d", tool.path])
            .split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty, "readelf found no needed library: is this an ELF file?")
        #expect(!needed.contains { $0.contains("libXCTest") }, "\(needed)")
        #expect(!needed.contains { $0.contains("libTesting") }, "\(needed)")
    }

    /// The repository's `Sources` folder.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// The symbols of XCTest and Swift Testing that `module`'s object files use (those of its
    /// current source files: an incremental build keeps the objects of files since moved).
    static func testFrameworkSymbols(usedBy module: String) throws -> [Substring] {
        let objects = buildDirectory.appendingPathComponent("\(module).build")
        let enumerator = FileManager.default.enumerator(
            at: sources.appendingPathComponent(module), includingPropertiesForKeys: nil)
        let names = (enumerator?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
            .map { $0.lastPathComponent + ".o" }
        let files = names.map { objects.appendingPathComponent($0).path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        try #require(!files.isEmpty, "no object files for \(module) in \(objects.path)")
        let undefined = try run("nm", ["--undefined-only"] + files)
        // Swift mangles a module's symbols with its name's length and name: 6XCTest, 7Testing.
        return undefined.split(separator: "\n").filter {
            $0.contains("$s6XCTest") || $0.contains("$s7Testing")
        }
    }

    @Test(
        "HeapGrowth, LeakTracking, RetainGraphReports and HeapCensus use no symbol of a test framework",
        arguments: ["HeapGrowth", "LeakTracking", "RetainGraphReports", "HeapCensus"])
    func librariesUseNoTestFramework(module: String) throws {
        let symbols = try Self.testFrameworkSymbols(usedBy: module)
        #expect(symbols.isEmpty, "\(module) uses \(symbols.prefix(3))")
    }

    @Test(
        "RetainGraphTesting, where the traits and XCTest helpers live, uses both (the check sees them)"
    )
    func theTestingProductUsesBothFrameworks() throws {
        let symbols = try Self.testFrameworkSymbols(usedBy: "RetainGraphTesting")
        #expect(symbols.contains { $0.contains("$s6XCTest") })
        #expect(symbols.contains { $0.contains("$s7Testing") })
    }
}
