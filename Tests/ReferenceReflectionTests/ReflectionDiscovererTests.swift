import Foundation
import ReferenceReflection
import RetainGraph
import Testing
import TrackedTimers

/// Holds a closure that captures an owner; the owner does not know it.
final class OutsideHolder {
    var action: (() -> Void)?
}

/// Tells whether an ``OutsideHolder`` died.
final class WeakHolder {
    weak var object: OutsideHolder?
    init(_ object: OutsideHolder?) { self.object = object }
}

@Suite("ReflectionDiscoverer: the library's reflection for leak watchers")
struct ReflectionDiscovererTests {
    /// An owner whose timer property and the timer closure's capture are not declared.
    static func undeclaredOwner(graph: LiveGraph) throws -> (UndeclaredOwner, RunLoopTimer) {
        let owner = UndeclaredOwner()
        let timer = try RunLoopTimer(interval: 3600, repeats: true, graph: graph) { _ in
            owner.ticks += 1
        }
        owner.timer = timer
        return (owner, timer)
    }

    @Test("Walks from the request's watched objects: the property and the capture close a cycle")
    func discoversFromWatchedObjects() throws {
        let graph = LiveGraph()
        let (owner, timer) = try Self.undeclaredOwner(graph: graph)
        defer { timer.invalidate() }
        let ownerID = graph.register(owner)
        var snapshot = graph.snapshot()
        #expect(!snapshot.stronglyConnectedComponents().isInCycle(ownerID))
        let request = DiscoveryRequest(
            graph: graph, watched: [WatchedObject(id: ownerID, object: owner)])
        var additions = GraphSnapshot.Builder()
        ReflectionDiscoverer().discoverReferences(into: &additions, for: request)
        snapshot = snapshot.adding(additions)
        #expect(snapshot.stronglyConnectedComponents().isInCycle(ownerID))
        let toTimer = snapshot.references(from: ownerID).first {
            $0.role == .storedProperty(name: "timer")
        }
        #expect(toTimer?.isDiscovered == true)
        #expect(toTimer?.to == timer.graphID)
    }

    @Test("Leaves out the library's bookkeeping: no tracker, no graph, no lock box")
    func leavesOutBookkeeping() throws {
        let graph = LiveGraph()
        let (owner, timer) = try Self.undeclaredOwner(graph: graph)
        defer { timer.invalidate() }
        let ownerID = graph.register(owner)
        var snapshot = graph.snapshot()
        let request = DiscoveryRequest(
            graph: graph, watched: [WatchedObject(id: ownerID, object: owner)])
        var additions = GraphSnapshot.Builder()
        ReflectionDiscoverer().discoverReferences(into: &additions, for: request)
        snapshot = snapshot.adding(additions)
        let discovered = snapshot.references.filter(\.isDiscovered)
        #expect(!discovered.isEmpty)
        #expect(!discovered.contains { ($0.role.detail ?? "").hasPrefix("tracker") })
        #expect(!snapshot.nodes.contains { $0.typeName == "RetainGraph.LiveGraph" })
        #expect(!snapshot.nodes.contains { $0.typeName.hasPrefix("Locking.") })
        // The lock's storage is looked through: the timer's state holds the closure.
        #expect(
            discovered.contains {
                $0.from == timer.graphID
                    && $0.role
                        == .closureCapture(
                            property: "state.action.always", captured: "UndeclaredOwner")
            })
    }

    @Test("walkAlso(from:) reaches a holder the watched object cannot, and holds it weakly")
    func walkAlsoAddsHolders() throws {
        let graph = LiveGraph()
        let owner = UndeclaredOwner()
        let ownerID = graph.register(owner)
        var holder: OutsideHolder? = OutsideHolder()
        holder?.action = { owner.ticks += 1 }
        let reflection = ReflectionDiscoverer()
        let request = DiscoveryRequest(
            graph: graph, watched: [WatchedObject(id: ownerID, object: owner)])

        var before = graph.snapshot()
        var additions = GraphSnapshot.Builder()
        reflection.discoverReferences(into: &additions, for: request)
        before = before.adding(additions)
        #expect(before.references(to: ownerID).isEmpty)

        reflection.walkAlso(from: holder)
        var after = graph.snapshot()
        var moreAdditions = GraphSnapshot.Builder()
        reflection.discoverReferences(into: &moreAdditions, for: request)
        after = after.adding(moreAdditions)
        let holders = after.references(to: ownerID)
        #expect(holders.count == 1)
        #expect(
            holders.first?.role == .closureCapture(property: "action", captured: "UndeclaredOwner"))

        let gone = WeakHolder(holder)
        holder = nil
        #expect(gone.object == nil)
    }

    @Test("Objects the graph does not know get the request's identities, shared across walks")
    func sharedIdentities() throws {
        let graph = LiveGraph()
        let owner = UndeclaredOwner()
        let step = Leaf("step")
        // Two captures: the closure has a heap context of its own (a closure capturing one
        // object uses that object as its context, and has no identity to share).
        let timer = try RunLoopTimer(interval: 3600, repeats: true, graph: graph) { _ in
            owner.ticks += step.name.count
        }
        owner.timer = timer
        defer { timer.invalidate() }
        let ownerID = graph.register(owner)
        let request = DiscoveryRequest(
            graph: graph, watched: [WatchedObject(id: ownerID, object: owner)])
        func discoveredIDs(_ request: DiscoveryRequest) -> Set<ObjectID> {
            var snapshot = graph.snapshot()
            var additions = GraphSnapshot.Builder()
            ReflectionDiscoverer().discoverReferences(into: &additions, for: request)
            snapshot = snapshot.adding(additions)
            let closures = snapshot.nodes.filter { $0.kind == .closure }
            let leaves = snapshot.nodes.filter { $0.typeName.hasSuffix(".Leaf") }
            return Set((closures + leaves).map(\.id))
        }
        let first = discoveredIDs(request)
        #expect(first.count == 2)
        #expect(discoveredIDs(request) == first)
        let other = DiscoveryRequest(
            graph: graph, watched: [WatchedObject(id: ownerID, object: owner)])
        #expect(discoveredIDs(other).isDisjoint(with: first))
    }

    @Test(".reflection places the reflection discoverer at its order among the registered ones")
    func reflectionDiscovery() {
        let registry = DiscoveryRegistry()
        registry.register(
            ReflectionDiscoverer(), named: "early", order: DiscoveryOrder(rawValue: 1))
        let steps = ReferenceDiscovery.reflection.steps()
        #expect(steps.first?.name == "ReferenceReflection")
        #expect(steps.first?.order == .reflection)
        #expect(steps.first?.discoverer is ReflectionDiscoverer)
        let mine = ReferenceDiscovery.registered(in: registry)
            .addingReflection(ReflectionDiscoverer())
        #expect(mine.steps().map(\.name) == ["early", "ReferenceReflection"])
    }
}
