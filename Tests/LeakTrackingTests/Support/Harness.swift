import Foundation
import LeakTracking
import RetainGraph

/// A private graph, a manual clock and a watcher over them: every test gets its own, so tests
/// run in parallel without touching `LiveGraph.shared`.
struct Harness {
    let graph = LiveGraph()
    let clock = ManualWatchClock()
    let watcher: LeakWatcher

    init(
        knownLeaks: [KnownLeak] = [], sinks: [any LeakReportSink] = [],
        discovery: ReferenceDiscovery = .none
    ) {
        watcher = LeakWatcher(
            graph: graph, clock: clock, defaultGrace: .seconds(1), knownLeaks: knownLeaks,
            sinks: sinks, discovery: discovery)
    }

    /// Moves the clock past the default grace period.
    func expireGrace() { clock.advance(by: .seconds(2)) }

    /// The run loop of the main thread, simulated.
    func mainRunLoop() -> SimulatedRoot { SimulatedRoot(graph: graph) }

    /// A timer created by the test (its creation trace points into the test).
    func timer(repeats: Bool = true, stopsWhenTargetDies: Bool = false) -> SimulatedTimer {
        SimulatedTimer(
            graph: graph, repeats: repeats, label: "tick", stopsWhenTargetDies: stopsWhenTargetDies)
    }

    /// Seed S1: runloop ⇒ timer ⇒ owner ⇒ timer.
    func makeS1(on loop: SimulatedRoot) -> Owner {
        let owner = Owner()
        graph.register(owner, label: "S1")
        let timer = timer()
        timer.target(owner, strongly: true)
        owner.hold(timer, graph: graph)
        loop.schedule(timer, now: clock.now)
        return owner
    }

    /// Watches `owner` and drops the caller's reference: the returned weak box tells whether it
    /// died.
    func expectDeath(of owner: inout Owner?, reason: String = "owner closed") -> WeakBox {
        let box = WeakBox(owner)
        if let object = owner { watcher.expectDeallocation(of: object, reason: reason) }
        owner = nil
        return box
    }

    /// The one verdict of a watcher with one watch.
    func onlyVerdict() -> WatchVerdict? {
        let all = watcher.verdicts()
        return all.count == 1 ? all[0] : nil
    }
}

final class WeakBox {
    weak var object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}
