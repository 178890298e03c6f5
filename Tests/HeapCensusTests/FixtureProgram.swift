import Foundation
import Testing

/// The `census-stacks-fixture` program (Tests/Fixtures/CreationStacks), built next to the test
/// bundle, run as a child process under a watchdog.
enum FixtureProgram {
    /// How a run ended.
    enum Outcome {
        /// It exited with `status`, having printed `output`.
        case exited(status: Int32, output: String)
        /// It was still running at the deadline: what it printed, and every thread's backtrace
        /// as `gdb -batch -p PID -ex 'thread apply all bt'` printed them before it was killed.
        case hung(output: String, backtraces: String)
    }

    /// The built program, next to the test bundle; `RETAINGRAPH_STACKS_FIXTURE` names another
    /// build of it (such as one built from an older census, to see the watchdog catch a hang).
    static func url() -> URL? {
        if let path = ProcessInfo.processInfo.environment["RETAINGRAPH_STACKS_FIXTURE"] {
            return URL(fileURLWithPath: path)
        }
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(Bundle.main.bundleURL)
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("census-stacks-fixture") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the program with `arguments` and waits for it until `deadline` seconds have
    /// passed; a run still going then is attached with gdb (every thread's backtrace), killed
    /// and reported as hung. Never waits longer than the deadline plus gdb's own.
    ///
    /// - Parameters:
    ///   - arguments: The program's arguments.
    ///   - deadline: Seconds the run may take, generous: it is a hang detector, not a timing.
    /// - Returns: How the run ended.
    static func run(_ arguments: [String], deadline: TimeInterval) throws -> Outcome {
        let program = try #require(url(), "census-stacks-fixture not found next to the test bundle")
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-stacks-fixture-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let end = Date().addingTimeInterval(deadline)
        while process.isRunning, Date() < end { usleep(20_000) }
        var backtraces: String?
        if process.isRunning {
            backtraces = attachBacktraces(process.processIdentifier)
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        try handle.close()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        if let backtraces { return .hung(output: output, backtraces: backtraces) }
        return .exited(status: process.terminationStatus, output: output)
    }

    /// Every thread's backtrace of the running process `pid`, by gdb (or why there is none).
    static func attachBacktraces(_ pid: Int32) -> String {
        let gdb = Process()
        gdb.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gdb.arguments = ["gdb", "-batch", "-p", "\(pid)", "-ex", "thread apply all bt"]
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-stacks-gdb-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        guard let handle = try? FileHandle(forWritingTo: log) else { return "no log for gdb" }
        gdb.standardOutput = handle
        gdb.standardError = handle
        do { try gdb.run() } catch { return "gdb could not be started: \(error)" }
        // gdb detaches when done; its own deadline keeps a broken gdb from hanging the test.
        let end = Date().addingTimeInterval(120)
        while gdb.isRunning, Date() < end { usleep(20_000) }
        if gdb.isRunning { gdb.terminate() }
        gdb.waitUntilExit()
        try? handle.close()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return gdb.terminationStatus == 127 ? "gdb is not installed:\n\(text)" : text
    }
}
