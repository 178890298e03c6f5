import Foundation
import LeakTracking
import Testing

/// Where the fixture's leaks were made, as the at-exit check names them: a session of another
/// package (ExitLeaksKit) opened by a test and never closed is made at the test's line, three
/// calls above the initializers; two such lines are two groups; and `retain-graph compare`
/// annotates each at its line.
@Suite("Leaked cycles at exit: made at the line to change (fixture package)", .serialized)
struct ExitLeaksPlacesTests {
    static let swiftTests = "Tests/ExitLeaksTests/ExitLeaksSwiftTests.swift"

    /// The reports of the process that opened sessions (Swift Testing's: XCTest's opens none).
    static func sessionReports(in directory: URL) throws -> [LeakReport] {
        let byFile = try ExitLeaksFixtureTests.reports(in: directory)
        let sessions = byFile.values.map { reports in
            reports.filter {
                ExitLeaksFixtureTests.types($0) == [
                    "ExitLeaksKit.Session", "ExitLeaksKit.Connection",
                ]
            }
        }
        #expect(sessions.filter(\.isEmpty).count == 1, "XCTest's process opens no session")
        return sessions.flatMap { $0 }
    }

    @Test(
        "A session made three calls deep in another package is made at the test's line; two lines are two groups"
    )
    func sessionsAreMadeAtTheTestsLines() throws {
        let (output, directory) = try FixtureRun.plainRun.get()
        let first = try FixtureRun.line(of: "FIRST-SESSION-LINE", in: Self.swiftTests)
        let second = try FixtureRun.line(of: "SECOND-SESSION-LINE", in: Self.swiftTests)
        let sessions = try Self.sessionReports(in: directory)
        #expect(sessions.count == 2, "one group per line: \(sessions.map(\.summary))")
        var lines: Set<Int> = []
        for report in sessions {
            #expect(report.occurrences == 1)
            // Every object of the group, the connection made inside the session's initializer
            // included, is made at the test's line.
            let places = Set(report.creationTraces.map { "\($0.file ?? "?"):\($0.line ?? 0)" })
            #expect(places.count == 1, "\(places)")
            for trace in report.creationTraces {
                #expect(trace.file?.hasSuffix("ExitLeaksSwiftTests.swift") ?? false, "\(trace)")
                if let line = trace.line { lines.insert(line) }
            }
            // The whole stack is kept: the library's frames are there, below the test's.
            let frames = report.creationTraces.flatMap(\.frames)
            #expect(frames.contains { $0.contains("SessionBuilder.build()") }, "\(frames)")
            let sites = try #require(report.creationSites)
            #expect(Set(sites.map(\.typeName)) == Set(ExitLeaksFixtureTests.types(report)))
            #expect(sites.allSatisfy { $0.count == 1 && $0.line.map(lines.contains) ?? false })
        }
        #expect(lines == [first, second], "\(lines)")
        #expect(
            output.text.contains("made at ExitLeaksSwiftTests.swift:\(first)"), "\(output.text)")
        #expect(
            output.text.contains("made at ExitLeaksSwiftTests.swift:\(second)"), "\(output.text)")
        #expect(!output.text.contains("made at Client.swift"), "\(output.text)")
    }

    @Test("XCTest's closure cycle is made at the test's line, and only XCTest's process has it")
    func closureCycleIsMadeAtTheTestsLine() throws {
        let (output, directory) = try FixtureRun.plainRun.get()
        let line = try FixtureRun.line(
            of: "RECORDER-LINE", in: "Tests/ExitLeaksTests/ExitLeaksXCTests.swift")
        #expect(
            output.text.contains(
                "Recorder ─(.onEvent (a closure capturing Recorder))⇒ Recorder   made at "
                    + "ExitLeaksXCTests.swift:\(line)"), "\(output.text)")
        let recorders = try ExitLeaksFixtureTests.reports(in: directory).mapValues { reports in
            reports.filter { ExitLeaksFixtureTests.types($0).contains("ExitLeaksTests.Recorder") }
        }
        for (file, reports) in recorders {
            #expect(reports.count == (file.contains("swift-testing") ? 0 : 1), "\(file)")
        }
    }

    @Test(
        "retain-graph compare annotates each group of the whole-suite JSON at the line that made it"
    )
    func annotationsPointAtTheLines() throws {
        let (_, directory) = try FixtureRun.plainRun.get()
        let empty = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-empty-baseline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let compare = try FixtureRun.run([
            FixtureRun.tool.path, "compare", empty.path, directory.path, "--github-annotations",
            "--allow", "XCTest.*", "--workspace", FixtureRun.root.path,
        ])
        #expect(compare.status == 1, "new leaks: \(compare.text)")
        let annotations = compare.text.split(separator: "\n").filter { $0.hasPrefix("::error") }
        #expect(
            annotations.allSatisfy { $0.contains("::error file=") && $0.contains(",line=") },
            "\(annotations)")
        let swiftTests = "Tests/Fixtures/ExitLeaks/" + Self.swiftTests
        for marker in ["FIRST-SESSION-LINE", "SECOND-SESSION-LINE"] {
            let line = try FixtureRun.line(of: marker, in: Self.swiftTests)
            #expect(
                annotations.contains { $0.hasPrefix("::error file=\(swiftTests),line=\(line),") },
                "\(marker): \(annotations)")
        }
        let parent = try FixtureRun.line(of: "LEAKY-PARENT-LINE")
        let child = try FixtureRun.line(of: "LEAKY-CHILD-LINE")
        let scenarios = "Tests/Fixtures/ExitLeaks/Tests/ExitLeaksTests/Scenarios.swift"
        #expect(
            annotations.contains {
                $0.hasPrefix("::error file=\(scenarios),line=\(parent),")
                    || $0.hasPrefix("::error file=\(scenarios),line=\(child),")
            }, "\(annotations)")
    }
}
