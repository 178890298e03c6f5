import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// A run loop of a thread of its own that runs in one long slice (it sleeps until a source
/// wakes it), until the process ends.
final class SleepingRunLoop: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    nonisolated(unsafe) private(set) var runLoop: RunLoop?

    init() {
        let thread = Thread { [self] in
            // A parked timer keeps the mode from being empty, so the slice really sleeps.
            let keeper = Timer(fire: .distantFuture, interval: 1, repeats: false) { _ in }
            RunLoop.current.add(keeper, forMode: .default)
            runLoop = RunLoop.current
            ready.signal()
            while true { _ = RunLoop.current.run(mode: .default, before: .distantFuture) }
        }
        thread.start()
        ready.wait()
    }
}

@Suite("RunLoopTimer across threads")
struct RunLoopTimerThreadTests {
    /// Shared by the tests: one sleeping thread for the whole run.
    static let sleeper = SleepingRunLoop()

    @Test("A timer added from another thread wakes that thread's sleeping run loop and fires there")
    func addFromAnotherThreadWakesTheRunLoop() throws {
        let runLoop = try #require(Self.sleeper.runLoop)
        let fires = StressCounter()
        let offThreadFires = StressCounter()
        let timer = try RunLoopTimer(interval: 0.01, repeats: true, graph: LiveGraph()) { _ in
            if RunLoop.current !== runLoop { offThreadFires.increment() }
            fires.increment()
        }
        try timer.add(to: runLoop, forMode: .default)
        // The run loop sleeps until .distantFuture unless the shared timer's re-arming wakes it.
        #expect(waitUntil(timeout: 20) { fires.count >= 3 })
        #expect(offThreadFires.count == 0)
        timer.invalidate()  // from this thread, not the run loop's
        let afterInvalidate = fires.count
        let probe = try RunLoopTimer(interval: 0.01, repeats: false, graph: LiveGraph()) { _ in }
        try probe.add(to: runLoop, forMode: .default)
        #expect(waitUntil(timeout: 20) { !probe.isValid })  // the loop ran past later points
        #expect(fires.count <= afterInvalidate + 1)  // at most one in flight
    }
}
