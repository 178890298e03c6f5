import Foundation
import Testing

/// Cores that cannot be read right: a clear error (exit 2, a message saying what and why),
/// never a wrong answer; and a core read on "another machine" from a copy of its files.
@Suite(
    "retain-graph core: cut, foreign and changed cores; --sysroot", .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct CoreFileErrorTests {
    /// Starts a copy of fixture `name` from `folder/bin` (so that its file can be replaced or
    /// removed while it runs).
    private func startCopy(of name: String, in folder: URL) throws -> RunningTarget {
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let copy = bin.appendingPathComponent(name)
        try FileManager.default.copyItem(
            at: try AttachTargets.products.get().appendingPathComponent(name), to: copy)
        return try RunningTarget(executable: copy, arguments: [])
    }

    private func dump(_ target: RunningTarget, to path: String) throws {
        let result = try AttachCommandTests.run(
            try CoreFileRuns.tool(), ["dump", "\(target.pid)", path])
        try #require(result.status == 0, "\(result.error)")
    }

    @Test("A truncated core: exit 2, it says how many bytes it has and needs")
    func truncatedCore() throws {
        let folder = try CoreFileRuns.folder("truncated")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = try AttachTargets.start("attach-dump-target")
        let core = folder.appendingPathComponent("whole.core").path
        try dump(target, to: core)
        let cut = folder.appendingPathComponent("cut.core").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: core))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let result = try AttachCommandTests.run(try CoreFileRuns.tool(), ["core", cut])
        #expect(result.status == 2)
        #expect(
            result.error.hasPrefix(
                "retain-graph: \(cut) is truncated: \(bytes.count / 2) bytes, but its segments need "
            ),
            "\(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test(
        "A core of a C program (sleep): exit 2, not a Swift program",
        .enabled(if: CoreFileRuns.gcore != nil, "gdb's gcore is not installed"))
    func coreOfACProgram() throws {
        let folder = try CoreFileRuns.folder("c-program")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["600"]
        try sleeper.run()
        defer {
            kill(sleeper.processIdentifier, SIGKILL)  // SIGTERM: blocked, as in this process
            sleeper.waitUntilExit()
        }
        let prefix = folder.appendingPathComponent("sleep").path
        let (status, output) = try CoreFileRuns.run(
            try #require(CoreFileRuns.gcore), ["-o", prefix, "\(sleeper.processIdentifier)"])
        try #require(status == 0, "\(output)")
        let core = "\(prefix).\(sleeper.processIdentifier)"
        let result = try AttachCommandTests.run(try CoreFileRuns.tool(), ["core", core])
        #expect(result.status == 2)
        #expect(
            result.error == "retain-graph: \(core) is a core of sleep, which is not a Swift "
                + "program: it maps no libswiftCore.so and no image with Swift type metadata")
    }

    @Test("A core whose binary was rebuilt since: exit 2, the build ids differ")
    func changedBinary() throws {
        let folder = try CoreFileRuns.folder("changed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = try startCopy(of: "attach-dump-target", in: folder)
        let core = folder.appendingPathComponent("target.core").path
        try dump(target, to: core)
        // Another program at the same path (a rebuild, a deployment): renamed over it, as
        // installers do, so the running process keeps its own file.
        let executable = folder.appendingPathComponent("bin/attach-dump-target")
        let other = folder.appendingPathComponent("bin/other")
        try FileManager.default.copyItem(
            at: try AttachTargets.products.get().appendingPathComponent("attach-task-loop"),
            to: other)
        #expect(rename(other.path, executable.path) == 0)
        let result = try AttachCommandTests.run(try CoreFileRuns.tool(), ["core", core])
        #expect(result.status == 2)
        #expect(
            result.error.hasPrefix(
                "retain-graph: \(core): \(executable.path) is not the file the process ran (build id "
            ),
            "\(result.error)")
        #expect(result.output.isEmpty)
    }

    @Test("A core read from a copy of its files (--sysroot) after the program is gone")
    func sysroot() throws {
        let folder = try CoreFileRuns.folder("sysroot")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = try startCopy(of: "attach-dump-target", in: folder)
        let live = try CoreFileRuns.answers(["attach", "\(target.pid)"])
        let core = folder.appendingPathComponent("target.core").path
        try dump(target, to: core)
        // Read to its end (a /proc file's size is 0: String(contentsOfFile:) stops early).
        let handle = try FileHandle(
            forReadingFrom: URL(fileURLWithPath: "/proc/\(target.pid)/maps"))
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        target.stop()
        // The machine the core is read on: the program's files copied under a folder, the
        // program itself gone from where it ran.
        let root = folder.appendingPathComponent("root")
        let files = Set(
            maps.split(separator: "\n").compactMap { line in
                line.firstIndex(of: "/").map { String(line[$0...]) }
            })
        for file in files {
            let copy = root.appendingPathComponent(String(file.dropFirst()))
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: file, toPath: copy.path)
        }
        try FileManager.default.removeItem(at: folder.appendingPathComponent("bin"))
        let missing = try AttachCommandTests.run(try CoreFileRuns.tool(), ["core", core])
        #expect(missing.status == 2)
        #expect(missing.error.contains("the process mapped files that are not on this machine: "))
        #expect(missing.error.contains("/bin/attach-dump-target"))
        let read = try CoreFileRuns.answers(["core", core, "--sysroot", root.path])
        #expect(read.status == 0, "\(read.error)")
        #expect(read.text == live.text)

        // A library of the copy that is not the one the process ran: refused.
        let core2 = try #require(files.first { $0.hasSuffix("/libswiftCore.so") })
        let replaced = root.appendingPathComponent(String(core2.dropFirst()))
        try FileManager.default.removeItem(at: replaced)
        let foundation = try #require(files.first { $0.hasSuffix("/libFoundationEssentials.so") })
        try FileManager.default.copyItem(atPath: foundation, toPath: replaced.path)
        let changed = try AttachCommandTests.run(
            try CoreFileRuns.tool(), ["core", core, "--sysroot", root.path])
        #expect(changed.status == 2)
        #expect(
            changed.error.contains("\(core2) is not the file the process ran"), "\(changed.error)")
    }
}
