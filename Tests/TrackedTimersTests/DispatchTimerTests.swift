import Dispatch
import Foundation
import RetainGraph
import Synchronization
import Testing
import _TestSupport

@testable import TrackedTimers

/// A target/owner that counts what happens to it; `Sendable` so closures on queues may use it.
final class DTOwner: Sendable {
    let fires = Atomic<Int>(0)
    /// Where the last fire ran: the value of ``DTQueueKey`` on that queue, or -1.
    let lastQueueTag = Atomic<Int>(0)
    func tick() {
        lastQueueTag.store(DispatchQueue.getSpecific(key: dtQueueKey) ?? -1, ordering: .relaxed)
        fires.add(1, ordering: .relaxed)
    }
    var fireCount: Int { fires.load(ordering: .relaxed) }
}

/// Something a closure captures, to watch (weakly) when the closure is released.
final class DTMarker: Sendable {}

/// Tags queues so a fire can tell which queue it ran on.
let dtQueueKey = DispatchSpecificKey<Int>()

/// A serial queue tagged with `tag` under ``dtQueueKey``.
func dtQueue(_ label: String, tag: Int) -> DispatchQueue {
    let queue = DispatchQueue(label: label)
    queue.setSpecific(key: dtQueueKey, value: tag)
    return queue
}

/// S20: the MSWeakTimer behaviour of ``DispatchTimer`` on real queues.
@Suite("DispatchTimer behaviour (S20)")
struct DispatchTimerTests {
    @Test func repeatingTimerFiresOnTheGivenQueueUntilInvalidated() throws {
        let owner = DTOwner()
        let queue = dtQueue("dt.behaviour.queue", tag: 42)
        let timer = try DispatchTimer(
            interval: 0.001, repeats: true, queue: queue, weakTarget: owner,
            graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        #expect(timer.schedule())
        #expect(waitUntil { owner.fireCount >= 3 })
        #expect(owner.lastQueueTag.load(ordering: .relaxed) == 42)
        timer.invalidate()
        #expect(!timer.isValid)
        // Drain the queue: a fire that started before invalidate() has finished after this.
        queue.sync {}
        let settled = owner.fireCount
        queue.sync {}
        #expect(owner.fireCount == settled)
    }

    @Test func oneShotTimerFiresOnceAndInvalidatesItself() throws {
        let owner = DTOwner()
        let timer = try DispatchTimer(
            interval: 0, repeats: false, queue: .global(), weakTarget: owner,
            graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        timer.schedule()
        #expect(waitUntil { !timer.isValid })
        #expect(owner.fireCount == 1)
        timer.fire()
        #expect(owner.fireCount == 1, "an invalidated timer ignores fire()")
    }

    @Test func weakTargetIsNotRetained() throws {
        weak var weakOwner: DTOwner?
        let timer: DispatchTimer
        do {
            let owner = DTOwner()
            weakOwner = owner
            timer = try DispatchTimer(
                interval: 60, repeats: true, queue: .global(), weakTarget: owner,
                graph: LiveGraph()
            ) { owner, _ in owner.tick() }
            timer.schedule()
        }
        #expect(weakOwner == nil)
        #expect(timer.isValid, "the timer notices only at its next fire")
        timer.invalidate()
    }

    @Test func strongTargetIsRetainedUntilInvalidate() throws {
        weak var weakOwner: DTOwner?
        let timer: DispatchTimer
        do {
            let owner = DTOwner()
            weakOwner = owner
            timer = try DispatchTimer(
                interval: 60, repeats: true, queue: .global(), target: owner,
                graph: LiveGraph()
            ) { owner, _ in owner.tick() }
            timer.schedule()
        }
        #expect(weakOwner != nil)
        timer.invalidate()
        #expect(weakOwner == nil)
    }

    @Test func weakTargetTimerInvalidatesItselfAtTheFirstFireAfterTheTargetDied() throws {
        let graph = LiveGraph()
        let timer: DispatchTimer
        do {
            let owner = DTOwner()
            timer = try DispatchTimer(
                interval: 0.001, repeats: true, queue: .global(), weakTarget: owner,
                graph: graph
            ) { owner, _ in owner.tick() }
            timer.schedule()
            #expect(waitUntil { owner.fireCount >= 2 })
        }
        #expect(waitUntil { !timer.isValid })
        let timerID = try #require(timer.graphID)
        let info = try #require(graph.snapshot().node(timerID)?.timer)
        #expect(info.firesIntoDeadTarget == 1)
        #expect(info.stopsWhenTargetDies)
        #expect(!info.isScheduled)
    }

    @Test func manualFireRunsTheActionOnTheCallingThread() throws {
        let owner = DTOwner()
        let timer = try DispatchTimer(
            interval: 60, repeats: true, queue: dtQueue("dt.never", tag: 7), weakTarget: owner,
            graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        timer.fire()
        timer.fire()
        #expect(owner.fireCount == 2)
        #expect(owner.lastQueueTag.load(ordering: .relaxed) != 7)
        #expect(timer.isValid && !timer.isScheduled, "fire() does not schedule a repeating timer")
    }

    @Test func scheduleFirePauseAndInvalidateFromManyThreadsAtOnce() throws {
        for round in 0..<20 {
            let owner = DTOwner()
            let graph = LiveGraph()
            let timer = try DispatchTimer(
                interval: 0.0005, repeats: true, queue: .global(), weakTarget: owner,
                graph: graph
            ) { owner, _ in owner.tick() }
            DispatchQueue.concurrentPerform(iterations: 64) { index in
                switch index % 5 {
                case 0: timer.schedule()
                case 1: timer.fire()
                case 2: timer.isPaused = true
                case 3: timer.isPaused = false
                default: if index + round > 60 { timer.invalidate() }
                }
            }
            timer.invalidate()
            #expect(!timer.isValid)
            #expect(graph.snapshot().references.isEmpty)
        }
    }

    @Test func pausedTimerDoesNotFireAndResumesWhenUnpaused() throws {
        let owner = DTOwner()
        let queue = dtQueue("dt.pause", tag: 1)
        let timer = try DispatchTimer(
            interval: 0.001, repeats: true, queue: queue, weakTarget: owner,
            graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        timer.isPaused = true
        timer.schedule()
        queue.sync {}
        #expect(owner.fireCount == 0, "a timer scheduled while paused has no source yet")
        timer.isPaused = false
        #expect(waitUntil { owner.fireCount >= 2 })
        timer.isPaused = true
        queue.sync {}  // a fire already running finishes; queued ones are skipped
        let paused = owner.fireCount
        queue.sync {}
        #expect(owner.fireCount == paused)
        timer.isPaused = false
        #expect(waitUntil { owner.fireCount > paused })
        timer.invalidate()
    }

    @Test func settingToleranceOnAScheduledTimerKeepsItFiring() throws {
        let owner = DTOwner()
        let timer = try DispatchTimer(
            interval: 0.001, tolerance: .nan, repeats: true, queue: .global(),
            weakTarget: owner, graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        #expect(timer.tolerance == 0, "NaN tolerance counts as 0")
        timer.schedule()
        timer.tolerance = 0.0005
        #expect(timer.tolerance == 0.0005)
        timer.tolerance = -1
        #expect(timer.tolerance == 0)
        timer.tolerance = .infinity
        timer.tolerance = 0
        #expect(waitUntil { owner.fireCount >= 2 })
        timer.invalidate()
    }

    @Test func invalidatingFromInsideTheActionStopsTheTimer() throws {
        let counter = DTOwner()
        let queue = dtQueue("dt.self-invalidate", tag: 3)
        let timer = try DispatchTimer(
            interval: 0.001, repeats: true, queue: queue, graph: LiveGraph()
        ) { timer in
            counter.tick()
            timer.invalidate()
        }
        timer.schedule()
        #expect(waitUntil { !timer.isValid })
        queue.sync {}
        #expect(counter.fireCount == 1)
    }

    @Test func droppingAScheduledTimerStopsItAndReleasesTheClosure() throws {
        weak var weakMarker: DTMarker?
        let counter = DTOwner()
        let queue = dtQueue("dt.drop", tag: 4)
        do {
            let marker = DTMarker()
            weakMarker = marker
            let timer = try DispatchTimer(
                interval: 0.001, repeats: true, queue: queue, graph: LiveGraph()
            ) { _ in
                withExtendedLifetime(marker) { counter.tick() }
            }
            timer.schedule()
            #expect(waitUntil { counter.fireCount >= 1 })
        }
        // A fire in flight holds the timer until it returns; then the timer dies.
        #expect(waitUntil { weakMarker == nil })
        queue.sync {}
        let settled = counter.fireCount
        queue.sync {}
        #expect(counter.fireCount == settled)
    }
}
