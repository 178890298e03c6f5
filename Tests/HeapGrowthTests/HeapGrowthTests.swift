import Foundation
import HeapCensus
import HeapGrowth
import RetainGraphTesting
import Testing

final class Request: @unchecked Sendable {
    var payload = [UInt8](repeating: 0, count: 16)
}

/// A global log that keeps every request: the leak.
nonisolated(unsafe) var requestLog: [Request] = []

final class WarmCache: @unchecked Sendable {
    nonisolated(unsafe) static var entries: [Request] = []
    /// Fills once, up to 8 entries.
    static func fill() {
        if entries.count < 8 { entries.append(Request()) }
    }
}

final class PooledBuffer: @unchecked Sendable {}

/// A pool that grows while a burst runs and gives everything back at the end of it.
final class Pool: @unchecked Sendable {
    nonisolated(unsafe) static var free: [PooledBuffer] = []
    static func burst() {
        var taken: [PooledBuffer] = []
        for _ in 0..<4 { taken.append(free.popLast() ?? PooledBuffer()) }
        free.append(contentsOf: taken)
        free.removeAll()
    }
}

@Suite(.serialized) struct HeapGrowthTests {
    @Test func aLeakingLoopIsReportedWithItsPathFromTheGlobal() throws {
        defer { requestLog.removeAll() }
        let report = try HeapGrowth.measure(repeating: 20) {
            requestLog.append(Request())
        }
        let grown = try #require(report.grown.first { $0.typeName == "HeapGrowthTests.Request" })
        #expect(grown.growth == [20, 20])
        #expect(grown.perRepetition == 1)
        #expect(grown.newInstanceBytes >= 20 * 16)
        #expect(grown.holder?.hasPrefix("global variable HeapGrowthTests.requestLog") == true)
        #expect(grown.path.last?.label == "element of an array")
        #expect(grown.path.last?.typeName == "HeapGrowthTests.Request")
        #expect(grown.creationTrace.contains { $0.contains("aLeakingLoopIsReported") })
        #expect(report.text.contains("HeapGrowthTests.Request: +20, +20 (1.0 per repetition)"))
    }

    @Test func aGrownTypeSaysWhatEachNewInstanceKeepsAlive() throws {
        defer { requestLog.removeAll() }
        let report = try HeapGrowth.measure(repeating: 20) {
            requestLog.append(Request())
        }
        let grown = try #require(report.grown.first { $0.typeName == "HeapGrowthTests.Request" })
        // Each request keeps itself and its payload's storage (which only it holds): more than
        // its own block, less than its own block and a 16-byte array's storage can take.
        let own = grown.newInstanceBytes / 20
        let retained = try #require(grown.retainedBytesPerInstance)
        #expect(retained > own && retained <= own + 128, "\(report.text)")
        #expect(report.text.contains("  each new instance retains \(retained) B on average"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        let types = try #require(json["grown"] as? [[String: Any]])
        #expect(
            types.contains {
                $0["typeName"] as? String == "HeapGrowthTests.Request"
                    && $0["retainedBytesPerInstance"] as? Int == retained
            })
    }

    @Test func aCacheFilledInTheWarmUpIsNotReported() throws {
        let report = try HeapGrowth.measure(repeating: 20, warmUp: 8) { WarmCache.fill() }
        // The census counts the whole process: other suites running meanwhile may grow their
        // own types; the cache's entries must not be reported.
        #expect(
            !report.grown.contains { $0.typeName == "HeapGrowthTests.Request" }, "\(report.text)")
    }

    @Test func aPoolThatGrowsThenShrinksIsNotReported() throws {
        let report = try HeapGrowth.measure(repeating: 20) { Pool.burst() }
        #expect(!report.grown.contains { $0.typeName.contains("PooledBuffer") }, "\(report.text)")
    }

    @Test func aLeakInAsyncWorkIsReported() async throws {
        defer { requestLog.removeAll() }
        let report = try await HeapGrowth.measure(repeating: 10) {
            await Task.yield()
            requestLog.append(Request())
        }
        #expect(report.grown.map(\.typeName).contains("HeapGrowthTests.Request"))
    }

    @Test func theReportRoundTripsThroughJSON() throws {
        defer { requestLog.removeAll() }
        let report = try HeapGrowth.measure(repeating: 10) { requestLog.append(Request()) }
        let decoded = try GrowthReport(jsonData: report.jsonData())
        #expect(decoded == report)
        #expect(report.dot.contains("digraph heapGrowth"))
        #expect(report.dot.contains("HeapGrowthTests.Request"))
        #expect(throws: GrowthReportError.notAGrowthReport) {
            try GrowthReport(
                jsonData: Data(
                    #"{"schemaVersion":1,"kind":"leak","repetitions":1,"threshold":1,"grown":[],"liveObjects":0}"#
                        .utf8))
        }
    }

    @Test func theTraitRecordsTheGrowth() async throws {
        let test = try #require(Test.current)
        defer { requestLog.removeAll() }
        try await withKnownIssue("every repetition leaks a request") {
            try await HeapGrowthTrait.heapMustNotGrow(repeating: 10).provideScope(
                for: test, testCase: Test.Case.current
            ) {
                requestLog.append(Request())
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("HeapGrowthTests.Request: +10, +10") }
        }
    }
}

final class Note: @unchecked Sendable {}

/// The notes GrowthMessageTests leak (a global of their own: suites run in parallel).
nonisolated(unsafe) var noteLog: [Note] = []

/// What a failing growth check shows: the report describes itself as its text, and the trait's
/// issue points at the test.
@Suite(.serialized) struct GrowthMessageTests {
    @Test func aReportDescribesItselfAsItsText() throws {
        defer { noteLog.removeAll() }
        let report = try HeapGrowth.measure(repeating: 10) { noteLog.append(Note()) }
        #expect("\(report)" == report.text)
        #expect(!"\(report)".contains("GrowthReport("))
        #expect(!"\(report)".contains("schemaVersion"))
        #expect(report.summary.hasPrefix("HEAP GROWTH: "))
        #expect(report.summary.contains("HeapGrowthTests.Note +10, +10 (1.0 per repetition)"))
        #expect(!report.summary.contains("\n"))
    }

    @Test func theTraitsIssueIsAtTheTestsLine() async throws {
        let test = try #require(Test.current)
        defer { noteLog.removeAll() }
        try await withKnownIssue("every repetition leaks a note") {
            try await HeapGrowthTrait.heapMustNotGrow(repeating: 10).provideScope(
                for: test, testCase: Test.Case.current
            ) {
                noteLog.append(Note())
            }
        } matching: { issue in
            issue.sourceLocation?.fileName == "HeapGrowthTests.swift"
                && issue.sourceLocation?.line == test.sourceLocation.line
        }
    }

    @Test func aVersionOneReportStillReads() throws {
        let old = #"""
            {"schemaVersion":1,"kind":"heapGrowth","repetitions":10,"threshold":5,
             "grown":[{"typeName":"App.Session","growth":[10,10],"perRepetition":1,
             "newInstanceBytes":160,"path":[],"creationTrace":[]}],"liveObjects":42}
            """#
        let report = try GrowthReport(jsonData: Data(old.utf8))
        #expect(report.grown.first?.attribution == nil)
        #expect(report.interference.isEmpty)
        #expect(report.text.contains("App.Session: +10, +10 (1.0 per repetition)"))
    }
}
