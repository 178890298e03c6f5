import Foundation
import LeakTracking
import RetainGraph
import Testing

/// What discoverers were called with, in call order.
final class DiscoveryLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []

    func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    var all: [String] { lock.withLock { entries } }
}

@Suite("Reference discovery: one argument on a watcher, a process-wide registry")
struct DiscoveryTests {
    /// A watcher over the harness's graph and clock whose discovery is `discovery`.
    private func watcher(_ harness: Harness, _ discovery: ReferenceDiscovery) -> LeakWatcher {
        LeakWatcher(
            graph: harness.graph, clock: harness.clock, defaultGrace: .seconds(1),
            discovery: discovery)
    }

    @Test(
        "A discoverer registered after the watcher was made runs at its next check, not after unregistering"
    )
    func registryIsReadAtEachCheck() throws {
        let harness = Harness()
        let registry = DiscoveryRegistry()
        let watcher = watcher(harness, .registered(in: registry))
        let owner = Owner()
        watcher.expectDeallocation(of: owner, reason: "closed")
        harness.expireGrace()
        let log = DiscoveryLog()
        #expect(watcher.verdicts().first?.verdict == .leak)
        #expect(log.all.isEmpty)

        registry.register(
            ClosureDiscoverer { _, request in log.append("census \(request.watched.count)") },
            named: "census", order: .heapCensus)
        _ = watcher.verdicts()
        #expect(log.all == ["census 1"])

        #expect(registry.unregister(named: "census"))
        #expect(!registry.unregister(named: "census"))
        _ = watcher.verdicts()
        #expect(log.all == ["census 1"])
        withExtendedLifetime(owner) {}
    }

    @Test("A default watcher consults the shared registry")
    func defaultWatcherUsesSharedRegistry() throws {
        let harness = Harness()
        let watcher = LeakWatcher(graph: harness.graph, clock: harness.clock)
        let owner = Owner()
        watcher.expectDeallocation(of: owner, within: .seconds(1), reason: "closed")
        harness.expireGrace()
        let log = DiscoveryLog()
        let name = "DiscoveryTests.\(UUID())"
        // Acts only on this test's graph, so other tests' watchers are unaffected.
        let graph = harness.graph
        DiscoveryRegistry.shared.register(
            ClosureDiscoverer { _, request in
                if request.graph === graph { log.append("shared") }
            }, named: name, order: .custom)
        defer { DiscoveryRegistry.shared.unregister(named: name) }
        _ = watcher.verdicts()
        #expect(log.all == ["shared"])
        withExtendedLifetime(owner) {}
    }

    @Test("Discoverers run in their order, each seeing what the earlier ones added")
    func discoverersCompose() throws {
        let harness = Harness()
        let registry = DiscoveryRegistry()
        let log = DiscoveryLog()
        let root = harness.graph.registerRoot(.process)
        // Registered first, but ordered after reflection.
        registry.register(
            ClosureDiscoverer { additions, _ in
                let seen = additions.references(from: root).count
                log.append("census sees \(seen)")
            }, named: "census", order: .heapCensus)
        let reflection = ClosureDiscoverer { additions, request in
            log.append("reflection")
            for watched in request.watched {
                additions.addReference(
                    from: root, to: watched.id, ownership: .strong, role: .declared("found"),
                    origin: .reflection)
            }
        }
        let discovery = ReferenceDiscovery.registered(in: registry)
            .adding(reflection, named: "reflection", order: .reflection)
        #expect(discovery.steps().map(\.name) == ["reflection", "census"])
        let watcher = watcher(harness, discovery)
        let owner = Owner()
        watcher.expectDeallocation(of: owner, reason: "closed")
        harness.expireGrace()
        let report = try #require(watcher.verdicts().first?.report)
        // The root declares nothing: the one reference the census sees is reflection's.
        #expect(log.all == ["reflection", "census sees 1"])
        #expect(report.retention == .rootPath)
        #expect(report.path.last?.isDiscovered == true)
        withExtendedLifetime(owner) {}
    }

    @Test("A discoverer added under a registered name replaces it; registering twice keeps one")
    func namesAreUnique() {
        let registry = DiscoveryRegistry()
        registry.register(ClosureDiscoverer { _, _ in }, named: "a", order: .custom)
        registry.register(ClosureDiscoverer { _, _ in }, named: "b", order: .reflection)
        registry.register(ClosureDiscoverer { _, _ in }, named: "a", order: .heapCensus)
        #expect(registry.names == ["b", "a"])
        let discovery = ReferenceDiscovery.registered(in: registry)
            .adding(ClosureDiscoverer { _, _ in }, named: "b", order: .custom)
        #expect(discovery.steps().map(\.name) == ["a", "b"])
        #expect(ReferenceDiscovery.none.steps().isEmpty)
        #expect(ReferenceDiscovery.none.isEmpty)
    }

    @Test("The request holds the live watched objects themselves, with their graph identities")
    func requestCarriesObjects() throws {
        let harness = Harness()
        let log = DiscoveryLog()
        let watcher = watcher(
            harness,
            .none.adding(
                ClosureDiscoverer { _, request in
                    for watched in request.watched {
                        log.append("\(watched.id) \(ObjectIdentifier(watched.object))")
                    }
                }, named: "spy", order: .custom))
        let alive = Owner()
        var dead: Owner? = Owner()
        watcher.expectDeallocation(of: alive, reason: "closed")
        _ = harness.expectDeath(of: &dead)
        harness.expireGrace()
        _ = watcher.verdicts()
        let aliveID = try #require(harness.graph.id(of: alive))
        #expect(log.all == ["\(aliveID) \(ObjectIdentifier(alive))"])
        withExtendedLifetime(alive) {}
    }

    @Test("The watcher keeps no watched object alive once discovery is done")
    func noStrongReferenceAfterCheck() {
        let harness = Harness()
        let watcher = watcher(
            harness, .none.adding(ClosureDiscoverer { _, _ in }, named: "noop", order: .custom))
        var owner: Owner? = Owner()
        let box = WeakBox(owner)
        if let owner { watcher.expectDeallocation(of: owner, reason: "closed") }
        harness.expireGrace()
        #expect(watcher.verdicts().first?.verdict == .leak)
        owner = nil
        #expect(box.object == nil)
        #expect(watcher.verdicts().first?.verdict == .ok)
    }

    @Test("Request identities: graph objects keep theirs, an unknown object gets one shared id")
    func requestIdentities() {
        let graph = LiveGraph()
        let known = Owner()
        let knownID = graph.register(known)
        let unknown = Owner()
        let request = DiscoveryRequest(graph: graph, watched: [])
        #expect(request.id(of: known) == knownID)
        let first = request.id(of: unknown)
        #expect(request.id(of: unknown) == first)
        #expect(first.rawValue >= 1 << 62)
        #expect(DiscoveryRequest(graph: graph, watched: []).id(of: unknown) != first)
    }
}
