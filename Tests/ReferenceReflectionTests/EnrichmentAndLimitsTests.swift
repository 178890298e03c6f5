import ReferenceReflection
import RetainGraph
import Testing

@Suite("Enriching snapshots and bounding walks")
struct EnrichmentAndLimitsTests {
    @Test("enriching adds discovered nodes and references; a declared duplicate is kept once")
    func enrichKeepsDeclaredAndAddsDiscovered() throws {
        let graph = LiveGraph()
        let declaredLeaf = Leaf()
        let unknownLeaf = Leaf()
        let zoo = FieldZoo(
            strong: declaredLeaf, optional: unknownLeaf, weak: nil, unowned: declaredLeaf,
            unsafe: declaredLeaf, inherited: nil)
        let zooID = graph.register(zoo)
        let leafID = graph.register(declaredLeaf)
        graph.addReference(
            from: zooID, to: leafID, ownership: .strong, role: .storedProperty(name: "strong"),
            creationTrace: nil, isDiscovered: false)
        let snapshot = graph.snapshot()
        let enriched = ReferenceWalker(graph: graph).enrich(snapshot, objects: [zoo])

        let toStrong = enriched.references(from: zooID).filter {
            $0.role == .storedProperty(name: "strong")
        }
        #expect(toStrong.count == 1)
        #expect(toStrong.first?.isDiscovered == false)
        let toUnknown = try #require(
            enriched.references(from: zooID).first { $0.role == .storedProperty(name: "optional") })
        #expect(toUnknown.isDiscovered)
        #expect(enriched.node(toUnknown.to)?.typeName == "ReferenceReflectionTests.Leaf")
        #expect(enriched.nodes.count == snapshot.nodes.count + 1)
        #expect(
            enriched.references(from: zooID).contains {
                $0.role == .storedProperty(name: "unownedRef") && $0.ownership == .unowned
            })
    }

    @Test("an empty walk result leaves the snapshot as declared")
    func emptyResultChangesNothing() {
        let graph = LiveGraph()
        graph.register(Leaf("kept alive by nothing"))
        let snapshot = graph.snapshot()
        let empty = WalkResult(
            nodes: [], references: [], diagnostics: [], rootIDs: [], objectsRead: 0,
            isComplete: true)
        let enriched = snapshot.addingDiscoveredReferences(from: empty)
        #expect(enriched.nodes == snapshot.nodes)
        #expect(enriched.references == snapshot.references)
    }

    @Test("the object limit stops the walk, keeps what was found and says so")
    func objectLimit() {
        let chain = Chain.make(length: 50)
        let result = ReferenceWalker(graph: nil, limits: WalkLimits(maxObjects: 10)).walk(from: [
            chain
        ])
        #expect(result.objectsRead == 10)
        #expect(!result.isComplete)
        #expect(result.diagnostics.contains { $0.kind == .limitReached })
        #expect(result.references.count >= 9)
    }

    @Test("the depth limit reads objects up to that many references from the roots")
    func depthLimit() {
        let chain = Chain.make(length: 20)
        let result = ReferenceWalker(graph: nil, limits: WalkLimits(maxDepth: 3)).walk(from: [chain]
        )
        #expect(result.objectsRead == 4)
        #expect(result.references.count == 4)
        #expect(!result.isComplete)
    }

    @Test("a spent time budget reads nothing but still names the roots")
    func timeLimit() {
        let chain = Chain.make(length: 5)
        let result = ReferenceWalker(graph: nil, limits: WalkLimits(maxDuration: .zero)).walk(
            from: [chain])
        #expect(result.objectsRead == 0)
        #expect(result.rootIDs.count == 1)
        #expect(!result.isComplete)
    }

    @Test("weakly held objects are read only when the limits ask for it")
    func followingWeakReferences() {
        let chain = Chain.make(length: 3)
        let link = WeakLink(chain)
        let byDefault = ReferenceWalker(graph: nil).walk(from: [link])
        #expect(byDefault.objectsRead == 1)
        #expect(byDefault.references.map(\.ownership) == [.weak])
        let following = ReferenceWalker(graph: nil, limits: WalkLimits(followsWeakReferences: true))
            .walk(from: [link])
        #expect(following.objectsRead == 4)
        #expect(following.references.count == 3)
    }

    @Test("the walker reports itself supported on this platform")
    func supported() {
        #expect(ReferenceWalker.isSupported)
    }
}
