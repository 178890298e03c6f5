import Foundation
import Testing

@testable import StackTraces

/// Whatever happens to the symbolizer (forced off, missing, hung, not a symbolizer at all),
/// frames still come back, from the `Runtime` module, and no child process is left behind.
@Suite("Symbolizer fallback")
struct SymbolizerFallbackTests {
    /// Real addresses of the test bundle, enough to go to the symbolizer on any route.
    static func addresses(phase: Double) throws -> [UInt] {
        try LoadedCode.functionAddresses(
            count: 24, inImageAt: LoadedCode.executablePath(), phase: phase)
    }

    /// Symbolicates with `settings` and checks that every address got a named frame.
    static func symbolicate(_ settings: SymbolicationSettings, phase: Double) throws
        -> Symbolicator
    {
        let symbolicator = Symbolicator(settings: settings)
        let frames = symbolicator.frames(for: try addresses(phase: phase))
        #expect(frames.count == 24)
        #expect(frames.allSatisfy { $0.contains { $0.function != nil } })
        return symbolicator
    }

    /// A folder of its own for a test's scripts and files.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("symbolizer-fallback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes an executable shell script.
    static func script(_ body: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent("fake-symbolizer")
        try ("#!/bin/sh\n" + body + "\n").write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url.path
    }

    @Test func theForcedRuntimeRouteNeverRunsTheSymbolizer() throws {
        let settings = SymbolicationSettings.fromEnvironment(
            toolchainLibrary: try LoadedCode.imagePath(named: "libswiftCore.so"),
            environment: ["RETAINGRAPH_SYMBOLICATION": "runtime"].lookup)
        #expect(settings.route == .runtime)
        #expect(settings.symbolizerPath == nil)
        let symbolicator = try Self.symbolicate(settings, phase: 0.1)
        #expect(symbolicator.routeCounts == .init(bySymbolizer: 0, byRuntime: 24))
    }

    @Test func aMissingSymbolizerLeavesEverythingToTheRuntimeModule() throws {
        let settings = SymbolicationSettings(
            route: .symbolizer, symbolizerPath: "/nonexistent/llvm-symbolizer")
        let symbolicator = try Self.symbolicate(settings, phase: 0.2)
        #expect(symbolicator.symbolizerHasFailed)
        #expect(symbolicator.routeCounts.bySymbolizer == 0)
        // From the environment, a path that names no executable means no symbolizer at all.
        let fromEnvironment = SymbolicationSettings.fromEnvironment(
            toolchainLibrary: try LoadedCode.imagePath(named: "libswiftCore.so"),
            environment: ["RETAINGRAPH_SYMBOLIZER": "/nonexistent/llvm-symbolizer"].lookup)
        #expect(fromEnvironment.symbolizerPath == nil)
    }

    @Test func aHangingSymbolizerIsKilledAtTheDeadlineAndNotRunAgain() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        let runsFile = folder.appendingPathComponent("runs").path
        // The script starts a grandchild and waits for it, holding the pipe open.
        let hang = try Self.script(
            "echo run >> '\(runsFile)'; sleep 600 & echo $$ $! > '\(pidFile)'; wait", in: folder)
        let settings = SymbolicationSettings(
            route: .symbolizer, symbolizerPath: hang, timeout: .milliseconds(300))
        let symbolicator = try Self.symbolicate(settings, phase: 0.3)
        #expect(symbolicator.symbolizerHasFailed)
        #expect(symbolicator.routeCounts.bySymbolizer == 0)

        let pids = try LoadedCode.contents(ofFile: pidFile)
            .split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
        try #require(pids.count == 2)
        // The script, our child, is reaped: gone, not a zombie.
        #expect(kill(pids[0], 0) == -1 && errno == ESRCH)
        // Its `sleep`, killed with the process group, is gone or waiting for init to reap it.
        #expect(waitUntilDead(pids[1], deadline: .now + .seconds(20)))

        // A second batch does not start the hung program again.
        _ = symbolicator.frames(for: try Self.addresses(phase: 0.35))
        #expect(symbolicator.routeCounts.bySymbolizer == 0)
        #expect(try LoadedCode.contents(ofFile: runsFile) == "run\n")
    }

    @Test func aProgramThatPrintsSomethingElseIsNotTrusted() throws {
        let settings = SymbolicationSettings(route: .symbolizer, symbolizerPath: "/bin/echo")
        let symbolicator = try Self.symbolicate(settings, phase: 0.4)
        #expect(symbolicator.symbolizerHasFailed)
        #expect(symbolicator.routeCounts.bySymbolizer == 0)
    }

    @Test func aSymbolizerThatAnswersTooFewEntriesIsNotTrusted() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let one =
            #"echo '{"Address":"0x10","Symbol":[{"FunctionName":"f","FileName":"","Line":0}]}'"#
        let settings = SymbolicationSettings(
            route: .symbolizer, symbolizerPath: try Self.script(one, in: folder))
        let symbolicator = try Self.symbolicate(settings, phase: 0.5)
        #expect(symbolicator.symbolizerHasFailed)
    }

    @Test func aSymbolizerThatFailsOnAnImageIsNotAskedAboutItAgain() throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let countFile = folder.appendingPathComponent("runs").path
        let failing = try Self.script("echo run >> '\(countFile)'; exit 1", in: folder)
        let settings = SymbolicationSettings(route: .symbolizer, symbolizerPath: failing)
        let symbolicator = try Self.symbolicate(settings, phase: 0.6)
        #expect(!symbolicator.symbolizerHasFailed)
        _ = symbolicator.frames(for: try Self.addresses(phase: 0.65))
        #expect(try LoadedCode.contents(ofFile: countFile) == "run\n")
        #expect(symbolicator.routeCounts.byRuntime == 48)
    }

    @Test func settingsComeFromTheEnvironment() throws {
        let library = try LoadedCode.imagePath(named: "libswiftCore.so")
        let automatic = SymbolicationSettings.fromEnvironment(
            toolchainLibrary: library, environment: [:].lookup)
        #expect(automatic.route == .automatic)
        #expect(automatic.timeout == SymbolicationSettings.defaultTimeout)
        // The toolchain's own symbolizer, beside the lib folder that holds libswiftCore.so.
        let toolchain = library.replacingOccurrences(
            of: "/lib/swift/linux/libswiftCore.so", with: "/bin/llvm-symbolizer")
        if FileManager.default.isExecutableFile(atPath: toolchain) {
            #expect(automatic.symbolizerPath == toolchain)
        }
        let forced = SymbolicationSettings.fromEnvironment(
            toolchainLibrary: library,
            environment: [
                "RETAINGRAPH_SYMBOLICATION": "Symbolizer", "RETAINGRAPH_SYMBOLIZER": "/bin/echo",
                "RETAINGRAPH_SYMBOLIZER_TIMEOUT": "2.5",
            ].lookup)
        #expect(forced.route == .symbolizer)
        #expect(forced.symbolizerPath == "/bin/echo")
        #expect(forced.timeout == .milliseconds(2_500))
        let odd = SymbolicationSettings.fromEnvironment(
            toolchainLibrary: nil,
            environment: [
                "RETAINGRAPH_SYMBOLICATION": "fast", "RETAINGRAPH_SYMBOLIZER": "relative/path",
                "RETAINGRAPH_SYMBOLIZER_TIMEOUT": "-1", "PATH": "",
            ].lookup)
        #expect(odd.route == .automatic)
        #expect(odd.symbolizerPath == nil)
        #expect(odd.timeout == SymbolicationSettings.defaultTimeout)
    }
}

extension Dictionary where Key == String, Value == String {
    /// The dictionary as an environment lookup.
    var lookup: (String) -> String? { { self[$0] } }
}

/// Whether process `pid` is gone or a zombie (dead, not yet reaped by its new parent), checked
/// until `deadline`.
func waitUntilDead(_ pid: pid_t, deadline: ContinuousClock.Instant) -> Bool {
    while ContinuousClock.now < deadline {
        if kill(pid, 0) == -1, errno == ESRCH { return true }
        let stat = try? LoadedCode.contents(ofFile: "/proc/\(pid)/stat")
        // The state follows the parenthesized command name.
        if let stat, let close = stat.lastIndex(of: ")"),
            stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        {
            return true
        }
        sched_yield()
    }
    return false
}
