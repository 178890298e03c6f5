import Foundation
import Testing

/// The programs of the nested fixture package `Tests/Fixtures/AttachTargets`: built once per
/// test run (Foundation only, a few seconds) into `.build-fixtures-attach` at the repository's
/// root (a scratch path of its own), started one per test, and killed when the test ends.
enum AttachTargets {
    /// The repository's root (this file is `Tests/ProcessAttachTests/AttachTargets.swift`).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Builds the fixture package once; the folder of its executables.
    static let products: Result<URL, BuildFailure> = {
        let scratch = repository.appendingPathComponent(".build-fixtures-attach")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "swift", "build", "--package-path",
            repository.appendingPathComponent("Tests/Fixtures/AttachTargets").path,
            "--scratch-path", scratch.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(BuildFailure(log: "\(error)"))
        }
        let log = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(BuildFailure(log: String(decoding: log, as: UTF8.self)))
        }
        return .success(scratch.appendingPathComponent("debug"))
    }()

    struct BuildFailure: Error, CustomStringConvertible {
        let log: String
        var description: String { "the fixture package did not build:\n\(log)" }
    }

    /// Whether a process this one starts (the `retain-graph` tool) may trace another child of
    /// this one: always as root with `CAP_SYS_PTRACE`, or when Yama does not restrict ptrace to
    /// descendants. (This process may always trace its own children.)
    static let toolCanAttach: Bool = {
        let scope =
            (try? String(contentsOfFile: "/proc/sys/kernel/yama/ptrace_scope", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        guard scope > 0 else { return true }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let effective =
            status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
            .flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? 0
        return scope < 3 && effective & (1 << 19) != 0  // CAP_SYS_PTRACE
    }()

    /// Starts fixture `name` with `arguments` (and `environment` added to this process's)
    /// and waits for its `ready` line.
    static func start(
        _ name: String, _ arguments: [String] = [], environment: [String: String] = [:]
    ) throws -> RunningTarget {
        let folder = try products.get()
        return try RunningTarget(
            executable: folder.appendingPathComponent(name), arguments: arguments,
            environment: environment)
    }
}

/// A started program: its pid, its output lines, and its end (killed when dropped).
final class RunningTarget: @unchecked Sendable {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lines = LineReader()

    /// The program's process id.
    var pid: Int32 { process.processIdentifier }
    /// The words of its `ready` line after the pid (what the program reports about itself).
    private(set) var readyDetails: [String] = []

    init(executable: URL, arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) {
                $1
            }
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let lines = self.lines
        output.fileHandleForReading.readabilityHandler = { handle in
            lines.append(handle.availableData)
        }
        try process.run()
        let ready = try waitForLine { $0.hasPrefix("ready") }
        readyDetails = ready.split(separator: " ").dropFirst(2).map(String.init)
    }

    deinit { stop() }

    /// Kills the program (SIGKILL) and reaps it.
    func stop() {
        output.fileHandleForReading.readabilityHandler = nil
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Sends a line to the program's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits (60 s at most) for an output line that `matches`; returns it.
    func waitForLine(_ matches: @escaping (String) -> Bool) throws -> String {
        try lines.wait(for: matches, deadline: .now + .seconds(60))
    }

    /// Whether the program still runs and nothing traces it.
    var isRunningUntraced: Bool {
        guard process.isRunning,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return false }
        let fields = status.split(separator: "\n")
        let tracer = fields.first { $0.hasPrefix("TracerPid:") }?.split(separator: "\t").last
        let state = fields.first { $0.hasPrefix("State:") } ?? ""
        return tracer == "0" && !state.contains("t (tracing stop)")
    }
}

/// Collects a pipe's output as lines, and lets a test wait for one.
final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer = Data()
    private var lines: [String] = []
    private var consumed = 0

    func append(_ data: Data) {
        condition.lock()
        defer { condition.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
        condition.broadcast()
    }

    /// Every line so far, for a failure's message.
    var all: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// The first line not yet returned that matches, waiting for it until `deadline`.
    func wait(for matches: (String) -> Bool, deadline: ContinuousClock.Instant) throws -> String {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let index = lines[consumed...].firstIndex(where: matches) {
                consumed = index + 1
                return lines[index]
            }
            guard ContinuousClock.now < deadline else {
                throw TimedOut(seen: lines)
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.5))
        }
    }

    struct TimedOut: Error, CustomStringConvertible {
        let seen: [String]
        var description: String { "no matching line within the deadline; saw \(seen)" }
    }
}
