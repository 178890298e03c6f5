import Foundation
import ProcessAttach
import Testing

/// Issue 32, item 4: a target on another Swift runtime than the remote mirror library's is
/// refused before it is stopped, unless `--remote-mirror` names a library.
///
/// The other runtime is this toolchain's `libswiftCore.so` copied with one change: the
/// constant `_SwiftStdlibVersion.current` returns (the version the attach reads, `B8 00 03 06
/// 00`, `mov $0x60300, %eax`, for 6.3) says one minor version less. The target loads the copy
/// through `LD_LIBRARY_PATH` (its `RUNPATH` comes after it) and runs as before: nothing in the
/// runtime depends on that constant on Linux.
@Suite(
    "A target on another Swift runtime", .serialized, .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct RuntimeMismatchTests {
    /// This process's `libswiftCore.so` (the toolchain's).
    static func runtimePath() -> String? {
        // Read to its end: a /proc file says its size is 0.
        let file = FileHandle(forReadingAtPath: "/proc/self/maps")
        let maps = String(decoding: (try? file?.readToEnd()) ?? Data(), as: UTF8.self)
        return maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
        }.first { $0.hasSuffix("/libswiftCore.so") }
    }

    /// A folder holding a copy of `runtime` whose version constant says `version` (one minor
    /// less); the one place the constant appears is checked to be unique.
    static func patchedRuntime(of runtime: String) throws -> (folder: String, version: String) {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: runtime)))
        let value = _SwiftStdlibVersion.current._value
        let major = value >> 16
        let minor = (value >> 8) & 0xFF
        try #require(minor > 0, "no lower minor version to pretend")
        let mov: [UInt8] = [0xB8] + withUnsafeBytes(of: value.littleEndian, Array.init)
        let places = (0...(bytes.count - mov.count)).filter {
            bytes[$0] == 0xB8 && Array(bytes[$0..<$0 + mov.count]) == mov
        }
        try #require(places.count == 1, "the version constant at \(places.count) places")
        bytes[places[0] + 2] = UInt8(minor - 1)
        let folder =
            NSTemporaryDirectory() + "retain-graph-runtime-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/libswiftCore.so"))
        return (folder, "\(major).\(minor - 1)")
    }

    @Test("Refused before the stop, naming both versions and --remote-mirror; with it, read")
    func refusedThenReadWithRemoteMirror() throws {
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        let runtime = try #require(Self.runtimePath(), "no libswiftCore.so mapped")
        let (folder, version) = try Self.patchedRuntime(of: runtime)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = try StopTarget(environment: ["LD_LIBRARY_PATH": folder])
        let ours =
            "\(_SwiftStdlibVersion.current._value >> 16).\((_SwiftStdlibVersion.current._value >> 8) & 0xFF)"

        let refused = try AttachCommandTests.run(tool, ["attach", "\(target.pid)"])
        #expect(refused.status == 3)
        #expect(
            refused.error.contains(
                "process \(target.pid) runs Swift \(version) (\(folder)/libswiftCore.so), "
                    + "but this tool reads Swift \(ours)"), "\(refused.error)")
        #expect(refused.error.contains("the process was not stopped"))
        #expect(refused.error.contains("--remote-mirror PATH"))
        #expect(target.running.isRunningUntraced)

        let mirror = (runtime as NSString).deletingLastPathComponent + "/libswiftRemoteMirror.so"
        let read = try AttachCommandTests.run(
            tool, ["attach", "\(target.pid)", "--remote-mirror", mirror])
        #expect(read.status == 0, "\(read.error)")
        #expect(read.output.contains("StopTargetSession"))
        #expect(target.running.isRunningUntraced)
    }

    @Test("The library's own check, without the tool: runtimeMismatch, and the target untouched")
    func refusedInProcess() throws {
        let runtime = try #require(Self.runtimePath(), "no libswiftCore.so mapped")
        let (folder, version) = try Self.patchedRuntime(of: runtime)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = try StopTarget(environment: ["LD_LIBRARY_PATH": folder])
        do {
            _ = try StoppedProcess(processID: target.pid)
            Issue.record("the mismatch was not refused")
        } catch .runtimeMismatch(let pid, let found, let file, _, let library) {
            #expect(pid == target.pid)
            #expect(found == version)
            #expect(file == folder + "/libswiftCore.so")
            #expect(library.hasSuffix("/libswiftRemoteMirror.so"))
        } catch {
            Issue.record("unexpected: \(error)")
        }
        #expect(target.running.isRunningUntraced)
    }
}
