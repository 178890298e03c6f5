import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// A class the tests capture to see whether a closure was released.
final class Capture {}

@Suite("RunLoopTimer behaviour: modes, missed fires, fire(), releases")
struct RunLoopTimerBehaviourTests {
    @Test(
        "S15: a default-mode timer waits while the loop runs the tracking mode; .common fires in both"
    )
    func s15Modes() throws {
        let graph = LiveGraph()
        var defaultFires = 0
        var commonFires = 0
        let defaultTimer = try RunLoopTimer.scheduled(interval: 0.005, repeats: true, graph: graph)
        {
            _ in defaultFires += 1
        }
        let commonTimer = try RunLoopTimer(interval: 0.005, repeats: true, graph: graph) { _ in
            commonFires += 1
        }
        try commonTimer.add(to: .current, forMode: .common)
        defer {
            defaultTimer.invalidate()
            commonTimer.invalidate()
        }
        // "Scrolling": the loop runs only the tracking mode.
        #expect(runRunLoop(mode: .tracking, until: { commonFires >= 3 }))
        #expect(defaultFires == 0)
        // Back to the default mode: both fire.
        let commonBefore = commonFires
        #expect(
            runRunLoop(
                mode: .default, until: { defaultFires >= 2 && commonFires >= commonBefore + 2 }))
        #expect(
            edgeLines(graph).contains(
                "runloop ⇒ RunLoopTimer [scheduled in mode \"kCFRunLoopCommonModes\"]"))
    }

    @Test("S17: missed fire points are skipped, and the schedule stays on its original grid")
    func s17MissedFiresSkipped() throws {
        var fireDatesSeen: [Date] = []
        let timer = try RunLoopTimer(interval: 10, repeats: true, graph: LiveGraph()) { timer in
            fireDatesSeen.append(timer.fireDate)
        }
        defer { timer.invalidate() }
        // The thread was "busy" for 3.5 intervals: points t0, t0+10, t0+20, t0+30 were missed.
        let anchor = Date(timeIntervalSinceNow: -35)
        timer.fireDate = anchor
        try timer.add(to: .current, forMode: .default)
        #expect(runRunLoop(until: { timer.fireCount >= 1 }))
        drainRunLoop()
        #expect(timer.fireCount == 1)  // one late fire, not four
        // The next fire is the next grid point t0+40, not "now + 10".
        let expected = anchor.addingTimeInterval(40)
        #expect(abs(timer.fireDate.timeIntervalSince(expected)) < 1e-3)
        #expect(abs(fireDatesSeen[0].timeIntervalSince(expected)) < 1e-3)
    }

    @Test("S17: a run loop blocked past several points fires once, then on the grid")
    func s17BlockedRunLoop() throws {
        var fireDates: [Date] = []
        let interval = 0.02
        let timer = try RunLoopTimer(interval: interval, repeats: true, graph: LiveGraph()) {
            timer in
            fireDates.append(timer.fireDate)
        }
        defer { timer.invalidate() }
        let anchor = Date(timeIntervalSinceNow: interval)
        timer.fireDate = anchor
        try timer.add(to: .current, forMode: .default)
        // Block the thread (no run loop) until at least 5 points have passed.
        #expect(waitUntil { Date() > anchor.addingTimeInterval(5.5 * interval) })
        #expect(runRunLoop(until: { timer.fireCount >= 3 }))
        // Each fire's next date is a grid point anchor + k × interval, strictly increasing.
        let steps = fireDates.map { $0.timeIntervalSince(anchor) / interval }
        for step in steps { #expect(abs(step - step.rounded()) < 1e-3) }
        #expect(steps.first.map { $0 >= 6 - 1e-3 } == true)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(timer.fireCount < Int(steps.last!.rounded()))  // points were skipped
    }

    @Test("fire() runs a repeating timer without unscheduling it and ends a one-shot timer")
    func manualFire() throws {
        let graph = LiveGraph()
        var count = 0
        let repeating = try RunLoopTimer(interval: 10, repeats: true, graph: graph) { _ in
            count += 1
        }
        try repeating.add(to: .current, forMode: .default)
        let dateBefore = repeating.fireDate
        repeating.fire()
        #expect(count == 1 && repeating.isValid && repeating.fireDate == dateBefore)
        let oneShot = try RunLoopTimer(interval: 10, repeats: false, graph: graph) { _ in count += 1
        }
        oneShot.fire()
        #expect(count == 2 && !oneShot.isValid)
        oneShot.fire()
        #expect(count == 2)
        repeating.invalidate()
        let info = try #require(timerInfo(repeating, in: graph, id: repeating.graphID))
        #expect(info.fireCount == 1 && !info.isScheduled)
    }

    @Test("Invalidation releases the action's captures although Foundation leaks its Timer")
    func invalidationReleasesCaptures() throws {
        let capture = WeakBox<Capture>(nil)
        var timer: RunLoopTimer?
        do {
            let captured = Capture()
            capture.value = captured
            timer = try RunLoopTimer.scheduled(interval: 0.005, repeats: true, graph: LiveGraph()) {
                _ in withExtendedLifetime(captured) {}
            }
        }
        #expect(runRunLoop(until: { (timer?.fireCount ?? 0) >= 1 }))
        #expect(capture.value != nil)
        let timerBox = WeakBox(timer)
        timer?.invalidate()
        timer = nil
        #expect(capture.value == nil)
        #expect(timerBox.value == nil)
    }

    @Test("A weak-target timer counts the fire into its dead target and invalidates itself")
    func weakTargetStops() throws {
        let graph = LiveGraph()
        var owner: Owner? = Owner(invalidatesInDeinit: false)
        let timer = try RunLoopTimer.scheduled(
            interval: 0.005, repeats: true, weakTarget: owner!, graph: graph
        ) { owner, _ in owner.tick() }
        #expect(edgeLines(graph).contains("RunLoopTimer → Owner [target]"))
        #expect(runRunLoop(until: { (owner?.ticks ?? 0) >= 1 }))
        owner = nil
        #expect(runRunLoop(until: { !timer.isValid }))
        let info = try #require(timerInfo(timer, in: graph, id: timer.graphID))
        #expect(info.firesIntoDeadTarget == 1 && info.stopsWhenTargetDies && !info.isScheduled)
        #expect(edgeLines(graph).isEmpty)
    }
}
