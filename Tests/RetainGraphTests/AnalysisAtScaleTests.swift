import RetainGraph
import Testing

/// The analysis of large graphs, the way a user asks: a live graph, its snapshot, `analyze()`,
/// and the snapshot's compact graph for analyses of one's own.
@Suite("Analysis at scale")
struct AnalysisAtScaleTests {
    final class Item {}

    /// A snapshot of `count` nodes: a chain from one root through every node, the last ten
    /// nodes closing a cycle, plus a cycle of two no root reaches.
    static func chain(count: Int) -> (GraphSnapshot, [ObjectID]) {
        let ids = (1...count).map { ObjectID(rawValue: UInt64($0)) }
        let root = ObjectID(rawValue: UInt64(count + 1))
        var nodes = ids.map { Node(id: $0, typeName: "App.Item") }
        nodes.append(Node(id: root, typeName: "RunLoop", kind: .root(.runLoop(thread: "main"))))
        var references = [Reference(from: root, to: ids[0], ownership: .strong, role: .target)]
        for index in 1..<(count - 2) {
            references.append(
                Reference(
                    from: ids[index - 1], to: ids[index], ownership: .strong,
                    role: .storedProperty(name: "next")))
        }
        references.append(
            Reference(
                from: ids[count - 3], to: ids[count - 12], ownership: .strong,
                role: .storedProperty(name: "back")))
        // The last two nodes hold each other and nothing holds them.
        references.append(
            Reference(from: ids[count - 2], to: ids[count - 1], ownership: .strong, role: .target))
        references.append(
            Reference(from: ids[count - 1], to: ids[count - 2], ownership: .strong, role: .target))
        return (GraphSnapshot(nodes: nodes, references: references), ids)
    }

    @Test("A snapshot above the concurrent threshold is analysed like a small one")
    func largeSnapshotAnalysis() throws {
        let count = RetentionAnalysis.concurrentAnalysisThreshold + 10
        let (snapshot, ids) = Self.chain(count: count)
        let analysis = snapshot.analyze()
        let last = ids[count - 3]
        let retention = analysis.retention(of: last)
        #expect(retention.rootPath?.count == count - 2)
        #expect(retention.cycle?.count == 10)
        #expect(analysis.retention(of: ids[10]).cycle == nil)
        #expect(analysis.retention(of: ids[count - 1]).rootPath == nil)
        #expect(analysis.retention(of: ids[count - 1]).cycle?.count == 2)
        #expect(analysis.components.cycles.count == 2)
    }

    @Test("Components and root paths on two threads equal the two computed one after the other")
    func concurrentAnalysisMatchesSequential() {
        let (snapshot, _) = Self.chain(count: 5_000)
        let graph = snapshot.graph
        let (components, tree) = graph.componentsAndPathsConcurrently()
        let sequential = graph.strongComponents()
        let sequentialTree = graph.paths()
        #expect(components.count == sequential.count)
        let nodes = 0..<UInt32(graph.nodeCount)
        let differentComponents = nodes.filter {
            components.component(of: $0) != sequential.component(of: $0)
        }
        let differentPaths = nodes.filter {
            tree.isReachable($0) != sequentialTree.isReachable($0)
                || ($0 % 97 == 0 && tree.path(to: $0)?.count != sequentialTree.path(to: $0)?.count)
        }
        #expect(differentComponents.isEmpty)
        #expect(differentPaths.isEmpty)
        // Nodes are numbered by identity: node 4,997 is the chain's last.
        #expect(tree.path(to: 4_997)?.count == 4_998)
    }

    @Test("A live graph's snapshot exposes its compact graph, keyed by object identity")
    func snapshotGraphIsKeyedByIdentity() throws {
        let graph = LiveGraph()
        let items = (0..<3).map { _ in Item() }
        let ids = items.map { graph.register($0) }
        graph.addReference(
            from: ids[0], to: ids[1], ownership: .strong, role: .storedProperty(name: "a"))
        graph.addReference(
            from: ids[1], to: ids[0], ownership: .strong, role: .storedProperty(name: "b"))
        graph.addReference(
            from: ids[1], to: ids[2], ownership: .weak, role: .storedProperty(name: "c"))
        let compact = graph.snapshot().graph
        let components = compact.strongComponents()
        let cycles = components.cycles.map { cycle in
            components.members(of: cycle).map { ObjectID(rawValue: compact.key(of: $0)) }
        }
        #expect(cycles == [[ids[0], ids[1]]])
        let node = try #require(
            (0..<UInt32(compact.nodeCount)).first { compact.key(of: $0) == ids[2].rawValue })
        #expect(compact.incoming(to: node).map { compact.ownership(ofEdge: $0.edge) } == [.weak])
        #expect(compact.pathFromRoot(to: node) == nil)
        withExtendedLifetime(items) {}
    }
}
