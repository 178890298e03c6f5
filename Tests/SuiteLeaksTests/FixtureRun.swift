import Foundation
import Testing

/// The fixture package `Tests/Fixtures/ExitLeaks` (a test suite that does not depend on
/// RetainGraph), built once per test process in its own scratch path `.build-fixtures-exit`
/// with the preloaded library, and run with it. (A scratch path shared with another fixture
/// package keeps one build description: building one package makes the other's products
/// unknown, "No target named … in build description".)
enum FixtureRun {
    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let package = root.appendingPathComponent("Tests/Fixtures/ExitLeaks")
    static let scratch = root.appendingPathComponent(".build-fixtures-exit")
    /// The preloaded library: the fixture's build of it, or the one `RETAINGRAPH_FIXTURE_PRELOAD`
    /// names (another build of the check, such as the one before a change, to see these tests
    /// fail on it).
    static var library: URL {
        override("RETAINGRAPH_FIXTURE_PRELOAD")
            ?? scratch.appendingPathComponent("debug/libSuiteLeaksPreload.so")
    }

    /// The file an environment variable names, if it is set.
    static func override(_ variable: String) -> URL? {
        guard let path = ProcessInfo.processInfo.environment[variable], !path.isEmpty else {
            return nil
        }
        return URL(fileURLWithPath: path)
    }

    /// What a command printed (standard output and error together) and its exit status.
    struct Output {
        let status: Int32
        let text: String
    }

    /// Runs `arguments` (found on the `PATH`) with `environment` added to this process's, and
    /// waits for it (20 minutes at most: a first build of the fixture's dependency is long on
    /// two cores).
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-fixture-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(20 * 60)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return Output(status: process.terminationStatus, text: text)
    }

    /// Builds the preloaded library and the fixture's tests, once per process.
    static let build: Result<Void, FixtureError> = {
        let swift = [
            "swift", "build", "--package-path", package.path, "--scratch-path", scratch.path,
        ]
        do {
            for arguments in [
                swift + ["--product", "SuiteLeaksPreload"], swift + ["--build-tests"],
            ] {
                let output = try run(arguments)
                guard output.status == 0 else {
                    return .failure(FixtureError(message: "\(arguments): \(output.text)"))
                }
            }
            return .success(())
        } catch {
            return .failure(FixtureError(message: "\(error)"))
        }
    }()

    /// Runs the fixture's tests (XCTest, then Swift Testing: two processes) with the check
    /// preloaded, writing the JSON reports into a new directory.
    ///
    /// - Returns: The output, and the reports' directory.
    static func test(environment: [String: String] = [:]) throws -> (Output, URL) {
        try build.get()
        let reports = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-exit-leaks-\(UUID().uuidString)")
        var variables = environment
        variables["LD_PRELOAD"] = library.path
        variables["RETAINGRAPH_LEAKS_JSON"] = reports.path + "/"
        let output = try run(
            [
                "swift", "test", "--package-path", package.path, "--scratch-path", scratch.path,
                "--skip-build",
            ], environment: variables)
        return (output, reports)
    }

    /// One run of the fixture's tests with the check preloaded and nothing else set, shared by
    /// the tests that only read what it printed and wrote (a run takes seconds).
    static let plainRun: Result<(Output, URL), FixtureError> = {
        do {
            return .success(try test())
        } catch {
            return .failure(FixtureError(message: "\(error)"))
        }
    }()

    /// Runs one of the fixture's programs as a test process (copied to a name ending in
    /// `.xctest`, as SwiftPM names test bundles) with the check preloaded.
    ///
    /// - Parameter name: The program, `exit-leaks-census` or `exit-leaks-linked`.
    /// - Returns: What it printed and its exit status.
    static func runAsTestProcess(_ name: String) throws -> Output {
        try build.get()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-exit-program-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("\(name).xctest")
        try FileManager.default.copyItem(
            at: scratch.appendingPathComponent("debug/\(name)"), to: copy)
        return try run([copy.path], environment: ["LD_PRELOAD": library.path])
    }

    /// The built `retain-graph`, beside this test bundle (or the one `RETAINGRAPH_FIXTURE_TOOL`
    /// names).
    static var tool: URL {
        override("RETAINGRAPH_FIXTURE_TOOL")
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("retain-graph")
    }

    /// The line of the fixture's file `file` (in its tests, or a path from the package's root)
    /// that carries `marker`.
    static func line(of marker: String, in file: String = "Tests/ExitLeaksTests/Scenarios.swift")
        throws -> Int
    {
        let text = try String(contentsOf: package.appendingPathComponent(file), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.contains(marker) })
        return index + 1
    }
}

/// A fixture that could not be built.
struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
