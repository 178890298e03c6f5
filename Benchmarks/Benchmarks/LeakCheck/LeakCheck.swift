// What a teardown leak check costs over a live graph of 10,000 nodes.
//
// The graph: 10,000 live objects in chains of ten (each holds the next strongly, the last holds
// the first weakly), every chain head held by a process root, plus one S1-shaped leak: a run
// loop root ⇒ timer ⇒ owner ⇒ timer. One owner is watched with `expectDeallocation`; a manual
// clock is past its deadline, so each `verdicts()` call is exactly the check a test's teardown
// runs (snapshot, analysis, report for the leaking owner).
//
// - Teardown check (10k nodes): `LeakWatcher.verdicts()`; goal ≤ 5 ms. The check copies only
//   the owner's holders (a scoped snapshot), so this is the common case: a leak held by a few
//   objects in a large graph.
// - Teardown check (10k nodes, all holding the owner): the worst case for a scoped snapshot:
//   every chain's tail also holds the owner strongly, so all 10,000 nodes are its holders.
// - Teardown check (10k nodes, whole-graph snapshot): the check as it was before scoped
//   snapshots, and as it still is with a discoverer: `LiveGraph.snapshot()` + analysis + report.
// - Scoped snapshot (10k holders) and Full snapshot (10k holders): the two copies alone, on
//   the worst-case graph, to split the check's cost between copying and analysing.
// - Expect deallocation (10k nodes): `expectDeallocation(of:within:reason:)` + `forget`.
//
// Metrics: wall clock and malloc count (the ARC metrics crash on Linux with Swift 6.3).
import Benchmark
import Foundation
import LeakTracking
import RetainGraph

final class Member {}
final class FakeTimer {}
final class FakeRunLoop {}
final class Owner {}

/// A live graph of `count` objects plus one S1 leak, and the objects that keep it alive.
struct LeakFixture {
    let graph = LiveGraph()
    var objects: [AnyObject] = []
    let owner = Owner()

    /// - Parameters:
    ///   - count: The number of chain members.
    ///   - tailsHoldOwner: Whether every chain's tail also holds the leaking owner strongly.
    init(count: Int, tailsHoldOwner: Bool = false) {
        let process = graph.registerRoot(.process)
        var previous: ObjectID?
        var head: ObjectID?
        var tails: [ObjectID] = []
        for index in 0..<count {
            let member = Member()
            objects.append(member)
            let id = graph.register(member)
            if index % 10 == 9 { tails.append(id) }
            if index % 10 == 0 {
                if let previous, let head {
                    graph.addReference(
                        from: previous, to: head, ownership: .weak,
                        role: .storedProperty(name: "first"))
                }
                graph.addReference(
                    from: process, to: id, ownership: .strong, role: .declared("global"))
                head = id
            } else if let previous {
                graph.addReference(
                    from: previous, to: id, ownership: .strong, role: .storedProperty(name: "next"))
            }
            previous = id
        }
        let ownerID = graph.register(owner)
        if tailsHoldOwner {
            for tail in tails {
                graph.addReference(
                    from: tail, to: ownerID, ownership: .strong,
                    role: .storedProperty(name: "owner"))
            }
        }
        let runLoop = FakeRunLoop()
        let timer = FakeTimer()
        objects += [runLoop, timer]
        let root = graph.registerRoot(.runLoop(thread: "main"), for: runLoop)
        let timerID = graph.register(timer, kind: .timer)
        graph.setTimerInfo(TimerInfo(repeats: true, interval: 1, isScheduled: true), for: timerID)
        graph.addReference(
            from: root, to: timerID, ownership: .strong,
            role: .scheduled(mode: "kCFRunLoopDefaultMode"))
        graph.addReference(from: timerID, to: ownerID, ownership: .strong, role: .target)
        graph.addReference(
            from: ownerID, to: timerID, ownership: .strong, role: .storedProperty(name: "timer"))
    }
}

/// A discoverer that finds nothing, to measure the whole-graph snapshot a discoverer causes.
struct AddsNothing: ReferenceDiscoverer {
    func discoverReferences(
        into builder: inout GraphSnapshot.Builder, for request: DiscoveryRequest
    ) {}
}

/// Measures `verdicts()` of a watcher whose one watch, on the fixture's owner, is past its
/// deadline: exactly the check a test's teardown runs.
func measureTeardownCheck(
    _ benchmark: Benchmark, fixture: LeakFixture, discovery: ReferenceDiscovery = .none
) {
    let clock = ManualWatchClock()
    let watcher = LeakWatcher(graph: fixture.graph, clock: clock, discovery: discovery)
    watcher.expectDeallocation(of: fixture.owner, within: .milliseconds(10), reason: "closed")
    clock.advance(by: .seconds(1))
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        blackHole(watcher.verdicts())
    }
    benchmark.stopMeasurement()
    withExtendedLifetime(fixture) {}
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(3), maxIterations: 1_000)

    Benchmark("Teardown check (10k nodes)") { benchmark in
        measureTeardownCheck(benchmark, fixture: LeakFixture(count: 10_000))
    }

    Benchmark("Teardown check (10k nodes, all holding the owner)") { benchmark in
        let fixture = LeakFixture(count: 10_000, tailsHoldOwner: true)
        let owner = fixture.graph.id(of: fixture.owner) ?? .disabled
        precondition(fixture.graph.snapshot(.retention(of: [owner])).nodes.count > 10_000)
        measureTeardownCheck(benchmark, fixture: fixture)
    }

    Benchmark("Teardown check (10k nodes, whole-graph snapshot)") { benchmark in
        // A discoverer that adds nothing: the watcher then snapshots the whole graph.
        measureTeardownCheck(
            benchmark, fixture: LeakFixture(count: 10_000),
            discovery: .none.adding(AddsNothing(), named: "nothing", order: .custom))
    }

    Benchmark("Scoped snapshot (10k holders)") { benchmark in
        let fixture = LeakFixture(count: 10_000, tailsHoldOwner: true)
        let owner = fixture.graph.id(of: fixture.owner) ?? .disabled
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(fixture.graph.snapshot(.retention(of: [owner])))
        }
        benchmark.stopMeasurement()
        withExtendedLifetime(fixture) {}
    }

    Benchmark("Full snapshot (10k holders)") { benchmark in
        let fixture = LeakFixture(count: 10_000, tailsHoldOwner: true)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(fixture.graph.snapshot())
        }
        benchmark.stopMeasurement()
        withExtendedLifetime(fixture) {}
    }

    Benchmark("Expect deallocation (10k nodes)") { benchmark in
        let fixture = LeakFixture(count: 10_000)
        let watcher = LeakWatcher(graph: fixture.graph, clock: ManualWatchClock())
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let id = watcher.expectDeallocation(
                of: fixture.owner, within: .seconds(1), reason: "closed")
            watcher.forget(id)
        }
        benchmark.stopMeasurement()
        withExtendedLifetime(fixture) {}
    }
}
