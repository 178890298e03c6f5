import Foundation
import LeakTracking
import Testing

/// A real test suite with no test changed (`Tests/Fixtures/ExitLeaks`, which does not depend
/// on RetainGraph), run by `swift test` with the check preloaded: each of its test processes
/// reports, when it exits, the cycle its test leaked, with the lines that made it, and neither
/// the cycle a global holds nor the object in a cycle with a running task.
@Suite("Leaked cycles at the exit of a whole test run (fixture package)", .serialized)
struct ExitLeaksFixtureTests {
    /// Every report the fixture's processes wrote, by file.
    static func reports(in directory: URL) throws -> [String: [LeakReport]] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }
        var reports: [String: [LeakReport]] = [:]
        for file in files {
            reports[file] = try LeakReportCollection.read(
                contentsOf: directory.appendingPathComponent(file).path
            ).reports
        }
        return reports
    }

    /// The type names a report's objects have.
    static func types(_ report: LeakReport) -> Set<String> {
        Set(report.objects.map(\.typeName))
    }

    @Test(
        "Each test process reports the unreachable cycle with its lines, and nothing else of its own"
    )
    func reportsTheLeakedCycleOnly() throws {
        let (output, directory) = try FixtureRun.plainRun.get()
        #expect(output.status == 0, "the fixture's tests pass: \(output.text)")
        let parentLine = try FixtureRun.line(of: "LEAKY-PARENT-LINE")
        let childLine = try FixtureRun.line(of: "LEAKY-CHILD-LINE")
        let byFile = try Self.reports(in: directory)
        // XCTest, then Swift Testing: a process each, a report each, named after the process.
        #expect(byFile.count == 2, "\(byFile.keys.sorted()): \(output.text)")
        #expect(
            byFile.keys.contains {
                $0.hasPrefix("leaks-ExitLeaksPackageTests.xctest-swift-testing-")
            },
            "\(byFile.keys.sorted())")
        for (file, reports) in byFile {
            let leaky = reports.filter {
                Self.types($0).isSuperset(of: [
                    "ExitLeaksTests.LeakyParent", "ExitLeaksTests.LeakyChild",
                ])
            }
            #expect(leaky.count == 1, "\(file): \(reports.map(\.summary))")
            if let report = leaky.first {
                #expect(report.verdict == .leak)
                #expect(report.retention == .cycle)
                #expect(report.occurrences == 1)
                let frames = report.creationTraces.flatMap(\.frames)
                #expect(
                    frames.contains { $0.hasSuffix("Scenarios.swift:\(parentLine)") }
                        || frames.contains { $0.contains("Scenarios.swift:\(parentLine) ") },
                    "\(frames)")
                #expect(
                    frames.contains { $0.contains("Scenarios.swift:\(childLine)") }, "\(frames)")
            }
            for report in reports {
                let types = Self.types(report)
                #expect(
                    !types.contains("ExitLeaksTests.GlobalParent"), "\(file): \(report.summary)")
                #expect(!types.contains("ExitLeaksTests.GlobalChild"), "\(file): \(report.summary)")
                #expect(!types.contains("ExitLeaksTests.Poller"), "\(file): \(report.summary)")
                #expect(!types.contains { $0.contains("Poller") }, "\(file): \(report.summary)")
            }
        }
        // The summary on standard error names the shape and the lines.
        #expect(output.text.contains("LeakyChild ⇄ LeakyParent"), "\(output.text)")
        #expect(output.text.contains("made at Scenarios.swift:\(parentLine)"), "\(output.text)")
    }

    @Test(
        "RETAINGRAPH_LEAKS_FAIL fails the run on a new leak; the baseline and type patterns accept known ones"
    )
    func failsOnNewLeaksOnlyWhenAsked() throws {
        // Failing: nothing known, nothing allowed.
        let (failing, failingReports) = try FixtureRun.test(environment: [
            "RETAINGRAPH_LEAKS_FAIL": "1"
        ])
        defer { try? FileManager.default.removeItem(at: failingReports) }
        #expect(failing.status != 0, "\(failing.text)")
        #expect(failing.text.contains("new leaked cycles: failing"), "\(failing.text)")

        // The first run's reports as the baseline: the same leaks are known, the run passes.
        let (known, knownReports) = try FixtureRun.test(environment: [
            "RETAINGRAPH_LEAKS_FAIL": "1", "RETAINGRAPH_LEAKS_BASELINE": failingReports.path,
        ])
        defer { try? FileManager.default.removeItem(at: knownReports) }
        #expect(known.status == 0, "\(known.text)")
        #expect(known.text.contains("still leaking"), "\(known.text)")

        // Or every leak accepted by type patterns (the fixture's own and XCTest's).
        let (allowed, allowedReports) = try FixtureRun.test(environment: [
            "RETAINGRAPH_LEAKS_FAIL": "1",
            "RETAINGRAPH_LEAKS_ALLOW":
                "ExitLeaksTests.Leaky*, ExitLeaksTests.Recorder, ExitLeaksKit.*, XCTest.*",
        ])
        defer { try? FileManager.default.removeItem(at: allowedReports) }
        #expect(allowed.status == 0, "\(allowed.text)")
        #expect(allowed.text.contains("allowed by type pattern"), "\(allowed.text)")
    }
}
