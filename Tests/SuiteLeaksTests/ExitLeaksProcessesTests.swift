import Foundation
import LeakTracking
import Testing

/// The at-exit check among several test processes and several copies of the census: each test
/// process of one `swift test` compares itself with its own baseline reports only; a process that
/// links the census itself is read by one census, never reported clean with no object read.
@Suite(
    "Leaked cycles at exit: test processes and copies of the census (fixture package)", .serialized)
struct ExitLeaksProcessesTests {
    @Test("Two test processes with one baseline directory do not call each other's leaks fixed")
    func baselinesArePerProcess() throws {
        let (_, baseline) = try FixtureRun.test()
        defer { try? FileManager.default.removeItem(at: baseline) }
        let (output, reports) = try FixtureRun.test(environment: [
            "RETAINGRAPH_LEAKS_BASELINE": baseline.path
        ])
        defer { try? FileManager.default.removeItem(at: reports) }
        #expect(output.status == 0, "\(output.text)")
        // Each process prints its comparison: nothing new, nothing fixed, its own still there
        // (the XCTest process's closure cycle is not Swift Testing's, nor its sessions XCTest's).
        let comparisons = output.text.components(separatedBy: "\n").filter {
            $0.hasPrefix("new (") || $0.hasPrefix("fixed (") || $0.hasPrefix("still leaking (")
        }
        #expect(
            comparisons.filter { $0.hasPrefix("fixed (") } == ["fixed (0):", "fixed (0):"],
            "\(output.text)")
        #expect(
            comparisons.filter { $0.hasPrefix("new (") } == ["new (0):", "new (0):"],
            "\(output.text)")
        // Each process's JSON names the process.
        for file in try FileManager.default.contentsOfDirectory(atPath: reports.path) {
            let data = try Data(contentsOf: reports.appendingPathComponent(file))
            let collection = try LeakReportCollection.decode(from: data)
            #expect(
                collection.process?.hasPrefix("ExitLeaksPackageTests.xctest") ?? false, "\(file)")
        }
    }

    @Test(
        "Preloaded into a process that links HeapCensus, the check fails loudly instead of reading no object"
    )
    func linkedCensusWithoutTheCheckFails() throws {
        let output = try FixtureRun.runAsTestProcess("exit-leaks-census")
        #expect(output.text.contains("opened a session for census"), "\(output.text)")
        #expect(output.status != 0, "\(output.text)")
        #expect(output.text.contains("cannot read this process's heap"), "\(output.text)")
        #expect(output.text.contains("not an all-clear"), "\(output.text)")
        #expect(!output.text.contains("0 objects read"), "\(output.text)")
        #expect(!output.text.contains("no leaked reference cycle"), "\(output.text)")
    }

    @Test("Preloaded into a process that links SuiteLeaks, the linked check reads the heap, once")
    func linkedCheckReadsTheHeap() throws {
        let output = try FixtureRun.runAsTestProcess("exit-leaks-linked")
        #expect(output.status == 0, "\(output.text)")
        let headlines = output.text.split(separator: "\n").filter { $0.hasPrefix("RetainGraph:") }
        #expect(headlines.count == 1, "one check, the linked one: \(output.text)")
        let headline = try #require(headlines.first)
        let read = headline.split(separator: ";").last.flatMap {
            Int($0.split(separator: " ").first ?? "")
        }
        // A small program: its heap at exit is the leaked session and a few more objects.
        #expect((read ?? 0) >= 2, "objects read: \(headline)")
        #expect(
            output.text.contains("Connection ⇄ Session")
                || output.text.contains("Session ⇄ Connection"), "\(output.text)")
        let line = try FixtureRun.line(
            of: "LINKED-SESSION-LINE", in: "Sources/exit-leaks-linked/main.swift")
        #expect(output.text.contains("made at main.swift:\(line)"), "\(output.text)")
    }
}
