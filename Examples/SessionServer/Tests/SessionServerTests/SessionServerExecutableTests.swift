import Foundation
import Testing

/// Runs the built `session-server` executable, as a person would from a shell.
@Suite("session-server executable", .timeLimit(.minutes(2)))
struct SessionServerExecutableTests {
    /// `session-server` in the build products directory, next to the test bundle.
    static func executableURL() -> URL? {
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(Bundle.main.bundleURL)
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("session-server") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test("refuses an unknown refresh strategy with exit status 2 and lists the known ones")
    func refusesUnknownStrategy() throws {
        let url = try #require(Self.executableURL(), "session-server not found next to the tests")
        let process = Process()
        process.executableURL = url
        process.arguments = ["--refresh", "sometimes"]
        process.environment = [:]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 2)
        #expect(message.hasPrefix("session-server: unknown refresh strategy sometimes"))
        #expect(message.contains("repeated-task-leaking") && message.contains("task-loop-weak"))
    }
}
