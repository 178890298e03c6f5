import Foundation
import LeakTracking
import RetainGraph
import Testing

@Suite("One object is one watch, with every reason")
struct OneWatchPerObjectTests {
    @Test(
        "Watching the same leaking object twice gives one watch, one report seen once, both reasons"
    )
    func twoCallsOneWatch() throws {
        let sink = CollectingSink()
        let harness = Harness(sinks: [sink])
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        let object = try #require(owner)
        let first = harness.watcher.expectDeallocation(of: object, reason: "screen closed")
        let second = harness.watcher.expectDeallocation(of: object, reason: "session ended")
        owner = nil
        #expect(first == second)
        #expect(harness.watcher.watchCount == 1)
        harness.expireGrace()
        let verdicts = harness.watcher.check()
        #expect(verdicts.count == 1)
        let verdict = try #require(verdicts.first)
        #expect(verdict.reasons == ["screen closed", "session ended"])
        #expect(verdict.reason == "screen closed; session ended")
        let report = try #require(verdict.report)
        #expect(report.occurrences == 1)
        #expect(report.reason == "screen closed; session ended")
        #expect(report.text.contains("screen closed; session ended"))
        #expect(harness.watcher.reports.map(\.occurrences) == [1])
        #expect(sink.received.count == 1)
        withExtendedLifetime((loop, object)) {}
    }

    @Test("The same reason twice is kept once")
    func repeatedReasonKeptOnce() throws {
        let harness = Harness()
        let owner = Owner()
        harness.watcher.expectDeallocation(of: owner, reason: "closed")
        harness.watcher.expectDeallocation(of: owner, reason: "closed")
        harness.expireGrace()
        #expect(harness.onlyVerdict()?.reasons == ["closed"])
        withExtendedLifetime(owner) {}
    }

    @Test("The earlier deadline of two calls wins")
    func earlierDeadlineWins() throws {
        let harness = Harness()
        let owner = Owner()
        harness.watcher.expectDeallocation(of: owner, within: .seconds(10), reason: "slow")
        harness.clock.advance(by: .seconds(1))
        harness.watcher.expectDeallocation(of: owner, within: .seconds(2), reason: "fast")
        harness.clock.advance(by: .seconds(3))
        let verdict = try #require(harness.onlyVerdict())
        #expect(verdict.verdict == .leak)
        #expect(verdict.reasons == ["slow", "fast"])
        #expect(verdict.report?.graceSeconds == 2)
        withExtendedLifetime(owner) {}
    }

    @Test("Once its watch is forgotten, the object can be watched anew")
    func forgottenWatchStartsOver() {
        let harness = Harness()
        let owner = Owner()
        let first = harness.watcher.expectDeallocation(of: owner, reason: "first")
        harness.watcher.forget(first)
        let second = harness.watcher.expectDeallocation(of: owner, reason: "second")
        #expect(first != second)
        #expect(harness.watcher.watchCount == 1)
        harness.expireGrace()
        #expect(harness.onlyVerdict()?.reasons == ["second"])
        withExtendedLifetime(owner) {}
    }

    @Test("Two different objects stay two watches")
    func differentObjectsTwoWatches() {
        let harness = Harness()
        let a = Owner()
        let b = Owner()
        let first = harness.watcher.expectDeallocation(of: a, reason: "a")
        let second = harness.watcher.expectDeallocation(of: b, reason: "b")
        #expect(first != second)
        #expect(harness.watcher.watchCount == 2)
        withExtendedLifetime((a, b)) {}
    }
}
