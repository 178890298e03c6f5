import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// A run loop of a thread of its own, kept alive (not running) until `finish()`.
final class ParkedThread: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) private(set) var runLoop: RunLoop?

    init() {
        let thread = Thread { [self] in
            runLoop = RunLoop.current
            ready.signal()
            done.wait()
        }
        thread.start()
        ready.wait()
    }

    func finish() { done.signal() }
}

@Suite("RunLoopTimer bad input and misuse: typed errors or documented no-ops, never a trap")
struct RunLoopTimerInputTests {
    @Test(
        "NaN, infinite and negative intervals, and a repeating 0, are rejected",
        arguments: [
            (Double.nan, true), (.infinity, true), (-1, true), (0, true), (.nan, false),
            (-.infinity, false), (-0.5, false),
        ])
    func badIntervals(interval: Double, repeats: Bool) {
        let error = #expect(throws: TimerError.self) {
            _ = try RunLoopTimer(interval: interval, repeats: repeats, graph: LiveGraph()) { _ in }
        }
        guard case .invalidInterval(let reported)? = error else {
            Issue.record("expected invalidInterval, got \(String(describing: error))")
            return
        }
        #expect(reported == interval || (reported.isNaN && interval.isNaN))
    }

    @Test("A one-shot timer with interval 0 is valid and fires at once")
    func zeroOneShot() throws {
        var fired = false
        let timer = try RunLoopTimer.scheduled(interval: 0, repeats: false, graph: LiveGraph()) {
            _ in fired = true
        }
        #expect(runRunLoop(until: { fired }))
        #expect(!timer.isValid)
    }

    @Test("Double invalidate, invalidate before schedule, and schedule after invalidate")
    func invalidationOrder() throws {
        let graph = LiveGraph()
        let timer = try RunLoopTimer(interval: 1, repeats: true, graph: graph) { _ in }
        timer.invalidate()  // before scheduling: fine
        timer.invalidate()  // twice: a no-op
        #expect(!timer.isValid)
        #expect(throws: TimerError.invalidated) { try timer.add(to: .current, forMode: .default) }
        #expect(throws: TimerError.invalidated) { try timer.scheduleOnCurrentRunLoop() }
        #expect(edgeLines(graph).isEmpty)
        timer.fireDate = .distantFuture  // ignored
        timer.fire()  // ignored
        #expect(timer.fireCount == 0)
    }

    @Test("A timer belongs to one run loop, in as many of its modes as you like")
    func twoRunLoops() throws {
        let graph = LiveGraph()
        let parked = ParkedThread()
        defer { parked.finish() }
        let other = try #require(parked.runLoop)
        let timer = try RunLoopTimer(interval: 10, repeats: true, graph: graph) { _ in }
        defer { timer.invalidate() }
        try timer.add(to: .current, forMode: .default)
        try timer.add(to: .current, forMode: .default)  // same mode again: no-op
        try timer.add(to: .current, forMode: .tracking)
        #expect(throws: TimerError.scheduledOnAnotherRunLoop) {
            try timer.add(to: other, forMode: .default)
        }
        let scheduled = edgeLines(graph).filter { $0.hasPrefix("runloop ⇒") }
        #expect(
            scheduled == [
                scheduledDefault,
                "runloop ⇒ RunLoopTimer [scheduled in mode \"UITrackingRunLoopMode\"]",
            ])
    }

    @Test("Extreme intervals and non-finite fire dates are accepted or clamped, never trap")
    func extremeValues() throws {
        let graph = LiveGraph()
        let huge = try RunLoopTimer(interval: 1e300, repeats: true, graph: graph) { _ in }
        try huge.add(to: .current, forMode: .default)
        let tiny = try RunLoopTimer(interval: 1e-300, repeats: true, graph: graph) { _ in }
        try tiny.add(to: .current, forMode: .default)
        #expect(runRunLoop(until: { tiny.fireCount >= 3 }))
        tiny.invalidate()
        huge.fireDate = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(huge.fireDate > Date(timeIntervalSinceNow: 3e9))  // Foundation clamps to ~2129
        huge.fireDate = Date(timeIntervalSinceReferenceDate: -.infinity)
        #expect(runRunLoop(until: { huge.fireCount >= 1 }))
        huge.invalidate()
    }

    @Test("Tolerance is stored; NaN, negative and infinite values become 0")
    func tolerance() throws {
        let timer = try RunLoopTimer(interval: 1, repeats: true, graph: LiveGraph()) { _ in }
        #expect(timer.tolerance == 0)
        timer.tolerance = 0.25
        #expect(timer.tolerance == 0.25)
        for bad in [Double.nan, -1, .infinity] {
            timer.tolerance = bad
            #expect(timer.tolerance == 0)
        }
    }

    @Test("Invalidating from inside the action stops the timer after that fire")
    func invalidateInsideAction() throws {
        var count = 0
        let timer = try RunLoopTimer.scheduled(interval: 0.005, repeats: true, graph: LiveGraph()) {
            timer in
            count += 1
            timer.invalidate()
        }
        #expect(runRunLoop(until: { !timer.isValid }))
        drainRunLoop()
        #expect(count == 1)
    }

    @Test("A weak target released during a fire stays alive until the fire returns")
    func targetDiesMidFire() throws {
        let graph = LiveGraph()
        nonisolated(unsafe) var holder: Owner? = Owner(invalidatesInDeinit: false)
        let box = WeakBox(holder)
        var aliveAfterRelease = false
        let timer = try RunLoopTimer.scheduled(
            interval: 0.005, repeats: true, weakTarget: holder!, graph: graph
        ) { owner, _ in
            holder = nil  // the last outside reference goes mid-fire
            aliveAfterRelease = box.value != nil
            owner.tick()
        }
        #expect(runRunLoop(until: { !timer.isValid }))
        #expect(aliveAfterRelease)
        #expect(box.value == nil)
        #expect(timerInfo(timer, in: graph, id: timer.graphID)?.firesIntoDeadTarget == 1)
    }
}
