import Foundation
import Testing

/// HeapDumps preloaded into a program that links no RetainGraph product
/// (`LD_PRELOAD=libHeapDumpsPreload.so`, `RETAINGRAPH_DUMP_*`): its forked child's core, taken
/// on SIGUSR2 or when resident memory passes a threshold while the program runs on, read back
/// by `retain-graph core` with the answers of an attach.
@Suite(
    "Fork dumps of a running program (HeapDumps preloaded)", .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct ForkDumpTests {
    /// `libHeapDumpsPreload.so`: next to the tests, else built once into `.build-fixtures-dumps`.
    static let library: Result<URL, AttachTargets.BuildFailure> = {
        if let tool = AttachCommandTests.toolURL() {
            let beside = tool.deletingLastPathComponent().appendingPathComponent(
                "libHeapDumpsPreload.so")
            if FileManager.default.fileExists(atPath: beside.path) { return .success(beside) }
        }
        let scratch = AttachTargets.repository.appendingPathComponent(".build-fixtures-dumps")
        let result = try? AttachCommandTests.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "swift", "build", "--package-path", AttachTargets.repository.path, "--scratch-path",
                scratch.path, "--product", "HeapDumpsPreload",
            ])
        guard let result, result.status == 0 else {
            return .failure(AttachTargets.BuildFailure(log: result?.error ?? "swift did not run"))
        }
        return .success(scratch.appendingPathComponent("debug/libHeapDumpsPreload.so"))
    }()

    /// Waits until the dump in `folder` is finished: a non-empty core and no child of `pid`.
    static func finishedCore(in folder: URL, of pid: Int32, number: Int = 1) throws -> URL {
        let end = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < end {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            if let name = names.first(where: {
                $0.hasPrefix("core.") && $0.hasSuffix(".\(pid).\(number)")
            }),
                let size = try? FileManager.default.attributesOfItem(
                    atPath: folder.appendingPathComponent(name).path)[.size] as? Int,
                size > 0, !hasChildren(pid)
            {
                return folder.appendingPathComponent(name)
            }
            usleep(20_000)
        }
        throw CoreFileRuns.CoreMissing(folder: folder.path)
    }

    /// Whether any thread of `pid` has a child process (the dump's, until it is reaped).
    static func hasChildren(_ pid: Int32) -> Bool {
        let tasks =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            let children =
                (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8))
                ?? ""
            return !children.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
    }

    @Test("SIGUSR2: the program runs on, and its core answers as an attach does")
    func signalDump() throws {
        let folder = try CoreFileRuns.folder("fork-signal")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = try AttachTargets.start(
            "attach-dump-target",
            environment: [
                "LD_PRELOAD": try Self.library.get().path, "RETAINGRAPH_DUMP_SIGNAL": "SIGUSR2",
                "RETAINGRAPH_DUMP_DIR": folder.path, "RETAINGRAPH_DUMP_POLL_MS": "20",
            ])
        let live = try CoreFileRuns.answers(["attach", "\(target.pid)"])
        #expect(live.status == 0, "\(live.error)")
        kill(target.pid, SIGUSR2)
        let core = try Self.finishedCore(in: folder, of: target.pid)
        // It ran on: it still answers.
        target.send("add 1")
        _ = try target.waitForLine { $0 == "added 41" }
        let read = try CoreFileRuns.answers(["core", core.path])
        #expect(read.status == 0, "\(read.error)")
        #expect(
            CoreFileRuns.withoutThreadNames(read.text) == CoreFileRuns.withoutThreadNames(live.text)
        )
        #expect(read.text.contains("\"a thread's stack at fork (registers unknown, read whole)\""))
        let full = try AttachCommandTests.run(try CoreFileRuns.tool(), ["core", core.path])
        #expect(full.output.contains("a fork dump (HeapDumps; the process ran on)"))
        #expect(full.output.contains("only the forking thread's registers are known"))
    }

    @Test(
        "Resident memory past the threshold: one dump, then another past 1.5 times, no more than the limit"
    )
    func residentThreshold() throws {
        let folder = try CoreFileRuns.folder("fork-rss")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = try AttachTargets.start(
            "attach-dump-target",
            environment: [
                "LD_PRELOAD": try Self.library.get().path, "RETAINGRAPH_DUMP_ON_RSS": "96MiB",
                "RETAINGRAPH_DUMP_LIMIT": "2", "RETAINGRAPH_DUMP_DIR": folder.path,
                "RETAINGRAPH_DUMP_POLL_MS": "20",
            ])
        let cores = {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { !$0.hasSuffix(".txt") }
        }
        #expect(cores().isEmpty)
        target.send("grow 120")
        _ = try target.waitForLine { $0.hasPrefix("grown ") }
        let first = try Self.finishedCore(in: folder, of: target.pid, number: 1)
        target.send("grow 100")
        _ = try target.waitForLine { $0.hasPrefix("grown ") }
        _ = try Self.finishedCore(in: folder, of: target.pid, number: 2)
        target.send("grow 200")
        _ = try target.waitForLine { $0.hasPrefix("grown ") }
        target.send("add 1")
        _ = try target.waitForLine { $0 == "added 41" }
        #expect(cores().count == 2, "\(cores())")  // the limit
        // Each core has its sidecar: what the dump cost.
        let sidecar = try String(contentsOfFile: first.path + ".txt", encoding: .utf8)
        #expect(sidecar.hasPrefix("pause_ns "))
        #expect(sidecar.contains("\nstatus 0\n"))
        // The first dump started once resident memory reached 96 MiB (the program may still
        // have been growing): its sidecar says so, and its core holds the payload made by then.
        let resident =
            sidecar.split(separator: "\n").first { $0.hasPrefix("resident ") }
            .flatMap { Int($0.dropFirst(9)) } ?? 0
        #expect(resident >= 96 << 20, "\(sidecar)")
        let length = try #require(
            FileManager.default.attributesOfItem(atPath: first.path)[.size] as? Int)
        #expect(length >= resident / 2)
        let read = try AttachCommandTests.run(
            try CoreFileRuns.tool(), ["core", first.path, "--top", "5"])
        #expect(read.status == 0, "\(read.error)")
        let lines = read.output.split(separator: "\n")
        let arrays = lines.first { $0.hasSuffix("  [UInt8] storage") }
        #expect(
            (arrays?.split(separator: " ").first.flatMap { Int($0) } ?? 0) >= 40, "\(read.output)")
        #expect(
            lines.contains { $0.hasPrefix("      40") && $0.hasSuffix("  \(CoreFileRuns.session)") }
        )
    }
}
