import Foundation
import RetainGraph
import Testing
import TrackedTimers

/// What the tracker records per event, beyond the scenarios: closures without a declared
/// capture, many modes, roots named once, and a graph switched off while timers live.
@Suite("Timer tracker recording")
struct TimerTrackerRecordingTests {
    @Test("a timer's node needs no weak reference: found while the timer lives, gone with it")
    func timerNodeLivesExactlyAsLongAsTheTimer() throws {
        let graph = LiveGraph()
        var timer: RunLoopTimer? = try RunLoopTimer(interval: 1, repeats: true, graph: graph) { _ in
        }
        let id = try #require(timer?.graphID)
        // Pruning (which drops nodes whose weakly held object died) keeps the managed node.
        #expect(graph.counts().nodes == 1)
        #expect(graph.id(of: try #require(timer)) == id)
        // Registering the timer again, as `held(by:)` or user code does, finds the same node.
        #expect(graph.register(try #require(timer)) == id)
        timer = nil
        #expect(graph.counts().nodes == 0)
        #expect(graph.snapshot().node(id) == nil)
    }

    @Test("a closure timer without a declared capture records the timer and no closure node")
    func closureWithoutDeclaredCaptureRecordsNoClosureNode() throws {
        let graph = LiveGraph()
        let timer = try RunLoopTimer(interval: 1, repeats: true, graph: graph) { _ in }
        try timer.add(to: .current, forMode: .default)
        expectEdges(graph, [scheduledDefault])
        #expect(!graph.snapshot().nodes.contains { $0.kind == .closure })
        timer.invalidate()
        expectEdges(graph, [])
    }

    @Test("a declared capture still records timer ⇒ closure → owner, gone on invalidate")
    func declaredCaptureRecordsClosureAndCapture() throws {
        let graph = LiveGraph()
        let owner = Owner()
        let queue = DispatchQueue(label: "tracker.capture")
        let timer = try DispatchTimer(
            interval: 60, repeats: true, queue: queue, capturing: owner, as: .weak, graph: graph
        ) { _ in }
        timer.schedule()
        expectEdges(
            graph,
            [
                "root ⇒ DispatchTimer [resumed source]", "DispatchTimer ⇒ closure [action closure]",
                "closure → Owner [captures self]",
            ])
        timer.invalidate()
        expectEdges(graph, [])
    }

    @Test("a timer in more modes than the inline edge slots drops every root edge on invalidate")
    func manyModesAllRootEdgesRemoved() throws {
        let graph = LiveGraph()
        let timer = try RunLoopTimer(interval: 1, repeats: true, graph: graph) { _ in }
        let modes = (1...5).map { RunLoop.Mode("tracker.mode.\($0)") }
        for mode in modes { try timer.add(to: .current, forMode: mode) }
        let scheduled = graph.snapshot().references.filter {
            if case .scheduled = $0.role { return true }
            return false
        }
        #expect(scheduled.count == modes.count)
        timer.invalidate()
        #expect(graph.snapshot().references.isEmpty)
        let info = timerInfo(timer, in: graph, id: timer.graphID)
        #expect(info?.isScheduled == false)
    }

    @Test("timers on one run loop share one root node, named once")
    func timersShareOneRunLoopRoot() throws {
        let graph = LiveGraph()
        let timers = try (0..<3).map { _ in
            try RunLoopTimer(interval: 1, repeats: true, graph: graph) { _ in }
                .scheduleOnCurrentRunLoop()
        }
        let roots = graph.snapshot().nodes.filter {
            if case .root(.runLoop) = $0.kind { return true }
            return false
        }
        #expect(roots.count == 1)
        #expect(graph.snapshot().references.count == timers.count)
        for timer in timers { timer.invalidate() }
    }

    @Test("switching the graph off keeps recorded edges removable and records nothing new")
    func disabledGraphStillCleansUp() throws {
        let graph = LiveGraph()
        let timer = try RunLoopTimer(interval: 1, repeats: true, graph: graph) { _ in }
        try timer.add(to: .current, forMode: .default)
        graph.isEnabled = false
        try timer.add(to: .current, forMode: RunLoop.Mode("tracker.off"))
        timer.invalidate()
        graph.isEnabled = true
        #expect(graph.snapshot().references.isEmpty)
    }
}
