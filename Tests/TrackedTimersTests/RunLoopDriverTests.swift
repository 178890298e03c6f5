import Foundation
import RetainGraph
import Testing
import _TestSupport

@testable import TrackedTimers

@Suite("Run-loop drivers: one shared Foundation timer per run loop and mode")
struct RunLoopDriverTests {
    @Test("Timers of one run loop and mode share one driver, whose queue empties on invalidation")
    func timersShareOneDriver() throws {
        let graph = LiveGraph()
        let driver = RunLoopDriver.driver(for: .current, mode: .default)
        #expect(RunLoopDriver.driver(for: .current, mode: .default) === driver)
        let before = driver.queuedCount
        var timers: [RunLoopTimer] = []
        var links: [FrameTimer] = []
        for _ in 0..<50 {
            let timer = try RunLoopTimer(interval: 60, repeats: true, graph: graph) { _ in }
            try timer.add(to: .current, forMode: .default)
            timers.append(timer)
            let link = try FrameTimer(refreshRate: 1, graph: graph) { _ in }
            try link.add(to: .current, forMode: .default)
            links.append(link)
        }
        #expect(driver.queuedCount == before + 100)
        for timer in timers { timer.invalidate() }
        for link in links { link.invalidate() }
        #expect(driver.queuedCount == before)
    }

    @Test("A timer in .common is queued once in the .common and once in the tracking driver")
    func commonModesQueueOnceEach() throws {
        let common = RunLoopDriver.driver(for: .current, mode: .common)
        let tracking = RunLoopDriver.driver(for: .current, mode: .tracking)
        #expect(common !== tracking)
        let (commonBefore, trackingBefore) = (common.queuedCount, tracking.queuedCount)
        let timer = try RunLoopTimer(interval: 60, repeats: true, graph: LiveGraph()) { _ in }
        try timer.add(to: .current, forMode: .common)
        try timer.add(to: .current, forMode: .tracking)  // already there through .common
        #expect(common.queuedCount == commonBefore + 1)
        #expect(tracking.queuedCount == trackingBefore + 1)
        timer.invalidate()
        #expect(common.queuedCount == commonBefore && tracking.queuedCount == trackingBefore)
    }

    @Test("A timer due before every other one on its run loop fires first (the driver re-arms)")
    func earlierTimerRearmsTheDriver() throws {
        var order: [String] = []
        let late = try RunLoopTimer.scheduled(interval: 30, repeats: false, graph: LiveGraph()) {
            _ in order.append("late")
        }
        let soon = try RunLoopTimer.scheduled(
            interval: 0.005, repeats: false, graph: LiveGraph()
        ) { _ in order.append("soon") }
        #expect(runRunLoop(until: { !soon.isValid }))
        #expect(order == ["soon"])
        #expect(late.isValid && late.fireCount == 0)
        late.invalidate()
    }

    @Test("Moving a fire date later defers the fire; moving it earlier brings it forward")
    func movingFireDates() throws {
        let graph = LiveGraph()
        let deferred = try RunLoopTimer.scheduled(interval: 0.005, repeats: true, graph: graph) {
            _ in
        }
        deferred.fireDate = Date(timeIntervalSinceNow: 60)
        let forward = try RunLoopTimer.scheduled(interval: 60, repeats: true, graph: graph) { _ in }
        forward.fireDate = Date(timeIntervalSinceNow: 0.01)
        #expect(runRunLoop(until: { forward.fireCount >= 1 }))
        #expect(deferred.fireCount == 0)
        // Back on its own grid: the next fire is one interval after the date it was moved to.
        #expect(forward.fireDate > Date(timeIntervalSinceNow: 50))
        deferred.invalidate()
        forward.invalidate()
    }
}
