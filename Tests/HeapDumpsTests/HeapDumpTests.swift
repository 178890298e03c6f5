import Foundation
import HeapDumps
import ProcessAttach
import Testing

/// Objects this test process keeps, to find in its own fork dump.
final class DumpedWidget {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

nonisolated(unsafe) var keptWidgets: [DumpedWidget] = []

/// The fork dump of this (multithreaded) test process, read back with ProcessAttach's
/// `ProcessCore`: the objects it holds, held by what holds them, and what the dump says it
/// could not see.
@Suite(
    "HeapDump: this process's core, written by a forked child", .serialized,
    .timeLimit(.minutes(10))
)
struct HeapDumpTests {
    private static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-heapdump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("write(toFile:) writes a core whose heap holds this process's objects and their holder")
    func writeAndRead() throws {
        keptWidgets = (0..<25).map(DumpedWidget.init(serial:))
        defer { keptWidgets = [] }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("self.core").path
        let dump = try HeapDump.write(toFile: path)
        #expect(dump.path == path)
        #expect(dump.errorCode == nil)
        #expect(dump.pause > .zero && dump.pause <= dump.duration)
        #expect(dump.fileSize > 0 && dump.diskSize > 0 && dump.diskSize <= dump.fileSize)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let core = try ProcessCore(contentsOfFile: path)
        #expect(core.writer == .forkDump)
        #expect(core.memory.processID == getpid())
        #expect(
            core.memory.limitations.contains { $0.hasPrefix("only the forking thread's registers") }
        )
        let heap = try HeapSnapshot(core)
        let widgets = heap.objects(ofType: "HeapDumpsTests.DumpedWidget")
        #expect(widgets.count == 25)
        #expect(
            heap.whoHoldsText("HeapDumpsTests.DumpedWidget")
                .contains(#/held by:? global variable HeapDumpsTests\.keptWidgets /#))
    }

    @Test("An existing file is not overwritten, and the error says which step failed")
    func existingFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("taken").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: HeapDumpError(path: path, code: EEXIST, step: "creating the file")) {
            try HeapDump.write(toFile: path)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep")
    }

    @Test("The watcher dumps on SIGUSR2 past a leftover sidecar, stops at its limit, is alone")
    func watcherOnSignal() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // What an earlier process with this PID left: its core moved away, its sidecar not.
        let command = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8)
            .prefix { $0 != "\n" && $0 != "/" && $0 != " " }
        let leftover = folder.appendingPathComponent("core.\(command).\(getpid()).1.txt")
        try Data("pause_ns 1\n".utf8).write(to: leftover)
        try HeapDumpWatcher.start(
            HeapDumpConfiguration(
                directory: folder.path, limit: 1, signal: SIGUSR2, pollInterval: .milliseconds(20)))
        defer { HeapDumpWatcher.stop() }
        #expect(HeapDumpWatcher.isRunning)
        #expect(throws: HeapDumpError.self) {
            try HeapDumpWatcher.start(HeapDumpConfiguration(directory: folder.path))
        }
        let before = HeapDumpWatcher.dumps.count
        kill(getpid(), SIGUSR2)
        let deadline = ContinuousClock.now + .seconds(120)
        while HeapDumpWatcher.dumps.count == before, ContinuousClock.now < deadline {
            usleep(20_000)
        }
        let dump = try #require(HeapDumpWatcher.dumps.last)
        #expect(dump.errorCode == nil)
        let path = try #require(dump.path)
        #expect(path.hasPrefix(folder.path + "/core."))
        #expect(path.hasSuffix(".\(getpid()).2"), "number 1 has a leftover sidecar")
        #expect(try String(contentsOf: leftover, encoding: .utf8) == "pause_ns 1\n")
        #expect(FileManager.default.fileExists(atPath: path + ".txt"))
        let core = try ProcessCore(contentsOfFile: path)
        #expect(core.writer == .forkDump)
        #expect(core.memory.threads.contains { $0.name == "rg-heap-dump" })
    }

    @Test("Sizes read as binary units; the environment's settings need a trigger")
    func configuration() {
        #expect(HeapDumpConfiguration.bytes("2GiB") == 2 << 30)
        #expect(HeapDumpConfiguration.bytes("512MiB") == 512 << 20)
        #expect(HeapDumpConfiguration.bytes("1.5G") == 3 << 29)
        #expect(HeapDumpConfiguration.bytes("4096") == 4096)
        #expect(HeapDumpConfiguration.bytes("lots") == nil)
        #expect(HeapDumpConfiguration.bytes("-1G") == nil)
        #expect(HeapDumpConfiguration(limit: 0, pollInterval: .zero).limit == 1)
        #expect(HeapDumpConfiguration(pollInterval: .zero).pollInterval == .milliseconds(10))
    }
}
