import Dispatch
import Foundation
import RetainGraph
import Testing
import _TestSupport

@testable import TrackedTimers

/// Call sequences that would make libdispatch kill the process (SIGILL) if the timer passed
/// them through naively, and bad input: every test passes simply by the process surviving,
/// and asserts the documented state on top.
@Suite("DispatchTimer safety: SIGILL-prone sequences and bad input")
struct DispatchTimerSafetyTests {
    /// A repeating timer on a global queue, recording into a private graph.
    func makeTimer(_ graph: LiveGraph = LiveGraph(), interval: Double = 60) throws
        -> DispatchTimer
    {
        try DispatchTimer(interval: interval, repeats: true, queue: .global(), graph: graph) {
            _ in
        }
    }

    @Test func createAndDropWithoutSchedulingEveryKind() throws {
        let owner = DTOwner()
        for _ in 0..<100 {
            _ = try makeTimer()
            _ = try DispatchTimer(
                interval: 1, repeats: false, queue: .global(), capturing: owner, as: .strong,
                graph: LiveGraph()
            ) { _ in owner.tick() }
            _ = try DispatchTimer(
                interval: 1, repeats: true, weakTarget: owner, graph: LiveGraph()
            ) { o, _ in o.tick() }
            _ = try DispatchTimer(interval: 1, repeats: true, target: owner, graph: LiveGraph()) {
                o, _ in o.tick()
            }
        }
        #expect(owner.fireCount == 0)
    }

    @Test func scheduleTwiceIsANoOp() throws {
        let timer = try makeTimer()
        #expect(timer.schedule())
        #expect(!timer.schedule())
        #expect(timer.isScheduled)
    }

    @Test func invalidateTwiceAndBeforeSchedule() throws {
        let unscheduled = try makeTimer()
        unscheduled.invalidate()
        unscheduled.invalidate()
        #expect(!unscheduled.isValid)
        let scheduled = try makeTimer()
        scheduled.schedule()
        scheduled.invalidate()
        scheduled.invalidate()
        #expect(!scheduled.isValid && !scheduled.isScheduled)
    }

    @Test func scheduleAfterInvalidateNeverRevivesTheTimer() throws {
        let timer = try makeTimer(interval: 0.001)
        timer.invalidate()
        #expect(!timer.schedule())
        timer.isPaused = true
        timer.isPaused = false
        timer.tolerance = 1
        #expect(!timer.isValid && !timer.isScheduled)
    }

    @Test func dropWhileSuspendedAndInvalidateWhileSuspended() throws {
        for _ in 0..<50 {
            let dropped = try makeTimer(interval: 0.001)
            dropped.schedule()
            dropped.isPaused = true
            #expect(dropped.isPaused)

            let invalidated = try makeTimer(interval: 0.001)
            invalidated.schedule()
            invalidated.isPaused = true
            invalidated.invalidate()
            #expect(!invalidated.isValid)
        }
    }

    @Test func unbalancedPauseAndUnpauseAreCoalesced() throws {
        let owner = DTOwner()
        let timer = try DispatchTimer(
            interval: 0.001, repeats: true, queue: .global(), weakTarget: owner,
            graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        timer.isPaused = false  // unpause before anything: nothing to resume
        timer.isPaused = true  // pause before schedule: no source yet
        timer.isPaused = true
        timer.schedule()
        timer.isPaused = false
        timer.isPaused = false  // a second resume would trap in libdispatch
        #expect(waitUntil { owner.fireCount >= 1 })
        timer.isPaused = true
        timer.isPaused = true  // suspended once only
        timer.tolerance = 0.5  // rescheduling a suspended source is fine
        timer.isPaused = false
        #expect(waitUntil { owner.fireCount >= 2 })
    }

    @Test func fireBeforeScheduleAndOneShotFireThenSchedule() throws {
        let owner = DTOwner()
        let oneShot = try DispatchTimer(
            interval: 60, repeats: false, queue: .global(), weakTarget: owner,
            graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        oneShot.fire()
        #expect(owner.fireCount == 1 && !oneShot.isValid)
        #expect(!oneShot.schedule())
    }

    @Test func randomSequencesOfPublicCallsNeverTrap() throws {
        var rng = DTRandom(seed: 0x5EED)
        let graph = LiveGraph()
        var fired = 0
        for _ in 0..<1_000 {
            var timer: DispatchTimer? = try makeTimer(graph, interval: 0.0005)
            for _ in 0..<8 {
                let roll: UInt64 = rng.next()
                let tolerance: Double = roll % 2 == 0 ? -1 : 0.001
                switch roll % 7 {
                case 0: timer?.schedule()
                case 1: timer?.invalidate()
                case 2: timer?.isPaused = true
                case 3: timer?.isPaused = false
                case 4:
                    timer?.fire()
                    fired += 1
                case 5: timer?.tolerance = tolerance
                default: timer = nil
                }
            }
        }
        #expect(fired > 0)
        #expect(waitUntil { graph.snapshot().nodes.allSatisfy { $0.kind != .timer } })
    }

    @Test(arguments: dtNonFiniteOrNegative)
    func invalidIntervalsAreRejectedWithATypedError(interval: Double) {
        for repeats in [true, false] {
            #expect(throws: TimerError.self) {
                try DispatchTimer(interval: interval, repeats: repeats) { _ in }
            }
        }
    }

    @Test func aRepeatingIntervalOfZeroIsRejectedButAOneShotIsFine() throws {
        #expect(throws: TimerError.invalidInterval(0)) {
            try DispatchTimer(interval: 0, repeats: true) { _ in }
        }
        #expect(throws: TimerError.self) {
            try DispatchTimer(interval: -0.0, repeats: true) { _ in }
        }
        let owner = DTOwner()
        let oneShot = try DispatchTimer(
            interval: 0, repeats: false, queue: .global(), weakTarget: owner, graph: LiveGraph()
        ) { owner, _ in owner.tick() }
        oneShot.schedule()
        #expect(waitUntil { owner.fireCount == 1 && !oneShot.isValid })
    }

    @Test(arguments: dtExtremeFinite)
    func extremeFiniteIntervalsAreClampedNotTrapped(interval: Double) throws {
        let timer = try makeTimer(interval: interval)
        timer.tolerance = interval
        timer.schedule()
        timer.isPaused = true
        timer.isPaused = false
        timer.invalidate()
        #expect(!timer.isValid)
    }
}

/// NaN, infinities and negative values, typed up front (untyped literals with prefix minus on
/// implicit members make the type checker crawl).
let dtNonFiniteOrNegative: [Double] = [
    Double.nan, Double.infinity, -Double.infinity, -1.0, -Double.leastNonzeroMagnitude,
]

/// Finite values at the edges of what libdispatch can take.
let dtExtremeFinite: [Double] = [1e300, Double.greatestFiniteMagnitude, 1e-300]

/// A small deterministic random number generator for reproducible call sequences.
struct DTRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
