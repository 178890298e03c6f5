import Foundation
import Testing

/// The built `retain-graph`, run as CI runs it.
enum RetainGraphTool {
    /// The repository's root: this file is Tests/CensusReportEndToEndTests/<name>.swift.
    static let workspace = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// `retain-graph` in the build products directory, next to the test bundle.
    static func url() -> URL? {
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("retain-graph") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the tool and returns its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let tool = try #require(url(), "retain-graph not found next to the tests")
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
