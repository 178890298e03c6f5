import Testing

@testable import RetainGraph

/// A stand-in for an instrumented timer: owns its tracker, as the real ones do.
private final class FakeTimer {
    private(set) var tracker: TimerTracker!
    private let retiresTracker: Bool

    init(graph: LiveGraph, kind: NodeKind = .timer, retiresTracker: Bool = true) {
        self.retiresTracker = retiresTracker
        tracker = TimerTracker(
            object: self, kind: kind, label: nil,
            timer: kind == .timer ? TimerInfo(repeats: true, interval: 1) : nil,
            creationTrace: nil, graph: graph)
    }

    deinit { if retiresTracker { tracker.retire() } }
}

private final class Target {}
private final class RootObject {}

/// The journal between timer events and the graph: events only queue the tracker, reads apply
/// the latest state (see `TimerTracker`).
@Suite("Timer journal: deferred recording")
struct TimerJournalTests {
    @Test(
        "a timer made, scheduled, invalidated and released between two reads never reaches the graph"
    )
    func shortLivedTimerNeverReachesTheGraph() {
        let graph = LiveGraph()
        let target = Target()
        let root = RootObject()
        var timer: FakeTimer? = FakeTimer(graph: graph)
        timer?.tracker.recordTarget(target, ownership: .strong, role: .target)
        timer?.tracker.recordScheduled(
            on: .custom(name: "loop"), rootObject: root, role: .scheduled(mode: "default"),
            nextFireDate: 1)
        timer?.tracker.recordInvalidated()
        #expect(graph.journal.queuedCount == 1)
        timer = nil
        #expect(graph.journal.queuedCount == 0)
        #expect(graph.counts().nodes == 0)
        #expect(graph.counts().references == 0)
    }

    @Test("a read shows a live timer's latest state: edges, fires, invalidation")
    func readShowsLatestState() throws {
        let graph = LiveGraph()
        let target = Target()
        let root = RootObject()
        let timer = FakeTimer(graph: graph)
        let id = timer.tracker.id
        timer.tracker.recordTarget(target, ownership: .strong, role: .target)
        timer.tracker.recordScheduled(
            on: .custom(name: "loop"), rootObject: root, role: .scheduled(mode: "default"),
            nextFireDate: 5)
        var snapshot = graph.snapshot()
        #expect(Set(snapshot.references.map(\.role)) == [.target, .scheduled(mode: "default")])
        #expect(snapshot.node(id)?.timer?.isScheduled == true)

        timer.tracker.recordFire(nextFireDate: 6)
        timer.tracker.recordFire(nextFireDate: 7, targetWasAlive: false)
        snapshot = graph.snapshot()
        let info = try #require(snapshot.node(id)?.timer)
        #expect(info.fireCount == 2)
        #expect(info.firesIntoDeadTarget == 1)
        #expect(info.nextFireDate == 7)
        #expect(snapshot.references.count == 2)

        timer.tracker.recordInvalidated()
        snapshot = graph.snapshot()
        #expect(snapshot.references.isEmpty)
        #expect(snapshot.node(id)?.timer?.isScheduled == false)
        #expect(snapshot.node(id) != nil)
    }

    @Test("a timer's identity is known before any read, and the graph resolves it")
    func identityBeforeAnyRead() {
        let graph = LiveGraph()
        let timer = FakeTimer(graph: graph)
        #expect(timer.tracker.id != .disabled)
        #expect(graph.id(of: timer) == timer.tracker.id)
        #expect(graph.register(timer) == timer.tracker.id)
        let owner = Target()
        let edge = timer.tracker.recordOwner(owner, property: "timer", ownership: .strong)
        #expect(edge != nil)
        #expect(graph.snapshot().references.map(\.to) == [timer.tracker.id])
    }

    @Test("a recorded tracker, queued again, dies with its timer and takes its node along")
    func retiredRecordedTrackerDiesWithItsTimer() {
        let graph = LiveGraph()
        let target = Target()
        var timer: FakeTimer? = FakeTimer(graph: graph)
        timer?.tracker.recordTarget(target, ownership: .strong, role: .target)
        #expect(graph.counts() == (nodes: 2, references: 1))
        timer?.tracker.recordInvalidated()  // queued again
        weak let tracker = timer?.tracker
        #expect(tracker != nil)
        timer = nil
        #expect(tracker == nil)
        #expect(graph.journal.queuedCount == 0)
        #expect(graph.counts() == (nodes: 1, references: 0))  // the target
    }

    @Test("retiring lets a tracker the graph never recorded die with its timer, before any read")
    func retiredTrackerDiesWithItsTimer() {
        let graph = LiveGraph()
        var timer: FakeTimer? = FakeTimer(graph: graph)
        weak let tracker = timer?.tracker
        #expect(tracker != nil)
        timer = nil
        #expect(tracker == nil)
        #expect(graph.journal.queuedCount == 0)
    }

    @Test("a tracker only the queue still holds belongs to a dead timer: the next read drops it")
    func unretiredTrackerIsDroppedAtTheNextRead() {
        let graph = LiveGraph()
        let root = RootObject()
        var timer: FakeTimer? = FakeTimer(graph: graph, retiresTracker: false)
        timer?.tracker.recordScheduled(
            on: .custom(name: "loop"), rootObject: root, role: .resumed, nextFireDate: nil)
        weak let tracker = timer?.tracker
        timer = nil
        #expect(tracker != nil)  // the queue holds it
        #expect(graph.counts() == (nodes: 0, references: 0))
        #expect(tracker == nil)
    }

    @Test("a recorded timer that dies unretired loses its node at the next read")
    func recordedUnretiredTimerLosesItsNode() {
        let graph = LiveGraph()
        let target = Target()
        var timer: FakeTimer? = FakeTimer(graph: graph, retiresTracker: false)
        timer?.tracker.recordTarget(target, ownership: .strong, role: .target)
        #expect(graph.counts().nodes == 2)
        timer?.tracker.recordFire(nextFireDate: nil)  // queued again
        timer = nil
        #expect(graph.counts().nodes == 1)  // the target, until it dies
        #expect(graph.snapshot().references.isEmpty)
    }

    @Test("with nobody reading, dead timers' trackers are released once the queue grows long")
    func compactionReleasesDeadTrackersWithoutReads() {
        let graph = LiveGraph()
        weak var first: TimerTracker?
        for index in 0..<5_000 {
            let timer = FakeTimer(graph: graph, retiresTracker: false)
            if index == 0 { first = timer.tracker }
        }
        #expect(first == nil)
        #expect(graph.journal.queuedCount < 4_096)
        #expect(graph.counts().nodes == 0)
    }

    @Test("an edge to a tracked proxy applied in the same read points at the proxy's own node")
    func edgeToTrackedObjectInSameDrain() throws {
        let graph = LiveGraph()
        // The timer is queued first, so its target edge is applied before the proxy's node
        // would be, were nodes not registered first.
        let timer = FakeTimer(graph: graph)
        let proxy = FakeTimer(graph: graph, kind: .proxy)
        timer.tracker.recordTarget(proxy, ownership: .strong, role: .target)
        let snapshot = graph.snapshot()
        #expect(snapshot.references.count == 1)
        #expect(snapshot.references.first?.to == proxy.tracker.id)
        #expect(snapshot.node(proxy.tracker.id)?.kind == .proxy)
        #expect(snapshot.nodes.count == 2)
    }

    @Test("a root's name is computed once per root object, however many timers it holds")
    func rootNameComputedOnce() {
        let graph = LiveGraph()
        let root = RootObject()
        var evaluations = 0
        func name() -> RootKind {
            evaluations += 1
            return .custom(name: "loop \(evaluations)")
        }
        let timers = (0..<3).map { _ in FakeTimer(graph: graph) }
        for timer in timers {
            timer.tracker.recordScheduled(
                on: name(), rootObject: root, role: .resumed, nextFireDate: nil)
        }
        #expect(evaluations == 1)
        let roots = graph.snapshot().nodes.filter { $0.kind == .root(.custom(name: "loop 1")) }
        #expect(roots.count == 1)
    }

    @Test("a graph switched off before its first read records nothing, and cleans up after")
    func disabledBeforeFirstRead() {
        let graph = LiveGraph()
        let target = Target()
        let timer = FakeTimer(graph: graph)
        timer.tracker.recordTarget(target, ownership: .strong, role: .target)
        graph.isEnabled = false
        #expect(graph.counts().nodes == 0)
        graph.isEnabled = true
        #expect(graph.counts().nodes == 0)  // nothing new since: applied at its next event
        timer.tracker.recordInvalidated()
        #expect(graph.counts().nodes == 1)
        #expect(graph.snapshot().references.isEmpty)
    }
}
