import Foundation
import LeakTracking
import RetainGraphTesting
import Testing

/// Sinks added under the trait receive the trait's reports: a `DirectorySink` a test adds to
/// `LeakWatcher.current`, one given to `.detectsLeaks(sinks:)`, and the XCTest helper's.
@Suite("Sinks under the test helpers")
struct TraitSinkTests {
    /// A fresh directory, removed by the caller.
    static func directory() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-sinks-\(UUID().uuidString)")
    }

    /// The reports a directory holds.
    static func reports(in directory: URL) throws -> [LeakReport] {
        try LeakReportCollection.read(contentsOf: directory.path).reports
    }

    @Test("A DirectorySink added to LeakWatcher.current in the test body writes the report")
    func sinkAddedInTheBody() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let planted = PlantedTimers()
        defer { planted.invalidateAll() }
        let trait = LeakDetectionTrait.detectsLeaks(grace: .milliseconds(20), graph: testingGraph)
        let test = try #require(Test.current)
        try await withKnownIssue("a planted S1 leak") {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                LeakWatcher.current.addSink(try DirectorySink(directory: directory))
                let screen = TickingScreen()
                try screen.start()
                planted.keep(screen.timer)
                LeakWatcher.current.expectDeallocation(of: screen, reason: "screen closed")
            }
        } matching: {
            $0.comments.contains { $0.rawValue.hasPrefix("LEAK: ") }
        }
        let reports = try Self.reports(in: directory)
        #expect(reports.count == 1)
        #expect(reports.first?.subject.typeName == "RetainGraphTestingTests.TickingScreen")
        #expect(
            reports.first?.watchLocation?.fileID == "RetainGraphTestingTests/TraitSinkTests.swift")
    }

    @Test("A sink given to .detectsLeaks(sinks:) receives the report; a clean test sends none")
    func sinkGivenToTheTrait() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = try DirectorySink(directory: directory)
        let planted = PlantedTimers()
        defer { planted.invalidateAll() }
        let leaks = try await withLeakDetection(
            LeakDetectionOptions(grace: .milliseconds(20), graph: testingGraph, sinks: [sink])
        ) {
            let clean = TickingScreen()
            try clean.start()
            clean.stop()
            LeakWatcher.current.expectDeallocation(of: clean, reason: "stopped")
            let leaking = TickingScreen()
            try leaking.start()
            planted.keep(leaking.timer)
            LeakWatcher.current.expectDeallocation(of: leaking, reason: "closed")
        }
        #expect(leaks.count == 1)
        let reports = try Self.reports(in: directory)
        #expect(reports.map(\.fingerprint) == leaks.compactMap(\.report?.fingerprint))
    }
}
