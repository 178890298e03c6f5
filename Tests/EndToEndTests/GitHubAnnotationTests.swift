import Foundation
import LeakTracking
import RetainGraph
import Testing
import TrackedTimers

final class Poller {
    func poll() {}
}

/// `retain-graph compare --github-annotations` on real report JSON: a timer leaked by this
/// file, reported by a watcher, written as JSON, read back by the built tool.
@Suite("GitHub annotations")
struct GitHubAnnotationTests {
    /// The repository's root: this file is Tests/EndToEndTests/<name>.swift.
    static let workspace = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A real leak: a repeating timer targeting a poller, made on `line` of this file.
    static func realReport() throws -> (report: LeakReport, line: Int, timer: RunLoopTimer) {
        let graph = LiveGraph()
        let clock = ManualWatchClock()
        let watcher = LeakWatcher(graph: graph, clock: clock)
        var poller: Poller? = Poller()
        let line = #line + 1
        let timer = try RunLoopTimer.scheduled(
            interval: 60, repeats: true, target: poller!, graph: graph
        ) { poller, _ in poller.poll() }
        watcher.expectDeallocation(of: poller!, within: .seconds(1), reason: "poller stopped")
        poller = nil
        clock.advance(by: .seconds(2))
        let report = try #require(watcher.verdicts().first?.report)
        return (report, line, timer)
    }

    /// `retain-graph` in the build products directory, next to the test bundle.
    static func toolURL() -> URL? {
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("retain-graph") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the tool and returns its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        let url = try #require(toolURL(), "retain-graph not found next to the test bundle")
        process.executableURL = url
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("A new leak becomes an ::error on the line of this file that made the timer")
    func annotatesTheLineThatMadeTheTimer() throws {
        let (report, line, timer) = try Self.realReport()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-annotate-\(UUID().uuidString)")
        let old = directory.appendingPathComponent("baseline")
        let new = directory.appendingPathComponent("leaks")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: new, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try report.jsonData().write(to: new.appendingPathComponent("\(report.fingerprint).json"))

        let (status, output) = try Self.run([
            "compare", old.path, new.path, "--github-annotations", "--workspace", Self.workspace,
        ])
        #expect(status == 1)
        let annotations = output.split(separator: "\n").filter { $0.hasPrefix("::") }
        #expect(annotations.count == 1, "\(output)")
        let expected =
            "::error file=Tests/EndToEndTests/GitHubAnnotationTests.swift,line=\(line),"
            + "title=LEAK%3A EndToEndTests.Poller (background run loop)::"
            + "background run loop: run loop ⇒ RunLoopTimer ⇒ Poller%0AHint: "
        #expect(annotations.first?.hasPrefix(expected) == true, "\(output)")
        #expect(annotations.first?.hasSuffix("%0AFingerprint: \(report.fingerprint)") == true)
        timer.invalidate()
    }

    @Test("Known leaks are not annotated, and without --github-annotations nothing is")
    func onlyNewLeaksAreAnnotated() throws {
        let (report, _, timer) = try Self.realReport()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-annotate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("leak.json")
        try report.jsonData().write(to: file)
        let same = try Self.run(["compare", file.path, file.path, "--github-annotations"])
        #expect(same.status == 0)
        #expect(!same.output.contains("::error"))
        let empty = directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let plain = try Self.run(["compare", empty.path, file.path])
        #expect(plain.status == 1)
        #expect(!plain.output.contains("::error"))
        timer.invalidate()
    }

    @Test("Outside the workspace no frame is the user's: the annotation points at the watch")
    func noUserFrame() throws {
        let (report, _, timer) = try Self.realReport()
        #expect(report.userSourceLocation(workspace: "/nonexistent") == nil)
        let annotation = report.githubAnnotation(workspace: "/nonexistent")
        // The watch's file as written (it lies outside the workspace), and its line.
        let watch = try #require(report.watchLocation)
        #expect(
            annotation.hasPrefix(
                "::error file=\(watch.filePath),line=\(watch.line),title=LEAK%3A EndToEndTests.Poller"
            ))
        // Dependencies built under .build/ are not the user's code either.
        var dependency = report
        dependency.creationTraces = report.creationTraces.map { trace in
            var trace = trace
            func moved(_ text: String) -> String {
                text.replacingOccurrences(
                    of: Self.workspace + "/", with: Self.workspace + "/.build/checkouts/x/")
            }
            trace.frames = trace.frames.map(moved)
            trace.file = trace.file.map(moved)
            return trace
        }
        #expect(dependency.userSourceLocation(workspace: Self.workspace) == nil)
        // The watch's location, relative to the workspace, is the annotation's then.
        let fallback = try #require(dependency.annotationLocation(workspace: Self.workspace))
        #expect(fallback.file == "Tests/EndToEndTests/GitHubAnnotationTests.swift")
        #expect(fallback.line == watch.line)
        // A report written before version 2 (no watch location) has no file to point at.
        dependency.watchLocation = nil
        #expect(dependency.annotationLocation(workspace: Self.workspace) == nil)
        #expect(
            dependency.githubAnnotation(workspace: Self.workspace).hasPrefix(
                "::error title=LEAK%3A EndToEndTests.Poller"))
        timer.invalidate()
    }

    @Test("Messages escape %, CR and LF; properties also escape : and ,")
    func escaping() throws {
        let (real, _, timer) = try Self.realReport()
        var report = real
        report.subject.typeName = "App.Cache<Key, Value>: 100%"
        report.hint.text = "line one\r\nline two, 50% done: ok"
        let annotation = report.githubAnnotation(workspace: Self.workspace)
        #expect(
            annotation.contains(
                ",title=LEAK%3A App.Cache<Key%2C Value>%3A 100%25 (background run loop)::"))
        #expect(
            annotation.contains("%0AHint: line one%0D%0Aline two, 50%25 done: ok%0AFingerprint: "))
        #expect(!annotation.contains("\n") && !annotation.contains("\r"))
        timer.invalidate()
    }
}
