import Foundation
import LeakTracking
import RetainGraphTesting
import Testing

/// The README's test without `ticker.stop()`: the leak the section's report shows.
///
/// The trait records its issue after the test body, so the expected failure is caught the way
/// RetainGraphTestingTests catches a planted one: the trait's scope runs inside
/// `withKnownIssue`.
@Suite("README: a forgotten stop() fails the test with the discovered path")
struct ForgottenStopTests {
    /// The text of the issue the trait records for a ticker that was never stopped.
    static func leakText() async throws -> String {
        let stopped = LeakedTickers()
        let test = try #require(Test.current)
        try await withKnownIssue("a ticker that is never stopped leaks") {
            try await LeakDetectionTrait.detectsLeaks.provideScope(
                for: test, testCase: Test.Case.current
            ) {
                let ticker = Ticker()
                try ticker.start()
                stopped.keep(ticker)
                LeakWatcher.current.expectDeallocation(of: ticker, reason: "ticker closed")
            }
        } matching: { issue in
            stopped.record(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return issue.comments.contains { $0.rawValue.hasPrefix("LEAK: ReadmeTests.Ticker") }
        }
        // Stop the timer now that the leak was seen, so nothing is left behind.
        stopped.stopAll()
        return try #require(stopped.text)
    }

    @Test("The report names the undeclared closure capture on the path from the run loop")
    func reportShowsDiscoveredPath() async throws {
        let text = try await Self.leakText()
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("LEAK: ReadmeTests.Ticker at 0x") == true)
        #expect(text.contains("kept alive by a strong path from a root and a strong cycle"))
        #expect(text.contains("├─ TrackedTimers.RunLoopTimer"))
        #expect(
            text.contains(
                "↓ strong · .state.action.always (a closure capturing Ticker) (discovered)"))
        #expect(text.contains("╰→ ReadmeTests.Ticker at 0x"))
        #expect(text.contains("ReadmeTests.Ticker ⇒ .timer"))
        #expect(text.contains("was found by inspecting memory, not declared"))
        #expect(text.contains("Watched at ReadmeTests/ForgottenStopTests.swift:"))
        let note =
            "RunLoopTimer ⇒ Ticker (.state.action.always (a closure capturing Ticker)) was found "
            + "by inspecting memory"
        #expect(text.components(separatedBy: note).count == 2, "the note appears once")
    }

    @Test("README.md's report excerpt is what such a test prints (addresses and numbers aside)")
    func readmeExcerptMatches() async throws {
        let text = try await Self.leakText()
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("README.md"), encoding: .utf8)
        // `⋮` stands for lines the excerpt leaves out.
        let excerpt = try #require(ReportExcerpt.lines(in: readme)).filter { $0 != "⋮" }
        #expect(excerpt.count > 10)
        let actual = text.split(separator: "\n").map { ReportExcerpt.normalised(String($0)) }
        var position = 0
        var missing: [String] = []
        for line in excerpt.map(ReportExcerpt.normalised) {
            if let found = actual[position...].firstIndex(of: line) {
                position = found + 1
            } else {
                missing.append(line)
            }
        }
        #expect(missing == [])
    }
}

/// The leaked tickers and the issue text, kept across the trait's scope.
final class LeakedTickers: @unchecked Sendable {
    private let lock = NSLock()
    private var tickers: [Ticker] = []
    private(set) var text: String?

    func keep(_ ticker: Ticker) { lock.withLock { tickers.append(ticker) } }
    func record(_ text: String) { lock.withLock { self.text = self.text ?? text } }
    func stopAll() {
        let all = lock.withLock { tickers }
        for ticker in all { ticker.stop() }
    }
}

/// The report excerpt README.md shows: the ```text block after the line
/// `<!-- readme-report-excerpt -->`.
enum ReportExcerpt {
    static func lines(in readme: String) -> [String]? {
        guard let marker = readme.range(of: "<!-- readme-report-excerpt -->"),
            let open = readme.range(of: "```text\n", range: marker.upperBound..<readme.endIndex),
            let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex)
        else { return nil }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    /// A line with addresses and numbers (times, line numbers, fingerprints) blanked.
    static func normalised(_ line: String) -> String {
        line.replacing(/0x[0-9a-f]+/, with: "0x…").replacing(/[0-9a-f]{16}/, with: "…")
            .replacing(/[0-9]+(\.[0-9]+)?/, with: "N")
    }
}
