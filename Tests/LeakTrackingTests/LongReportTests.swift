import Foundation
import LeakTracking
import RetainGraph
import Testing

/// Reports on objects in very long cycles and paths: the text is shortened in the middle with a
/// count of what was left out, the JSON keeps everything.
@Suite("Long cycles and paths")
struct LongReportTests {
    final class Link {}

    /// A ring of `count` links, each holding the next strongly, the first one watched and past
    /// its grace period; the links are returned so the caller keeps them alive.
    static func ringReport(count: Int) throws -> (LeakReport, [Link]) {
        let harness = Harness()
        let links = (0..<count).map { _ in Link() }
        let ids = links.map { harness.graph.register($0) }
        for index in ids.indices {
            harness.graph.addReference(
                from: ids[index], to: ids[(index + 1) % count], ownership: .strong,
                role: .storedProperty(name: "next"))
        }
        harness.watcher.expectDeallocation(of: links[0], reason: "ring closed")
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        return (report, links)
    }

    @Test("The text of a 1,000-reference cycle shows its ends and says 970 were left out")
    func longCycleIsShortenedInTheMiddle() throws {
        let (report, links) = try Self.ringReport(count: 1_000)
        let text = report.text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // The trace from the top: 15 references, the gap, the last 15.
        #expect(lines.filter { $0.hasPrefix("├─ ") }.count == 30)
        #expect(
            text.contains(
                "┆  … 970 references left out (of 1,000; the JSON report has them all) …"))
        // The cycle section: its first line, the gap, and its last line back to the start.
        #expect(text.contains("Cycle (1,000 references):"))
        #expect(text.contains("  ┆  … 970 references left out …"))
        #expect(
            lines.filter { $0.hasPrefix("  │  LeakTrackingTests.LongReportTests.Link ⇒ .next") }
                .count == 29)
        #expect(text.contains("  └→ LeakTrackingTests.LongReportTests.Link"))
        // The one-line summary keeps five links at each end.
        #expect(
            report.summary.contains(
                "⇒ LongReportTests.Link … 990 more … ⇒ LongReportTests.Link ⇒"))
        #expect(report.summary.components(separatedBy: "⇒").count == 11)
        withExtendedLifetime(links) {}
    }

    @Test("The JSON of a long cycle keeps every reference, and the full text can be asked for")
    func jsonKeepsEverything() throws {
        let (report, links) = try Self.ringReport(count: 1_000)
        let decoded = try LeakReport.decode(from: try report.jsonData())
        #expect(decoded.cycle?.count == 1_000)
        #expect(decoded.objects.count == 1_000)
        let full = report.text(maximumReferences: .max)
        #expect(full.split(separator: "\n").filter { $0.hasPrefix("├─ ") }.count == 1_000)
        #expect(!full.contains("left out"))
        // Shortened text of the decoded report is the same as the original's.
        #expect(decoded.text == report.text)
        withExtendedLifetime(links) {}
    }

    @Test("A cycle one reference over the limit is shown whole: a gap never hides one line")
    func nearTheLimitNothingIsLeftOut() throws {
        let (report, links) = try Self.ringReport(count: LeakReport.textReferenceLimit + 1)
        #expect(!report.text.contains("left out"))
        let (longer, more) = try Self.ringReport(count: LeakReport.textReferenceLimit + 2)
        #expect(longer.text.contains("… 2 references left out (of 32;"))
        #expect(report.text(maximumReferences: 0).contains("… 29 references left out (of 31;"))
        withExtendedLifetime((links, more)) {}
    }

    @Test("Objects are found by report identity, also in a report whose identities are not o0, o1…")
    func objectLookupByIdentity() throws {
        let (report, links) = try Self.ringReport(count: 50)
        #expect(report.object("o49")?.id == "o49")
        #expect(report.object("o50") == nil)
        var renamed = report
        renamed.objects = report.objects.reversed()
        #expect(renamed.object("o3")?.id == "o3")
        #expect(renamed.text == report.text)
        withExtendedLifetime(links) {}
    }
}
