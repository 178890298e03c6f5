import Foundation
import LeakTracking
import RetainGraph
import Testing

@Suite("Leak report content")
struct ReportTests {
    /// An S1 leak's report from a fresh graph.
    static func s1Report() throws -> (LeakReport, Harness, SimulatedRoot) {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        return (report, harness, loop)
    }

    @Test("The path runs from the run loop through the timer's strong target to the owner")
    func pathOrderAndKinds() throws {
        let (report, _, loop) = try Self.s1Report()
        #expect(report.path.count == 2)
        let first = try #require(report.path.first)
        let second = try #require(report.path.last)
        #expect(report.object(first.from)?.kind == "root")
        #expect(report.object(first.from)?.root == "run loop of thread \"main\"")
        #expect(first.role == "scheduled" && first.ownership == .strong && !first.isSuspect)
        #expect(report.object(second.from)?.kind == "timer")
        #expect(second.role == "target" && second.ownership == .strong && second.isSuspect)
        #expect(second.to == report.subject.id)
        #expect(report.subject.typeName.hasSuffix(".Owner"))
        #expect(report.subject.label == "S1")
        #expect(report.subject.address?.hasPrefix("0x") == true)
        #expect(report.reason == "owner closed")
        #expect(report.secondsPastDeadline == 1)
        withExtendedLifetime(loop) {}
    }

    @Test("The cycle is owner ⇒ .timer ⇒ timer ⇒ target ⇒ owner, and the hint names the fix")
    func cycleAndHint() throws {
        let (report, _, loop) = try Self.s1Report()
        let cycle = try #require(report.cycle)
        #expect(Set(cycle.map(\.role)) == ["storedProperty", "target"])
        #expect(cycle.contains { $0.description == ".timer" })
        #expect(
            report.hint.text.contains(
                "the timer holds its target strongly: use a weak target or WeakProxy, "
                    + "or invalidate in stop()"))
        #expect(report.summary.hasPrefix("strong target: run loop ⇒ SimulatedTimer ⇒ Owner"))
        withExtendedLifetime(loop) {}
    }

    @Test("The text report draws the trace, underlines the suspect and ends with the object")
    func textRendering() throws {
        let (report, _, loop) = try Self.s1Report()
        let text = report.text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("LEAK: ") == true)
        #expect(lines.contains("┬───"))
        #expect(lines.contains("│ GC root: run loop of thread \"main\""))
        let target = try #require(lines.firstIndex { $0.hasSuffix("↓ strong · target") })
        #expect(lines[target + 1].hasSuffix("~~~~~~"))
        let leaked = try #require(lines.firstIndex { $0.hasPrefix("╰→ ") })
        #expect(lines[leaked].contains("Owner \"S1\""))
        #expect(lines[leaked + 1].contains("Leaking: YES (owner closed)"))
        #expect(text.contains("Cycle (2 references):"))
        #expect(text.contains("Fingerprint: \(report.fingerprint)"))
        withExtendedLifetime(loop) {}
    }

    @Test("Creation traces show the test's own frame, demangled, without library frames")
    func creationTrace() throws {
        let (report, _, loop) = try Self.s1Report()
        let trace = try #require(report.creationTraces.first)
        #expect(report.object(trace.object)?.kind == "timer")
        #expect(trace.frames.contains { $0.contains("Harness.timer") })
        #expect(!trace.frames.contains { $0.contains("StackTraces.StackTrace.capture") })
        #expect(report.text.contains("Created at:"))
        withExtendedLifetime(loop) {}
    }

    @Test("The same leak in two graphs has the same fingerprint; different leaks differ")
    func fingerprintIsStable() throws {
        let (first, _, loopA) = try Self.s1Report()
        let (second, _, loopB) = try Self.s1Report()
        #expect(first.fingerprint == second.fingerprint)
        #expect(first.fingerprint.count == 16)
        #expect(first.subject.address != second.subject.address)

        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = Owner()
        let timer = harness.timer()
        timer.target(owner!, strongly: true)
        loop.schedule(timer, now: harness.clock.now)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let s4 = try #require(harness.onlyVerdict()?.report)
        #expect(s4.fingerprint != first.fingerprint)
        withExtendedLifetime((loopA, loopB, loop)) {}
    }

    @Test("check() reports a fingerprint seen twice once, with a count, and forgets final watches")
    func deduplication() throws {
        let sink = CollectingSink()
        let harness = Harness(sinks: [sink])
        let loop = harness.mainRunLoop()
        var first: Owner? = harness.makeS1(on: loop)
        var second: Owner? = harness.makeS1(on: loop)
        _ = harness.expectDeath(of: &first)
        _ = harness.expectDeath(of: &second)
        harness.expireGrace()
        let verdicts = harness.watcher.check()
        #expect(verdicts.map(\.verdict) == [.leak, .leak])
        #expect(harness.watcher.watchCount == 0)
        let reports = harness.watcher.reports
        #expect(reports.count == 1)
        #expect(reports.first?.occurrences == 2)
        #expect(reports.first?.text.contains("(seen 2×)") == true)
        #expect(sink.received.map(\.occurrences) == [1, 2])
        #expect(LeakReport.deduplicated(verdicts.compactMap(\.report)).map(\.occurrences) == [2])
        withExtendedLifetime(loop) {}
    }

    @Test("A known leak is still found but carries its allowance")
    func knownLeakAllowance() throws {
        let harness = Harness(knownLeaks: [.type(Owner.self, reason: "fixed in #12")])
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let verdict = try #require(harness.onlyVerdict())
        #expect(verdict.verdict == .leak)
        #expect(verdict.allowance?.reason == "fixed in #12")
        #expect(!verdict.isUnexpectedProblem)
        withExtendedLifetime(loop) {}
    }

    @Test("An object nothing recorded holds is an unexplained leak until a discoverer explains it")
    func discovererExplainsUnknownHolder() throws {
        let holder = Owner()
        var owner: Owner? = Owner()
        let kept = owner
        let plain = Harness()
        _ = plain.expectDeath(of: &owner)
        plain.expireGrace()
        let unexplained = try #require(plain.onlyVerdict()?.report)
        #expect(unexplained.retention == .unexplained)
        #expect(unexplained.hint.code == .unexplained)

        // The discoverer finds process ⇒ holder ⇒ owner.
        let graph = plain.graph
        let holderID = graph.register(holder)
        let rootID = graph.registerRoot(.process)
        let discoverer = ClosureDiscoverer { additions, request in
            for watched in request.watched {
                additions.addReference(
                    from: holderID, to: watched.id, ownership: .strong,
                    role: .storedProperty(name: "cache"), origin: .reflection)
            }
            additions.addReference(
                from: rootID, to: holderID, ownership: .strong, role: .declared("global"))
        }
        // The same graph, watched through the discoverer.
        let watcher = LeakWatcher(
            graph: graph, clock: plain.clock, defaultGrace: .seconds(1),
            discovery: .none.adding(discoverer, named: "cache", order: .custom))
        watcher.expectDeallocation(of: kept!, reason: "closed")
        plain.clock.advance(by: .seconds(2))
        let report = try #require(watcher.verdicts().first?.report)
        #expect(report.retention == .rootPath)
        #expect(report.path.last?.isDiscovered == true)
        #expect(report.notes.contains { $0.contains("found by inspecting memory") })
        withExtendedLifetime((holder, kept)) {}
    }
}

final class CollectingSink: LeakReportSink, @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [LeakReport] = []

    func receive(_ report: LeakReport) {
        lock.lock()
        reports.append(report)
        lock.unlock()
    }

    var received: [LeakReport] {
        lock.lock()
        defer { lock.unlock() }
        return reports
    }
}
