import Foundation
import LeakTracking
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two objects that hold each other, and nothing else holds: the census alone (no reflection,
/// no declared reference) explains the leak with the cycle.
final class CyclePartner {
    var partner: CyclePartner?
}

/// An object that is its URLSession's delegate: the session keeps its delegate until it is
/// invalidated, the object keeps the session.
final class SessionOwner: NSObject, URLSessionDelegate, @unchecked Sendable {
    var session: URLSession?
    func open() {
        session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    }
}

/// An object that keeps a closure capturing itself: a cycle through a stored closure, no timer.
final class SelfHandler {
    var onChange: (() -> Void)?
    var changes = 0
    func listen() { onChange = { self.changes += 1 } }
}

@Suite struct CensusCycleTests {
    @inline(never) static func makeCycle() -> CyclePartner {
        let first = CyclePartner()
        let second = CyclePartner()
        first.partner = second
        second.partner = first
        return first
    }

    @Test func aCycleNothingHoldsIsExplainedByTheCensusAlone() throws {
        // Written as a user would: a watcher with the default discovery, nothing started by
        // hand (a test process's census records from launch).
        let watcher = LeakWatcher(defaultGrace: .zero)
        weak let first = Self.makeCycle()
        if let first { watcher.expectDeallocation(of: first, reason: "dropped") }
        defer { first?.partner = nil }  // break the cycle so the objects die
        let verdict = try #require(watcher.check().first)
        #expect(verdict.verdict == .leak)
        let report = try #require(verdict.report)
        #expect(report.retention == .cycle)
        let cycle = try #require(report.cycle)
        #expect(cycle.count == 2)
        #expect(cycle.allSatisfy { $0.description == ".partner" && $0.foundIn == "heap" })
    }

    @inline(never) static func openSession() -> SessionOwner {
        let owner = SessionOwner()
        owner.open()
        return owner
    }

    @Test func aSessionDelegateCycleIsExplainedWithItsCycle() throws {
        let watcher = LeakWatcher(defaultGrace: .zero)
        weak let owner = Self.openSession()
        if let owner { watcher.expectDeallocation(of: owner, reason: "closed") }
        defer { owner?.session?.invalidateAndCancel() }
        let verdict = try #require(watcher.check().first)
        #expect(verdict.verdict == .leak)
        let report = try #require(verdict.report)
        let cycle = try #require(report.cycle, "\(report.text)")
        #expect(Set(cycle.map(\.description)) == [".delegate", ".session"], "\(report.text)")
    }

    @inline(never) static func listen() -> SelfHandler {
        let handler = SelfHandler()
        handler.listen()
        return handler
    }

    @Test func aStoredClosureCapturingItsOwnerGetsClosureAdviceNotTimerAdvice() throws {
        let watcher = LeakWatcher(defaultGrace: .zero)
        weak let handler = Self.listen()
        if let handler { watcher.expectDeallocation(of: handler, reason: "closed") }
        defer { handler?.onChange = nil }
        let verdict = try #require(watcher.check().first)
        #expect(verdict.verdict == .leak)
        let report = try #require(verdict.report)
        #expect(report.hint.code == .closureCycle, "\(report.text)")
        #expect(report.hint.text.contains(".onChange keeps a closure that captures SelfHandler"))
        #expect(!report.hint.text.contains("timer"), "\(report.hint.text)")
    }
}
