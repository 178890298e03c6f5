import Foundation
import LeakTracking
import RetainGraph
import Testing

@Suite("Draining the run loop and settling verdicts")
struct RunLoopDrainTests {
    @Test("drainRunLoop runs blocks queued on this thread's run loop until the condition holds")
    func drainRunsPerformedBlocks() {
        let holder = Holder(Owner())
        let box = WeakBox(holder.object)
        var released = false
        RunLoop.current.perform { holder.object = nil }
        let held = LeakWatcher.drainRunLoop(timeout: .seconds(30)) {
            released = box.object == nil
            return released
        }
        #expect(held)
        #expect(released)
    }

    @Test("settle() with the system clock reaches OK once a run-loop block releases the object")
    func settleWithSystemClock() {
        let graph = LiveGraph()
        let watcher = LeakWatcher(graph: graph, defaultGrace: .seconds(30))
        let holder = Holder(Owner())
        watcher.expectDeallocation(of: holder.object!, reason: "released by the run loop")
        RunLoop.current.perform { holder.object = nil }
        let verdicts = watcher.settle(timeout: .seconds(30))
        #expect(verdicts.map(\.verdict) == [.ok])
        #expect(holder.object == nil)
    }

    @Test("The watcher holds nothing strongly: dropping the last reference gives OK at once")
    func watcherHoldsNothing() {
        let harness = Harness()
        var owner: Owner? = Owner()
        let box = harness.expectDeath(of: &owner)
        #expect(box.object == nil)
        #expect(harness.onlyVerdict()?.verdict == .ok)
        #expect(harness.graph.counts().nodes == 0)
    }

    @Test("settled() in async code waits out a short grace and reports the leak")
    func settledAsync() async throws {
        let graph = LiveGraph()
        // No discovery: another suite's heap census must not explain this object.
        let watcher = LeakWatcher(graph: graph, defaultGrace: .milliseconds(20), discovery: .none)
        let kept = Owner()
        watcher.expectDeallocation(of: kept, reason: "test ended")
        let verdicts = await watcher.settled(timeout: .seconds(30))
        #expect(verdicts.map(\.verdict) == [.leak])
        #expect(verdicts.first?.report?.hint.code == .unexplained)
        withExtendedLifetime(kept) {}
    }
}

/// Lets a run-loop block (a `@Sendable` closure) drop the last reference to an object.
final class Holder: @unchecked Sendable {
    var object: Owner?
    init(_ object: Owner?) { self.object = object }
}
