import Foundation
import Testing

/// What the core tests share: the tool's answers on a process and on its cores, put side by
/// side, and the cores made by real tools.
enum CoreFileRuns {
    /// The types of `attach-dump-target` the tests ask who holds.
    static let session = "attach_dump_target.DumpedSession"
    static let stackHeld = "attach_dump_target.StackHeld"

    /// A new empty folder under the temporary directory.
    static func folder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func tool() throws -> URL {
        try #require(AttachCommandTests.toolURL(), "retain-graph not found next to the tests")
    }

    /// `retain-graph ARGUMENTS --top 40 --who-holds SESSION --who-holds STACKHELD`: its answer
    /// from the type table on (the summary and limits say how it was read, not what).
    static func answers(_ arguments: [String]) throws -> (
        status: Int32, text: String, error: String
    ) {
        let result = try AttachCommandTests.run(
            try tool(),
            arguments + ["--top", "40", "--who-holds", session, "--who-holds", stackHeld])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let start = lines.firstIndex { $0 == "   count       bytes  type" } ?? lines.endIndex
        return (result.status, lines[start...].joined(separator: "\n"), result.error)
    }

    /// `text` with thread ids and names left out of holders (a kernel core names no thread; a
    /// fork dump knows only the forking thread's registers).
    static func withoutThreadNames(_ text: String) -> String {
        text.replacing(/thread -?\d+ "[^"]*"/, with: "thread")
    }

    /// Runs `executable` with `arguments`; its exit status and output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let result = try AttachCommandTests.run(URL(fileURLWithPath: executable), arguments)
        return (result.status, result.output + result.error)
    }

    /// gdb's `gcore`, if installed.
    static let gcore: String? = ["/usr/bin/gcore", "/usr/local/bin/gcore"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Why the kernel's cores cannot be tested here, or nil: `core_pattern` must name a file
    /// (a pipe hands the core to systemd-coredump or apport, out of the test's reach).
    static let kernelCoresUnavailable: String? = {
        let pattern =
            (try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if pattern.hasPrefix("|") {
            return "kernel.core_pattern pipes cores to a program (\(pattern)): no core file to read"
        }
        if pattern.isEmpty { return "kernel.core_pattern is empty: the kernel writes no core" }
        return nil
    }()

    /// No core file appeared where one was awaited.
    struct CoreMissing: Error, CustomStringConvertible {
        let folder: String
        var description: String { "no core file appeared in \(folder)" }
    }
}
