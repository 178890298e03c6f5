import Dispatch
import Foundation
import RetainGraph
import Synchronization
import Testing
import _TestSupport

@testable import TrackedTimers

/// An owner that registers a repeating task in a registry and cancels it by name when asked
/// (the seed cancels in `dealloc`, which a strong capture never lets run).
final class DTRegistryClient: @unchecked Sendable {
    let ticks = Atomic<Int>(0)
    var timerName: String?

    func start(in registry: TimerRegistry, capture: Ownership) throws {
        if capture == .strong {
            timerName = try registry.schedule(
                interval: 0.001, repeats: true, capturing: self, as: .strong
            ) { self.ticks.add(1, ordering: .relaxed) }
        } else {
            timerName = try registry.schedule(
                interval: 0.001, repeats: true, capturing: self, as: .weak
            ) { [weak self] in self?.ticks.add(1, ordering: .relaxed) }
        }
    }
}

/// S18a/S18b: the edges a registry records, before and after the owner is released.
@Suite("TimerRegistry graph edges (S18)")
struct TimerRegistryGraphTests {
    @Test func sharedRegistryIsAProcessRoot() {
        let shared = TimerRegistry.shared
        #expect(shared.name == "TimerRegistry.shared")
        if LiveGraph.shared.isEnabled, let id = LiveGraph.shared.id(of: shared) {
            let kind = LiveGraph.shared.snapshot().node(id)?.kind
            let expected: NodeKind = .root(.custom(name: "TimerRegistry.shared"))
            #expect(kind == expected)
        }
    }

    @Test func s18aStrongTaskStillRegisteredKeepsItsOwnerOnARootPath() throws {
        let graph = LiveGraph()
        let registry = TimerRegistry(name: "app timers", isRoot: true, graph: graph)
        weak var weakClient: DTRegistryClient?
        do {
            let client = DTRegistryClient()
            weakClient = client
            try client.start(in: registry, capture: .strong)
        }
        #expect(weakClient != nil, "S18a: the owner leaks while registered")
        let (name, timerID, ownerID) = try inspectS18a(
            try #require(weakClient), registry: registry, graph: graph)
        let entryRole: ReferenceRole = .registryEntry(name: name)

        // S18b: cancel by name, and the edges are gone and the owner dies.
        #expect(registry.cancel(name))
        let after = graph.snapshot()
        #expect(!after.references.contains { $0.role == entryRole })
        #expect(!after.references.contains { $0.role == .resumed })
        #expect(after.references(from: timerID).isEmpty)
        let retentionAfter = after.analyze().retention(of: ownerID)
        #expect(retentionAfter == .unexplained)
        #expect(waitUntil { weakClient == nil }, "S18b: OK after cancel by name")
        #expect(waitUntil { graph.snapshot().nodes.allSatisfy { $0.kind != .timer } })
    }

    /// S18a: registry[root] ⇒ timer ⇒ task ⇒ owner while the task stays registered.
    ///
    /// - Returns: The timer's name, the timer's and the owner's nodes.
    func inspectS18a(_ client: DTRegistryClient, registry: TimerRegistry, graph: LiveGraph)
        throws -> (String, ObjectID, ObjectID)
    {
        #expect(waitUntil { client.ticks.load(ordering: .relaxed) >= 2 })
        let name = try #require(client.timerName)
        let timerID = try #require(registry.timer(named: name)?.graphID)
        let ownerID = try #require(graph.id(of: client))

        let snapshot = graph.snapshot()
        let registryID = try #require(graph.id(of: registry))
        let registryKind: NodeKind = .root(.custom(name: "app timers"))
        #expect(snapshot.node(registryID)?.kind == registryKind)
        let entry = try #require(snapshot.references(from: registryID).first)
        let entryRole: ReferenceRole = .registryEntry(name: name)
        #expect(entry.role == entryRole)
        #expect(entry.to == timerID)
        #expect(entry.ownership == .strong)
        let roles: [ReferenceRole] = snapshot.references(from: timerID).map(\.role)
        #expect(roles.contains(.actionClosure))
        let path = try #require(snapshot.analyze().retention(of: ownerID).rootPath)
        #expect(path.count == 3)
        let last = try #require(path.last)
        let first = try #require(path.first)
        let capture: ReferenceRole = .capture(name: "self")
        #expect(last.role == capture)
        #expect(last.ownership == .strong)
        let starts: [ReferenceRole] = [entryRole, .resumed]
        #expect(starts.contains(first.role))
        return (name, timerID, ownerID)
    }

    @Test func weakTaskCaptureLetsTheOwnerDieWhileRegistered() throws {
        let graph = LiveGraph()
        let registry = TimerRegistry(isRoot: true, graph: graph)
        weak var weakClient: DTRegistryClient?
        var name: String?
        do {
            let client = DTRegistryClient()
            weakClient = client
            try client.start(in: registry, capture: .weak)
            name = client.timerName
            let ownerID = try #require(graph.id(of: client))
            let capture = try #require(graph.snapshot().references(to: ownerID).first)
            let captureRole: ReferenceRole = .capture(name: "self")
            #expect(capture.role == captureRole)
            #expect(capture.ownership == .weak)
        }
        #expect(waitUntil { weakClient == nil })
        // The registered timer itself is still live (nobody cancelled it): the graph says so.
        let registered = try #require(name)
        #expect(registry.contains(registered))
        registry.cancelAll()
        #expect(graph.snapshot().references.isEmpty)
    }

    @Test func privateRegistryIsAnOrdinaryObjectNode() throws {
        let graph = LiveGraph()
        let registry = TimerRegistry(graph: graph)
        let id = try #require(graph.id(of: registry))
        let kind = graph.snapshot().node(id)?.kind
        #expect(kind == .object)
        let name = try registry.schedule(start: 60, interval: 1, repeats: true) {}
        let timerID = try #require(registry.timer(named: name)?.graphID)
        #expect(graph.snapshot().node(timerID)?.label == name)
        registry.cancelAll()
    }
}
