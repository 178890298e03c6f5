import Foundation
import LeakTracking
import RetainGraph
import Testing

/// A TRANSIENT verdict says when its one-shot timer fires, relative to when the report was made
/// (by the watcher's clock) and as a date.
@Suite("When a transient is released")
struct TransientReleaseTests {
    /// 2026-11-23T16:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_795_449_600)

    /// An owner held only by a one-shot timer due `delay` seconds after `start`, watched, with
    /// the clock 2 s past `start` (past the 1 s grace).
    static func transientVerdict(firingIn delay: Double) throws -> (WatchVerdict, SimulatedRoot) {
        let harness = Harness()
        harness.clock.set(to: start)
        let loop = harness.mainRunLoop()
        var owner: Owner? = Owner()
        let timer = harness.timer(repeats: false)
        timer.target(owner!, strongly: true)
        owner!.hold(timer, graph: harness.graph)
        loop.schedule(timer, firingIn: delay, now: harness.clock.now)
        _ = harness.expectDeath(of: &owner, reason: "sheet dismissed")
        harness.expireGrace()
        return (try #require(harness.onlyVerdict()), loop)
    }

    @Test("The report says the one-shot timer fires in 9.9 s, at its date, by the watcher's clock")
    func firesInRelativeAndAbsolute() throws {
        let (verdict, loop) = try Self.transientVerdict(firingIn: 11.9)
        #expect(verdict.verdict == .transient)
        let report = try #require(verdict.report)
        let when = "fires in 9.9 s (at 2026-11-23T16:00:11.900Z)"
        #expect(report.releaseDescription == when)
        #expect(report.reportedAt == Self.start.timeIntervalSince1970 + 2)
        #expect(
            report.text.contains(
                "     Leaking: NOT YET, a one-shot timer \(when) and releases it "
                    + "(sheet dismissed)"))
        #expect(report.hint.text.contains("the one-shot SimulatedTimer, which \(when): "))
        #expect(verdict.summary.hasPrefix("one-shot timer pending, \(when): run loop ⇒ "))
        withExtendedLifetime(loop) {}
    }

    @Test("A fire date already past when the report is made reads 'was due … ago'")
    func overdueTimer() throws {
        let (verdict, loop) = try Self.transientVerdict(firingIn: 1.5)
        let report = try #require(verdict.report)
        #expect(report.releaseDescription == "was due 0.5 s ago (at 2026-11-23T16:00:01.500Z)")
        withExtendedLifetime(loop) {}
    }

    @Test("The report's time survives JSON; a report without it gives the date alone")
    func reportedAtRoundTrips() throws {
        let (verdict, loop) = try Self.transientVerdict(firingIn: 11.9)
        let report = try #require(verdict.report)
        let decoded = try LeakReport.decode(from: try report.jsonData())
        #expect(decoded.releaseDescription == "fires in 9.9 s (at 2026-11-23T16:00:11.900Z)")
        var older = report
        older.reportedAt = nil
        #expect(older.releaseDescription == "fires at 2026-11-23T16:00:11.900Z")
        withExtendedLifetime(loop) {}
    }
}
