import Foundation
import Testing

/// Runs the built `retain-graph attach` as a person would from a shell.
@Suite(
    "retain-graph attach", .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct AttachCommandTests {
    /// `retain-graph` in the build products directory, next to the test bundle.
    static func toolURL() -> URL? {
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(Bundle.main.bundleURL)
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("retain-graph") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `executable` with `arguments`, feeding `input` to its standard input.
    static func run(_ executable: URL, _ arguments: [String], input: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // Both pipes are read to their end at once: a full one would block the tool.
        let errors = ErrorOutput()
        let reader = Thread { errors.set(error.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message = errors.wait()
        return Result(
            status: process.terminationStatus, output: String(decoding: text, as: UTF8.self),
            error: String(decoding: message, as: UTF8.self).trimmingCharacters(in: .newlines))
    }

    /// Standard error's bytes, handed from the thread that read them.
    final class ErrorOutput: @unchecked Sendable {
        private let condition = NSCondition()
        private var data: Data?

        func set(_ data: Data) {
            condition.lock()
            self.data = data
            condition.broadcast()
            condition.unlock()
        }

        func wait() -> Data {
            condition.lock()
            defer { condition.unlock() }
            while data == nil { condition.wait() }
            return data ?? Data()
        }
    }

    private func tool() throws -> URL {
        try #require(Self.toolURL(), "retain-graph not found next to the tests")
    }

    @Test("--who-holds prints the path from the Task to the leaked owner")
    func whoHolds() throws {
        let target = try AttachTargets.start("attach-task-loop")
        let result = try Self.run(
            try tool(),
            ["attach", "\(target.pid)", "--who-holds", "attach_task_loop.TaskRefresher"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("process \(target.pid) (attach-task-loo): ") == true)
        #expect(lines.contains { $0.hasPrefix("stopped ") && $0.contains("copied") })
        #expect(
            lines.contains("WHO HOLDS attach_task_loop.TaskRefresher: 1 live object, held 1 way"))
        // The task is named by where it waits (the fixture's sleep, line 12).
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "1 held by a Task suspended in closure #1 in TaskRefresher.start() at "
                        + "main.swift:12, awaiting Task.sleep(for:tolerance:clock:);")
            }, "\(result.output)")
        #expect(
            lines.contains {
                $0.hasPrefix("  ╰→ ") && $0.contains(" ⇒ attach_task_loop.TaskRefresher at 0x")
            })
        #expect(target.isRunningUntraced)
    }

    @Test("--who-holds groups the instances by how they are held: a list's nodes are two ways")
    func whoHoldsGroupsTheInstances() throws {
        // A list of 200 nodes a global holds through its head: the head one way, every other
        // node the same way (the run of `.next` counts as one step).
        let target = try AttachTargets.start("attach-many", ["200"])
        let result = try Self.run(
            try tool(), ["attach", "\(target.pid)", "--who-holds", "attach_many.Node"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("WHO HOLDS attach_many.Node: 200 live objects, held 2 ways"))
        #expect(lines.contains { $0.hasPrefix("199 held by global variable attach_many.list") })
        #expect(lines.contains { $0.hasPrefix("1 held by global variable attach_many.list") })
        // The 199's example is the one nearest the holder (the head's next node, two steps),
        // not the one of lowest address, which may be 199 steps down the list.
        let example = try #require(lines.firstIndex { $0.hasPrefix("199 held by") })
        #expect(lines[example + 1].hasPrefix("  ┬ attach_many.NodeList at 0x"))
        #expect(lines[example + 2].hasPrefix("  ├─ .head ⇒ attach_many.Node at 0x"))
        #expect(lines[example + 3].hasPrefix("  ╰→ .next ⇒ attach_many.Node at 0x"))
    }

    @Test("--top lists types by count with their bytes")
    func top() throws {
        let target = try AttachTargets.start("attach-stale", ["250"])
        let result = try Self.run(try tool(), ["attach", "\(target.pid)", "--top", "3"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex(of: "   count       bytes  type"))
        #expect(lines[header + 1].hasSuffix("  attach_stale.KeptObject"))
        #expect(lines[header + 1].hasPrefix("     250"))
        #expect(lines.count >= header + 4)
    }

    @Test("--growth with Enter: the second attach comes when asked, with what grew")
    func growth() throws {
        let target = try AttachTargets.start("attach-global-cache", ["4"])
        let process = Process()
        process.executableURL = try tool()
        process.arguments = ["attach", "\(target.pid)", "--growth", "10m"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let lines = LineReader()
        output.fileHandleForReading.readabilityHandler = { lines.append($0.availableData) }
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        _ = try lines.wait(
            for: { $0.hasPrefix("first snapshot taken") }, deadline: .now + .seconds(60))
        target.send("add 3")
        _ = try target.waitForLine { $0 == "added 7" }
        input.fileHandleForWriting.write(Data("\n".utf8))
        let grown = try lines.wait(
            for: { $0.hasPrefix("attach_global_cache.CachedSession: ") },
            deadline: .now + .seconds(60))
        #expect(grown.hasPrefix("attach_global_cache.CachedSession: +3 (4 → 7), "))
        let holder = try lines.wait(
            for: { $0.hasPrefix("  3 held by ") }, deadline: .now + .seconds(60))
        #expect(holder.hasPrefix("  3 held by global variable attach_global_cache.sessionCache"))
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(target.isRunningUntraced)
    }

    @Test("--output writes a snapshot that --input reads back, without the process")
    func outputAndInput() throws {
        let target = try AttachTargets.start("attach-timer")
        let file = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("attach-\(target.pid).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let name = "attach_timer.TimerOwner"
        let live = try Self.run(
            try tool(), ["attach", "\(target.pid)", "--who-holds", name, "--output", file.path])
        #expect(live.status == 0, "\(live.error)")
        target.stop()
        let saved = try Self.run(try tool(), ["attach", "--input", file.path, "--who-holds", name])
        #expect(saved.status == 0, "\(saved.error)")
        // The live run ends with the line naming the file it wrote; the rest of the answer is
        // the same read back.
        let section = { (text: String) in
            (text.components(separatedBy: "WHO HOLDS").last ?? "")
                .split(separator: "\n").filter { !$0.hasPrefix("wrote ") }
        }
        #expect(section(saved.output) == section(live.output))
        #expect(live.output.contains("wrote \(file.path): "))
        #expect(saved.output.contains("1 held by a Foundation.Timer scheduled on a run loop"))
    }

    @Test("Bad input: exit 3 with a message for a missing process and for sleep, 2 for a bad file")
    func badInput() throws {
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let missing = try Self.run(try tool(), ["attach", "\(gone.processIdentifier)"])
        #expect(missing.status == 3)
        #expect(missing.error == "retain-graph: process \(gone.processIdentifier) does not exist")
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["600"]
        try sleeper.run()
        defer {
            // SIGKILL: a child of a test process inherits a signal mask that blocks SIGTERM.
            kill(sleeper.processIdentifier, SIGKILL)
            sleeper.waitUntilExit()
        }
        let notSwift = try Self.run(try tool(), ["attach", "\(sleeper.processIdentifier)"])
        #expect(notSwift.status == 3)
        #expect(notSwift.error.contains("(sleep) is not a Swift program"))
        #expect(sleeper.isRunning)
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "not-a-snapshot-\(getpid()).json")
        try Data("[1, 2]".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let unreadable = try Self.run(try tool(), ["attach", "--input", file.path])
        #expect(unreadable.status == 2)
        #expect(unreadable.error.hasPrefix("retain-graph: cannot read \(file.path): "))
    }
}
