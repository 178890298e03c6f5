import Dispatch
import Foundation
import RetainGraph
import Synchronization
import Testing
import _TestSupport

@testable import TrackedTimers

/// An owner that stores a dispatch timer whose handler captures it weakly (S7a) or strongly
/// (S7b), and cancels it in `deinit` as the seeds do.
final class DTScreen: @unchecked Sendable {
    var timer: DispatchTimer?
    let ticks = Atomic<Int>(0)

    func start(capture: Ownership, queue: DispatchQueue, graph: LiveGraph) throws {
        let timer: DispatchTimer
        if capture == .strong {
            timer = try DispatchTimer(
                interval: 0.001, repeats: true, queue: queue, capturing: self, as: .strong,
                graph: graph
            ) { _ in self.ticks.add(1, ordering: .relaxed) }
        } else {
            timer = try DispatchTimer(
                interval: 0.001, repeats: true, queue: queue, capturing: self, as: .weak,
                graph: graph
            ) { [weak self] _ in self?.ticks.add(1, ordering: .relaxed) }
        }
        self.timer = timer.held(by: self, as: "timer")
        timer.schedule()
    }

    deinit { timer?.invalidate() }
}

/// The edges ``DispatchTimer`` records, before and after the owner is released (S7a, S7b, S20).
@Suite("DispatchTimer graph edges (S7, S20)")
struct DispatchTimerGraphTests {
    /// The references in `snapshot` with the given role.
    func references(_ snapshot: GraphSnapshot, _ role: ReferenceRole) -> [Reference] {
        snapshot.references.filter { $0.role == role }
    }

    @Test func s7aWeakCaptureRecordsQueueTimerClosureOwnerAndTheOwnerDies() throws {
        let graph = LiveGraph()
        let queue = DispatchQueue(label: "dt.s7a")
        weak var weakScreen: DTScreen?
        do {
            let screen = DTScreen()
            weakScreen = screen
            try screen.start(capture: .weak, queue: queue, graph: graph)
            #expect(waitUntil { screen.ticks.load(ordering: .relaxed) >= 1 })

            let snapshot = graph.snapshot()
            let ownerID = try #require(graph.id(of: screen))
            let timerID = try #require(screen.timer?.graphID)
            let resumed = try #require(references(snapshot, .resumed).first)
            #expect(resumed.to == timerID)
            #expect(resumed.ownership == .strong)
            let queueRoot: NodeKind = .root(.dispatchQueue(label: "dt.s7a"))
            #expect(snapshot.node(resumed.from)?.kind == queueRoot)
            let action = try #require(references(snapshot, .actionClosure).first)
            #expect(action.from == timerID)
            #expect(action.ownership == .strong)
            let capture = try #require(references(snapshot, .capture(name: "self")).first)
            #expect(capture.from == action.to)
            #expect(capture.to == ownerID)
            #expect(capture.ownership == .weak)
            let stored = try #require(references(snapshot, .storedProperty(name: "timer")).first)
            #expect(stored.from == ownerID)
            #expect(stored.to == timerID)
            let retention = snapshot.analyze().retention(of: ownerID)
            #expect(retention == .unexplained)
        }
        // A fire in flight may hold the owner for a moment through its weak capture.
        #expect(waitUntil { weakScreen == nil }, "S7a: the owner dies; deinit cancels the timer")
        queue.sync {}
        #expect(waitUntil { graph.snapshot().nodes.allSatisfy { $0.kind != .timer } })
        let after = graph.snapshot()
        #expect(after.nodes.allSatisfy { $0.kind != .closure })
        #expect(references(after, .resumed).isEmpty)
    }

    @Test func s7bStrongCaptureKeepsTheOwnerOnARootPathAndInACycle() throws {
        let graph = LiveGraph()
        let queue = DispatchQueue(label: "dt.s7b")
        weak var weakScreen: DTScreen?
        do {
            let screen = DTScreen()
            weakScreen = screen
            try screen.start(capture: .strong, queue: queue, graph: graph)
        }
        #expect(weakScreen != nil, "S7b: the owner leaks")
        try inspectAndCut(try #require(weakScreen), graph: graph)
        queue.sync {}
        #expect(waitUntil { weakScreen == nil })
    }

    /// Checks S7b's path and cycle, then invalidates the timer (the edge a report names).
    func inspectAndCut(_ screen: DTScreen, graph: LiveGraph) throws {
        #expect(waitUntil { screen.ticks.load(ordering: .relaxed) >= 2 }, "and keeps firing")
        let ownerID = try #require(graph.id(of: screen))
        let snapshot = graph.snapshot()
        let retention = snapshot.analyze().retention(of: ownerID)
        let path = try #require(retention.rootPath)
        let pathRoles: [ReferenceRole] = path.map(\.role)
        let expectedPath: [ReferenceRole] = [.resumed, .actionClosure, .capture(name: "self")]
        #expect(pathRoles == expectedPath)
        let cycle = try #require(retention.cycle)
        let cycleRoles: [ReferenceRole] = cycle.map(\.role)
        let stored: ReferenceRole = .storedProperty(name: "timer")
        #expect(cycleRoles.contains(stored))

        // Cutting the edge the report would name (invalidate) frees everything.
        screen.timer?.invalidate()
        let timerID = try #require(screen.timer?.graphID)
        #expect(graph.snapshot().references(from: timerID).isEmpty)
        #expect(references(graph.snapshot(), .resumed).isEmpty)
    }

    @Test func s20WeakTargetRecordsQueueTimerWeakTarget() throws {
        let graph = LiveGraph()
        let queue = DispatchQueue(label: "dt.s20")
        let owner = DTOwner()
        let timer = try DispatchTimer(
            interval: 60, repeats: true, queue: queue, label: "poll", weakTarget: owner,
            graph: graph
        ) { owner, _ in owner.tick() }
        let timerID = try #require(timer.graphID)
        #expect(references(graph.snapshot(), .resumed).isEmpty, "not resumed before schedule")
        timer.schedule()
        let snapshot = graph.snapshot()
        let node = try #require(snapshot.node(timerID))
        #expect(node.label == "poll")
        #expect(node.kind == .timer)
        let info = try #require(node.timer)
        #expect(info.isScheduled)
        #expect(info.stopsWhenTargetDies)
        #expect(info.nextFireDate != nil)
        let target = try #require(references(snapshot, .target).first)
        let ownerID = try #require(graph.id(of: owner))
        #expect(target.from == timerID)
        #expect(target.ownership == .weak)
        #expect(target.to == ownerID)
        let retention = snapshot.analyze().retention(of: ownerID)
        #expect(retention == .unexplained)
        timer.invalidate()
        #expect(graph.snapshot().references.isEmpty)
    }

    @Test func strongTargetRecordsAStrongTargetEdge() throws {
        let graph = LiveGraph()
        let owner = DTOwner()
        let timer = try DispatchTimer(
            interval: 60, repeats: true, queue: .global(), target: owner, graph: graph
        ) { owner, _ in owner.tick() }
        timer.schedule()
        let snapshot = graph.snapshot()
        let ownerID = try #require(graph.id(of: owner))
        let path = try #require(snapshot.analyze().retention(of: ownerID).rootPath)
        let roles: [ReferenceRole] = path.map(\.role)
        let expected: [ReferenceRole] = [.resumed, .target]
        #expect(roles == expected)
        timer.invalidate()
    }

    @Test func pausingDropsTheQueueEdgeAndUnpausingRestoresIt() throws {
        let graph = LiveGraph()
        let timer = try DispatchTimer(
            interval: 60, repeats: true, queue: .global(), graph: graph
        ) { _ in }
        timer.schedule()
        #expect(references(graph.snapshot(), .resumed).count == 1)
        timer.isPaused = true
        #expect(references(graph.snapshot(), .resumed).isEmpty)
        let timerID = try #require(timer.graphID)
        let isScheduled = graph.snapshot().node(timerID)?.timer?.isScheduled
        #expect(isScheduled == false)
        timer.isPaused = false
        #expect(references(graph.snapshot(), .resumed).count == 1)
        timer.invalidate()
        #expect(references(graph.snapshot(), .resumed).isEmpty)
    }

    @Test func timerDeinitRemovesItsNodes() throws {
        let graph = LiveGraph()
        do {
            let timer = try DispatchTimer(
                interval: 60, repeats: true, queue: .global(), graph: graph
            ) { _ in }
            timer.schedule()
            #expect(graph.snapshot().nodes.contains { $0.kind == .timer })
        }
        let snapshot = graph.snapshot()
        #expect(!snapshot.nodes.contains { $0.kind == .timer || $0.kind == .closure })
        #expect(snapshot.references.isEmpty)
    }

    @Test func disabledGraphRecordsNothingAndTheTimerBehavesTheSame() throws {
        let graph = LiveGraph(isEnabled: false)
        let owner = DTOwner()
        let timer = try DispatchTimer(
            interval: 0.001, repeats: true, queue: .global(), weakTarget: owner, graph: graph
        ) { owner, _ in owner.tick() }
        #expect(timer.graphID == nil)
        timer.held(by: owner, as: "timer")
        timer.schedule()
        timer.isPaused = true
        timer.isPaused = false
        #expect(waitUntil { owner.fireCount >= 2 })
        timer.invalidate()
        #expect(graph.counts().nodes == 0)
    }
}
