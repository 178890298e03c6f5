import Foundation
import Testing

/// `retain-graph core` on cores of one running program written by `retain-graph dump`, gdb's
/// `gcore` and the kernel: the same answers as `retain-graph attach` on the process (types,
/// counts, holders, paths), and gdb reads the dump.
@Suite(
    "retain-graph core and dump", .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct CoreCommandTests {
    @Test("A core from retain-graph dump gives attach's answers, and gdb reads its threads")
    func dumpMatchesAttach() throws {
        let target = try AttachTargets.start("attach-dump-target")
        let folder = try CoreFileRuns.folder("dump")
        defer { try? FileManager.default.removeItem(at: folder) }
        let live = try CoreFileRuns.answers(["attach", "\(target.pid)"])
        #expect(live.status == 0, "\(live.error)")
        let core = folder.appendingPathComponent("target.core").path
        let dump = try AttachCommandTests.run(
            try CoreFileRuns.tool(), ["dump", "\(target.pid)", core])
        #expect(dump.status == 0, "\(dump.error)")
        #expect(dump.output.hasPrefix("process \(target.pid) (attach-dump-tar): stopped "))
        #expect(target.isRunningUntraced)
        let read = try CoreFileRuns.answers(["core", core])
        #expect(read.status == 0, "\(read.error)")
        #expect(read.text == live.text)
        #expect(live.text.contains("WHO HOLDS \(CoreFileRuns.session): 40 live objects"))
        // (`held by:` one object at a time, or `N held by` a group of them.)
        #expect(live.text.contains(#/held by:? global variable attach_dump_target\.sessions /#))
        #expect(live.text.contains(#/held by:? the stack or registers of thread /#))

        // gdb takes it for a core: both threads, with registers.
        let (status, gdb) = try CoreFileRuns.run(
            "/usr/bin/env",
            [
                "gdb", "-batch", "-nx", "-ex", "info threads",
                target.process.executableURL?.path ?? "", core,
            ])
        #expect(status == 0, "\(gdb)")
        #expect(gdb.contains("(LWP \(target.pid))"), "\(gdb)")
        let threads = gdb.split(separator: "\n").filter { $0.contains(/^\*?\s+\d+\s+Thread 0x/) }
        #expect(threads.count == 2, "\(gdb)")
    }

    @Test(
        "A core from gdb's gcore gives attach's answers",
        .enabled(if: CoreFileRuns.gcore != nil, "gdb's gcore is not installed"))
    func gcoreMatchesAttach() throws {
        let target = try AttachTargets.start("attach-dump-target")
        let folder = try CoreFileRuns.folder("gcore")
        defer { try? FileManager.default.removeItem(at: folder) }
        let live = try CoreFileRuns.answers(["attach", "\(target.pid)"])
        let prefix = folder.appendingPathComponent("gcore").path
        let (status, output) = try CoreFileRuns.run(
            try #require(CoreFileRuns.gcore), ["-o", prefix, "\(target.pid)"])
        #expect(status == 0, "\(output)")
        let read = try CoreFileRuns.answers(["core", "\(prefix).\(target.pid)"])
        #expect(read.status == 0, "\(read.error)")
        // gcore keeps no thread names.
        #expect(
            CoreFileRuns.withoutThreadNames(read.text) == CoreFileRuns.withoutThreadNames(live.text)
        )
        #expect(read.text.contains("WHO HOLDS \(CoreFileRuns.session): 40 live objects"))
    }

    @Test(
        "A core the kernel wrote on SIGABRT gives attach's answers",
        .enabled(
            if: CoreFileRuns.kernelCoresUnavailable == nil,
            "\(CoreFileRuns.kernelCoresUnavailable ?? "")"))
    func kernelCoreMatchesAttach() throws {
        let folder = try CoreFileRuns.folder("kernel")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The Swift runtime's backtracer would catch SIGABRT: the default action writes the core.
        let target = try AttachTargets.start(
            "attach-dump-target",
            environment: ["FIXTURE_CORE_DIR": folder.path, "SWIFT_BACKTRACE": "enable=no"])
        let live = try CoreFileRuns.answers(["attach", "\(target.pid)"])
        #expect(live.status == 0, "\(live.error)")
        kill(target.pid, SIGABRT)
        target.process.waitUntilExit()
        #expect(target.process.terminationReason == .uncaughtSignal)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let name = try #require(
            names.first { $0.hasPrefix("core") },
            "no core in \(folder.path) (core_pattern: \((try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? "?"))"
        )
        let read = try CoreFileRuns.answers(["core", folder.appendingPathComponent(name).path])
        #expect(read.status == 0, "\(read.error)")
        #expect(
            CoreFileRuns.withoutThreadNames(read.text) == CoreFileRuns.withoutThreadNames(live.text)
        )
        #expect(read.text.contains("WHO HOLDS \(CoreFileRuns.stackHeld): 1 live object"))
    }

    @Test("--growth-from compares two cores of one program: the sessions added between")
    func growthBetweenCores() throws {
        let target = try AttachTargets.start("attach-dump-target", ["10"])
        let folder = try CoreFileRuns.folder("growth")
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = try CoreFileRuns.tool()
        let earlier = folder.appendingPathComponent("earlier.core").path
        let later = folder.appendingPathComponent("later.core").path
        #expect(try AttachCommandTests.run(tool, ["dump", "\(target.pid)", earlier]).status == 0)
        target.send("add 7")
        _ = try target.waitForLine { $0 == "added 17" }
        #expect(try AttachCommandTests.run(tool, ["dump", "\(target.pid)", later]).status == 0)
        let result = try AttachCommandTests.run(tool, ["core", later, "--growth-from", earlier])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("\(CoreFileRuns.session): +7 (10 → 17), ") })
        #expect(lines.contains { $0.contains("global variable attach_dump_target.sessions") })
    }
}
