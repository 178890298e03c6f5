import HeapCensus
import ReferenceReflection
import RetainGraph
import Testing

/// Declared references, what reflection reads and what the census reads, added to one builder
/// and built into one graph, on which every analysis runs.
@Suite(.serialized) struct OneGraphTests {
    @Test func declaredReflectedAndCensusReferencesJoinInOneGraph() throws {
        HeapCensus.start()
        let graph = LiveGraph()
        let app = graph.registerRoot(.custom(name: "app"))
        let holder = GraphHolder()
        let holderID = graph.register(holder)
        // Declared: the app holds the holder.
        graph.addReference(
            from: app, to: holderID, ownership: .strong, role: .storedProperty(name: "holder"))
        // Undeclared: the holder holds the owner, which is in a cycle with a partner, and a
        // global cache holds the owner too.
        let owner = GraphOwner()
        holder.owner = owner
        owner.partner = GraphPartner(owner: owner)
        graphCache.append(owner)
        defer {
            graphCache.removeAll()
            owner.partner = nil
        }
        let ownerID = graph.register(owner)

        var additions = GraphSnapshot.Builder()
        let request = DiscoveryRequest(
            graph: graph, watched: [WatchedObject(id: ownerID, object: owner)])
        // Reflection reads the owner, and the holder the test points it at.
        let reflection = ReflectionDiscoverer()
        reflection.walkAlso(from: holder)
        reflection.discoverReferences(into: &additions, for: request)
        CensusDiscoverer().discoverReferences(into: &additions, for: request)
        let snapshot = graph.snapshot(
            .retention(of: [ownerID] + additions.mentionedIDs), adding: additions)

        // One graph with references of all three origins.
        let origins = Set(snapshot.references.map(\.origin))
        #expect(origins == [.declared, .reflection, .heap])

        // Every analysis, on it.
        let analysis = snapshot.analyze()
        guard case .rootPathAndCycle(let path, let cycle) = analysis.retention(of: ownerID) else {
            Issue.record("the owner is not held by a path and a cycle")
            return
        }
        // The declared root is preferred to the census's global, though both reach the owner.
        #expect(path.first?.from == app)
        #expect(
            path.map(\.role) == [.storedProperty(name: "holder"), .storedProperty(name: "owner")])
        #expect(path.last?.origin == .reflection)
        #expect(cycle.count == 2)
        #expect(snapshot.stronglyConnectedComponents().isInCycle(ownerID))
        #expect(snapshot.cycle(through: ownerID) != nil)
        #expect(snapshot.shortestRootPaths().isReachable(ownerID))
        let compact = snapshot.graph
        let tree = compact.paths()
        let ownerNode = try #require(
            (0..<UInt32(compact.nodeCount)).first { compact.key(of: $0) == ownerID.rawValue })
        #expect(tree.priority(of: ownerNode) == .declared)
        // The census's holder is in the graph as a root of its own, named.
        #expect(
            compact.roots.contains {
                if case .heapHolder(.globalVariable(let name)) = $0.kind {
                    return name.contains("graphCache")
                }
                return false
            })
        #expect(!snapshot.fingerprint(of: ownerID, path: path, cycle: cycle).rawValue.isEmpty)
        withExtendedLifetime((holder, owner)) {}
    }
}

nonisolated(unsafe) var graphCache: [GraphOwner] = []

final class GraphHolder {
    var owner: GraphOwner?
}

final class GraphOwner {
    var partner: GraphPartner?
}

final class GraphPartner {
    let owner: GraphOwner
    init(owner: GraphOwner) { self.owner = owner }
}
