import Dispatch
import Foundation
import RetainGraph
import Synchronization
import Testing
import _TestSupport

@testable import TrackedTimers

/// S18 behaviour: validation, names, firing, one-shot removal and cancelling by name.
@Suite("TimerRegistry behaviour (S18)")
struct TimerRegistryTests {
    @Test func rejectsAMissingTask() {
        let registry = TimerRegistry(graph: LiveGraph())
        #expect(throws: TimerError.missingAction) {
            try registry.schedule(interval: 1, repeats: true, task: nil)
        }
        #expect(registry.count == 0)
    }

    @Test(arguments: dtNonFiniteOrNegative)
    func rejectsABadStart(start: Double) {
        let registry = TimerRegistry(graph: LiveGraph())
        #expect(throws: TimerError.self) {
            try registry.schedule(start: start, interval: 1, repeats: true) {}
        }
        #expect(registry.count == 0)
    }

    @Test(arguments: dtNonFiniteOrNegative + [0.0, -0.0])
    func rejectsABadRepeatingInterval(interval: Double) {
        let registry = TimerRegistry(graph: LiveGraph())
        #expect(throws: TimerError.self) {
            try registry.schedule(interval: interval, repeats: true) {}
        }
        #expect(registry.count == 0)
    }

    @Test func typedErrorsCarryTheOffendingValue() {
        let registry = TimerRegistry(graph: LiveGraph())
        #expect(throws: TimerError.invalidStart(-2)) {
            try registry.schedule(start: -2, interval: 1, repeats: true) {}
        }
        #expect(throws: TimerError.invalidInterval(0)) {
            try registry.schedule(interval: 0, repeats: true) {}
        }
    }

    @Test func oneShotWithIntervalZeroFiresOnceAfterItsStartAndLeavesTheRegistry() throws {
        let registry = TimerRegistry(graph: LiveGraph())
        let owner = DTOwner()
        let name = try registry.schedule(start: 0.01, interval: 0, repeats: false) {
            owner.tick()
        }
        #expect(waitUntil { owner.fireCount == 1 && !registry.contains(name) })
        #expect(registry.count == 0)
    }

    @Test func repeatingTaskFiresOnItsQueueUntilCancelledByName() throws {
        let registry = TimerRegistry(graph: LiveGraph())
        let owner = DTOwner()
        let queue = dtQueue("registry.custom", tag: 18)
        let name = try registry.schedule(
            named: "poll", interval: 0.001, repeats: true, queue: .custom(queue)
        ) { owner.tick() }
        #expect(name == "poll")
        #expect(waitUntil { owner.fireCount >= 3 })
        #expect(owner.lastQueueTag.load(ordering: .relaxed) == 18)
        let timer = try #require(registry.timer(named: "poll"))
        #expect(registry.cancel("poll"))
        #expect(!timer.isValid && !registry.contains("poll"))
        #expect(!registry.cancel("poll"), "a second cancel finds nothing")
        #expect(!registry.cancel(""))
        queue.sync {}
        let settled = owner.fireCount
        queue.sync {}
        #expect(owner.fireCount == settled)
    }

    @Test func backgroundQueueIsTheDefault() throws {
        let registry = TimerRegistry(graph: LiveGraph())
        let owner = DTOwner()
        try registry.schedule(interval: 0.001, repeats: true) { owner.tick() }
        #expect(waitUntil { owner.fireCount >= 1 })
        registry.cancelAll()
        #expect(registry.count == 0)
    }

    @Test func mainQueueTimersAreRegisteredAndCancellable() throws {
        let registry = TimerRegistry(graph: LiveGraph())
        let name = try registry.schedule(start: 60, interval: 60, repeats: true, queue: .main) {}
        // DispatchQueue.main hands out a new wrapper per access on Linux: compare labels.
        #expect(registry.timer(named: name)?.queue.label == DispatchQueue.main.label)
        #expect(registry.cancel(name))
    }

    @Test func neverReusesTheNameOfALiveTimer() throws {
        let registry = TimerRegistry(name: "r", graph: LiveGraph())
        let first = try registry.schedule(start: 60, interval: 60, repeats: true) {}
        let second = try registry.schedule(start: 60, interval: 60, repeats: true) {}
        registry.cancel(first)
        // The seed would name this one by the count (1), which `second` still carries.
        let third = try registry.schedule(start: 60, interval: 60, repeats: true) {}
        #expect(Set([first, second, third]).count == 3)
        #expect(registry.names == [second, third])
        // A user-chosen name that collides with a live (generated or chosen) one is refused.
        #expect(throws: TimerError.nameInUse(second)) {
            try registry.schedule(named: second, start: 60, interval: 60, repeats: true) {}
        }
        let generatedNext = "r-3"
        try registry.schedule(named: generatedNext, start: 60, interval: 60, repeats: true) {}
        let fourth = try registry.schedule(start: 60, interval: 60, repeats: true) {}
        #expect(fourth != generatedNext && registry.count == 4)
        registry.cancelAll()
    }

    @Test func aCancelledNameCanBeChosenAgain() throws {
        let registry = TimerRegistry(graph: LiveGraph())
        try registry.schedule(named: "job", start: 60, interval: 1, repeats: true) {}
        registry.cancel("job")
        try registry.schedule(named: "job", start: 60, interval: 1, repeats: true) {}
        #expect(registry.names == ["job"])
        registry.cancelAll()
    }

    @Test func aTaskMayCancelItselfByName() throws {
        let registry = TimerRegistry(graph: LiveGraph())
        let owner = DTOwner()
        try registry.schedule(named: "self-cancel", interval: 0.001, repeats: true) {
            owner.tick()
            registry.cancel("self-cancel")
        }
        #expect(waitUntil { !registry.contains("self-cancel") })
        #expect(owner.fireCount >= 1)
    }

    @Test func concurrentSchedulingAndCancellingKeepsNamesUnique() throws {
        let registry = TimerRegistry(graph: LiveGraph())
        let lock = NSLock()
        nonisolated(unsafe) var names: [String] = []
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            guard let name = try? registry.schedule(start: 60, interval: 1, repeats: true, task: {})
            else { return }
            lock.withLock { names.append(name) }
            if index % 2 == 0 { registry.cancel(name) }
        }
        let all = lock.withLock { names }
        #expect(all.count == 200 && Set(all).count == 200)
        #expect(registry.count == 100)
        registry.cancelAll()
        #expect(registry.count == 0)
    }

    @Test func droppingARegistryStopsItsTimers() throws {
        let owner = DTOwner()
        weak var weakTimer: DispatchTimer?
        do {
            let registry = TimerRegistry(graph: LiveGraph())
            let name = try registry.schedule(interval: 0.001, repeats: true) { owner.tick() }
            weakTimer = registry.timer(named: name)
            #expect(waitUntil { owner.fireCount >= 1 })
        }
        #expect(waitUntil { weakTimer == nil })
    }
}
