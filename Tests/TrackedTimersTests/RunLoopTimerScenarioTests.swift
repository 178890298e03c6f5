import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// S1–S6: which edges the graph holds before and after the owner is released, on a real run
/// loop (the current thread's), each with a private graph.
@Suite("RunLoopTimer scenarios S1–S6")
struct RunLoopTimerScenarioTests {
    @Test("S1: a strong target keeps the released owner alive through the run loop and a cycle")
    func s1StrongTargetLeaks() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        var timer: RunLoopTimer?
        do {
            let owner = Owner()
            box.value = owner
            owner.timer = try RunLoopTimer.scheduled(
                interval: 0.005, repeats: true, target: owner, graph: graph
            ) { owner, _ in owner.tick() }.held(by: owner, as: "timer")
            timer = owner.timer
            let before = edgeLines(graph)
            #expect(before.contains(scheduledDefault))
            #expect(before.contains("RunLoopTimer ⇒ Owner [target]"))
            #expect(before.contains("Owner ⇒ RunLoopTimer [.timer]"))
        }
        // Released by the test, yet alive and still firing: the leak.
        #expect(runRunLoop(until: { (box.value?.ticks ?? 0) >= 2 }))
        do {
            let owner = try #require(box.value)
            let after = edgeLines(graph)
            #expect(after.contains(scheduledDefault))
            #expect(after.contains("RunLoopTimer ⇒ Owner [target]"))
            let ownerID = try #require(graph.id(of: owner))
            let retention = graph.snapshot().analyze().retention(of: ownerID)
            #expect(retention.rootPath != nil && retention.cycle != nil)
        }
        // Cleanup: only invalidation frees it.
        timer?.invalidate()
        timer = nil
        #expect(box.value == nil)
        #expect(edgeLines(graph).isEmpty)
    }

    @Test("S2: a one-shot strong-target timer holds the owner until it fires, then lets go")
    func s2OneShotIsTransient() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        do {
            let owner = Owner()
            box.value = owner
            owner.timer = try RunLoopTimer.scheduled(
                interval: 0.01, repeats: false, target: owner, graph: graph
            ) { owner, _ in owner.tick() }.held(by: owner, as: "timer")
            let info = try #require(timerInfo(owner.timer!, in: graph, id: owner.timer?.graphID))
            #expect(info.repeats == false && info.isScheduled)
        }
        // S2a: released but pending: alive, held through the scheduled one-shot timer.
        #expect(box.value != nil)
        #expect(edgeLines(graph).contains("RunLoopTimer ⇒ Owner [target]"))
        // S2b: after the fire the timer invalidated itself and the owner died.
        #expect(runRunLoop(until: { box.value == nil }))
        #expect(edgeLines(graph).isEmpty)
    }

    @Test("S3: passing a weak local copy of the owner as the target changes nothing")
    func s3WeakLocalCopyStillLeaks() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        var timer: RunLoopTimer?
        do {
            let owner = Owner()
            box.value = owner
            weak let weakOwner = owner
            owner.timer = try RunLoopTimer.scheduled(
                interval: 10, repeats: true, target: try #require(weakOwner), graph: graph
            ) { owner, _ in owner.tick() }.held(by: owner, as: "timer")
            timer = owner.timer
        }
        #expect(box.value != nil)
        #expect(edgeLines(graph).contains("RunLoopTimer ⇒ Owner [target]"))
        timer?.invalidate()
        timer = nil
        #expect(box.value == nil)
    }

    @Test("S4: a weak timer property leaves no cycle, and the root path alone keeps the owner")
    func s4WeakPropertyRootPathOnly() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        let timer: RunLoopTimer
        do {
            let owner = Owner()
            box.value = owner
            timer = try RunLoopTimer.scheduled(
                interval: 10, repeats: true, target: owner, graph: graph
            ) { owner, _ in owner.tick() }.held(by: owner, as: "weakTimer", ownership: .weak)
            owner.weakTimer = timer
        }
        do {
            let owner = try #require(box.value)
            #expect(edgeLines(graph).contains("Owner → RunLoopTimer [.weakTimer]"))
            let ownerID = try #require(graph.id(of: owner))
            let retention = graph.snapshot().analyze().retention(of: ownerID)
            #expect(retention.rootPath != nil)
            #expect(retention.cycle == nil)
        }
        timer.invalidate()
        #expect(box.value == nil)
    }

    @Test(
        "S5: invalidating in a lifecycle call frees the owner (S5a); never calling it leaks (S5b)")
    func s5LifecycleInvalidation() throws {
        let graph = LiveGraph()
        let stopped = WeakBox<Owner>(nil)
        let forgotten = WeakBox<Owner>(nil)
        var leakedTimer: RunLoopTimer?
        do {
            let a = Owner()
            let b = Owner()
            stopped.value = a
            forgotten.value = b
            for owner in [a, b] {
                owner.timer = try RunLoopTimer.scheduled(
                    interval: 10, repeats: true, target: owner, graph: graph
                ) { owner, _ in owner.tick() }.held(by: owner, as: "timer")
            }
            a.timer?.invalidate()  // "viewWillDisappear"
            leakedTimer = b.timer
            #expect(graph.snapshot().references(to: try #require(a.timer?.graphID)).count == 1)
        }
        #expect(stopped.value == nil)
        #expect(forgotten.value != nil)
        expectEdges(
            graph,
            [scheduledDefault, "RunLoopTimer ⇒ Owner [target]", "Owner ⇒ RunLoopTimer [.timer]"])
        leakedTimer?.invalidate()
        leakedTimer = nil
        #expect(forgotten.value == nil)
    }

    @Test(
        "S6: a closure capturing [weak self] lets the owner die (S6a); a strong capture leaks (S6b)",
        arguments: [Ownership.weak, .strong])
    func s6ClosureCaptures(kind: Ownership) throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        let timerBox = WeakBox<RunLoopTimer>(nil)
        do {
            let owner = Owner()
            box.value = owner
            let action: (RunLoopTimer) -> Void
            if kind == .weak {
                action = { [weak owner] _ in owner?.tick() }
            } else {
                action = { _ in owner.tick() }
            }
            owner.timer = try RunLoopTimer.scheduled(
                interval: 10, repeats: true, capturing: owner, as: kind, graph: graph,
                action: action
            ).held(by: owner, as: "timer")
            timerBox.value = owner.timer
            let arrow = kind == .weak ? "→" : "⇒"
            expectEdges(
                graph,
                [
                    scheduledDefault, "RunLoopTimer ⇒ closure [action closure]",
                    "closure \(arrow) Owner [captures self]", "Owner ⇒ RunLoopTimer [.timer]",
                ])
        }
        if kind == .weak {
            #expect(box.value == nil)  // deinit ran and invalidated the timer
            #expect(timerBox.value == nil)
            #expect(edgeLines(graph).isEmpty)
        } else {
            #expect(box.value != nil)
            #expect(edgeLines(graph).contains("closure ⇒ Owner [captures self]"))
            timerBox.value?.invalidate()  // releases the closure and, with it, the owner
            #expect(box.value == nil)
        }
    }
}
