import Foundation
import Testing

/// A run of the built `retain-graph attach` with its stop points reported
/// (`RETAINGRAPH_STOP_POINTS`, see `Sources/ProcessAttach/StopPoints.swift`).
///
/// Started with `posix_spawn`, not `Foundation.Process`: with an empty signal mask (a test's
/// threads block most signals, and a child inherits that), and reaped with `waitpid` (Process
/// learns of an exit when a socket the child inherited closes, which the Swift backtracer of a
/// crashed tool can hold open for good).
final class ToolRun {
    /// The tool's process id.
    let pid: pid_t
    private let input: FileHandle
    private let lines = LineReader()
    /// The last `stop point N: what` seen.
    private(set) var lastPoint = ""
    /// The `waitpid` status, once reaped.
    private(set) var status: Int32?

    /// The end-of-output line the reader appends.
    static let endOfOutput = "<end of output>"

    /// Starts `executable` (the tool, or a shell that execs it) with `arguments`.
    init(_ executable: URL, _ arguments: [String], stopPoints: String) throws {
        let toChild = Pipe()
        let fromChild = Pipe()
        for handle in [
            toChild.fileHandleForReading, toChild.fileHandleForWriting,
            fromChild.fileHandleForReading, fromChild.fileHandleForWriting,
        ] {
            _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild.fileHandleForReading.fileDescriptor, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild.fileHandleForWriting.fileDescriptor, 2)
        Self.closeOthers(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let environment = ProcessInfo.processInfo.environment.merging([
            "RETAINGRAPH_STOP_POINTS": stopPoints
        ]) { $1 }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer {
            for word in argv + envp { free(word) }
        }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        try toChild.fileHandleForReading.close()
        try fromChild.fileHandleForWriting.close()
        guard error == 0 else { throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EINVAL) }
        self.pid = pid
        input = toChild.fileHandleForWriting
        let lines = self.lines
        let output = fromChild.fileHandleForReading
        Thread {
            while case let data = output.availableData, !data.isEmpty {
                lines.append(data)
            }
            lines.append(Data("\n\(ToolRun.endOfOutput)\n".utf8))
        }.start()
    }

    /// Adds "close every descriptor from 3 on" to `actions` (glibc's
    /// `posix_spawn_file_actions_addclosefrom_np`, looked up with `dlsym`: Swift's Glibc module
    /// does not declare it), so that the tool holds no other test's pipe open.
    private static func closeOthers(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom =
            @convention(c) (
                UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32
            ) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }

    /// `retain-graph attach PID` with a long stop limit (a pause must not end the stop).
    convenience init(attachingTo pid: Int32, stopPoints: String, _ extra: [String] = []) throws {
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        try self.init(
            tool, ["attach", "\(pid)", "--max-stop", "120s"] + extra, stopPoints: stopPoints)
    }

    deinit {
        if status == nil { kill() }
        try? input.close()
    }

    /// Waits for the tool to pause; the point it paused at (`seized thread 4242`), or nil when
    /// its output ended first (it finished, or failed, before reaching it).
    func waitForPause() throws -> String? {
        let end = ContinuousClock.now + .seconds(120)
        var exited = false
        while true {
            let line: String
            do {
                line = try lines.wait(
                    for: {
                        $0.hasPrefix("stop point ") || $0.hasPrefix("paused at ")
                            || $0 == ToolRun.endOfOutput
                    }, deadline: min(end, .now + .milliseconds(200)))
            } catch let error as LineReader.TimedOut {
                // Its output may stay open in a process it started: its end says it ended (once
                // what it wrote before is read).
                if exited { return nil }
                guard ContinuousClock.now < end else { throw error }
                exited = hasExited
                continue
            }
            if line == Self.endOfOutput { return nil }
            if line.hasPrefix("stop point "), let colon = line.firstIndex(of: ":") {
                lastPoint = String(line[line.index(colon, offsetBy: 2)...])
            }
            if line.hasPrefix("paused at ") { return lastPoint }
        }
    }

    /// Goes on to the next point and waits for the pause there; its label, or nil.
    func step() throws -> String? {
        send("step")
        return try waitForPause()
    }

    /// Steps until the label of the point paused at satisfies `matches`; the label, or nil.
    func step(until matches: (String) -> Bool) throws -> String? {
        while let label = try step() {
            if matches(label) { return label }
        }
        return nil
    }

    /// What the tool wrote to standard error so far (its stop points included), for a failure's
    /// message.
    var errorLines: [String] { lines.all }

    /// Waits for a line of standard error that `matches`.
    func waitForLine(_ matches: @escaping (String) -> Bool) throws -> String {
        try lines.wait(for: matches, deadline: .now + .seconds(120))
    }

    /// Sends a line to the tool (an answer to a pause).
    func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// SIGKILLs the tool and reaps it.
    func kill() {
        Glibc.kill(pid, SIGKILL)
        _ = waitForExit()
    }

    /// Lets a paused tool finish; its exit code (128 + the signal that ended it).
    func finish() -> Int32 {
        send("")
        try? input.close()
        return waitForExit()
    }

    /// Whether the tool has ended (reaping it if so).
    var hasExited: Bool {
        if status != nil { return true }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return false }
        status = raw
        return true
    }

    /// Reaps the tool; its exit code (128 + the signal that ended it). `whileRunning` is called
    /// about every millisecond until then.
    @discardableResult
    func waitForExit(whileRunning: () -> Void = {}) -> Int32 {
        while status == nil {
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) {
                status = raw
            } else {
                whileRunning()
                usleep(1000)
            }
        }
        let raw = status ?? 0
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }

    /// The ids of the tool's child processes now (the Swift backtracer, after a crash).
    func children() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { candidate in
            guard
                let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }
}
