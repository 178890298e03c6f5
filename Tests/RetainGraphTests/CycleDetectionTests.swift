import RetainGraph
import Testing
import _TestSupport

@Suite("Strongly connected components and cycles")
struct CycleDetectionTests {
    /// A cycle through `length` objects whose type names are rotated so the alphabetically
    /// first one sits at `lowestAt`.
    static func rotatedCycle(length: Int, lowestAt: Int) -> (GraphBuilder, [ObjectID]) {
        var graph = GraphBuilder()
        let names = (0..<length).map { position in
            "App.T" + String(1_000_000 + (position - lowestAt + length) % length)
        }
        let ids = graph.cycle(names)
        return (graph, ids)
    }

    @Test("A cycle of every length from 2 to 200 is found whole, once")
    func everyShortCycleIsFound() {
        for length in 2...200 {
            let (graph, ids) = Self.rotatedCycle(length: length, lowestAt: length / 2)
            let components = graph.snapshot.stronglyConnectedComponents()
            #expect(components.cycles == [ids.sorted()], "length \(length)")
        }
    }

    @Test(
        "A long cycle is found and rotated to start at the first type name",
        arguments: [2, 3, 7, 64, 255, 500, 1_000])
    func longCycleCanonicalRotation(length: Int) throws {
        let lowestAt = length * 2 / 3
        let (graph, ids) = Self.rotatedCycle(length: length, lowestAt: lowestAt)
        let snapshot = graph.snapshot
        let components = snapshot.stronglyConnectedComponents()
        #expect(components.cycles.count == 1)
        #expect(components.cycles.first?.count == length)
        for asked in [ids[0], ids[length / 2], ids[length - 1], ids[lowestAt]] {
            let cycle = try #require(snapshot.cycle(through: asked, components: components))
            #expect(cycle.count == length)
            #expect(isClosedLoop(cycle))
            #expect(cycle.first?.from == ids[lowestAt], "asked through \(asked)")
            #expect(components.isInCycle(asked))
        }
    }

    @Test("Cycles of identical types rotate to the same start whichever member is asked")
    func identicalTypesRotateCanonically() throws {
        var graph = GraphBuilder()
        let ids = graph.cycle(Array(repeating: "App.Node", count: 50))
        let snapshot = graph.snapshot
        let components = snapshot.stronglyConnectedComponents()
        let starts = try ids.map { id in
            try #require(snapshot.cycle(through: id, components: components)).first?.from
        }
        #expect(Set(starts).count == 1)
        #expect(starts.first == ids.min())
    }

    @Test("A self-loop is a cycle of one; a weak self-loop is not")
    func selfLoops() throws {
        var graph = GraphBuilder()
        let selfish = graph.object("App.Selfish")
        let weakling = graph.object("App.Weakling")
        graph.strong(selfish, selfish, .storedProperty(name: "me"))
        graph.weak(weakling, weakling, .storedProperty(name: "me"))
        let snapshot = graph.snapshot
        let components = snapshot.stronglyConnectedComponents()
        #expect(components.cycles == [[selfish]])
        #expect(components.isInCycle(selfish))
        #expect(!components.isInCycle(weakling))
        let cycle = try #require(snapshot.cycle(through: selfish))
        #expect(cycle.count == 1 && cycle[0].from == selfish && cycle[0].to == selfish)
        #expect(snapshot.cycle(through: weakling) == nil)
    }

    @Test(
        "Weak and unowned back-edges do not make cycles", arguments: [Ownership.weak, .unowned])
    func nonStrongBackEdges(kind: Ownership) {
        var graph = GraphBuilder()
        let ids = graph.chain(10, typeName: "App.Parent")
        graph.edge(ids[9], ids[0], ownership: kind, .storedProperty(name: "parent"))
        graph.edge(ids[1], ids[0], ownership: kind, .capture(name: "self"))
        let snapshot = graph.snapshot
        let components = snapshot.stronglyConnectedComponents()
        #expect(components.cycles.isEmpty)
        #expect(ids.allSatisfy { snapshot.cycle(through: $0) == nil })
        #expect(components.component(containing: ids[0]) == [ids[0]])
    }

    @Test("Nested cycles: the shortest cycle through each node is reported")
    func nestedCycles() throws {
        // Outer: a ⇒ b ⇒ c ⇒ d ⇒ a; inner chord b ⇒ a.
        var graph = GraphBuilder()
        let ids = graph.cycle(["App.A", "App.B", "App.C", "App.D"])
        graph.strong(ids[1], ids[0], .storedProperty(name: "chord"))
        let snapshot = graph.snapshot
        let components = snapshot.stronglyConnectedComponents()
        #expect(components.cycles == [ids])
        let throughA = try #require(snapshot.cycle(through: ids[0], components: components))
        #expect(throughA.count == 2)
        #expect(isClosedLoop(throughA))
        let throughC = try #require(snapshot.cycle(through: ids[2], components: components))
        #expect(throughC.count == 4)
        #expect(isClosedLoop(throughC))
        #expect(throughC.first?.from == ids[0])
    }

    @Test("Overlapping cycles sharing one node form one component; a one-way bridge does not")
    func overlappingAndBridgedCycles() throws {
        var graph = GraphBuilder()
        let left = graph.cycle(["App.Hub", "App.L1", "App.L2"])
        let hub = left[0]
        let r1 = graph.object("App.R1")
        graph.strong(hub, r1)
        graph.strong(r1, hub)
        let other = graph.cycle(["App.X", "App.Y"])
        graph.strong(r1, other[0], .storedProperty(name: "bridge"))
        let snapshot = graph.snapshot
        let components = snapshot.stronglyConnectedComponents()
        #expect(Set(components.cycles) == [(left + [r1]).sorted(), other.sorted()])
        #expect(components.component(containing: r1) == (left + [r1]).sorted())
        #expect(try #require(snapshot.cycle(through: hub)).count == 2)
        #expect(try #require(snapshot.cycle(through: left[1])).count == 3)
        #expect(try #require(snapshot.cycle(through: other[1])).count == 2)
    }

    @Test("A 200,000-node cycle and chain are analysed without recursion")
    func hugeCycleDoesNotBlowTheStack() throws {
        let count = 200_000
        var graph = GraphBuilder()
        let root = graph.root()
        let ids = graph.chain(count, typeName: "App.Link")
        graph.strong(root, ids[0], .registryEntry(name: "head"))
        graph.strong(ids[count - 1], ids[0], .storedProperty(name: "loop"))
        let tail = graph.chain(count / 4, typeName: "App.Tail")
        graph.strong(ids[count - 1], tail[0], .storedProperty(name: "tail"))
        let snapshot = graph.snapshot
        let components = snapshot.stronglyConnectedComponents()
        #expect(components.cycles.count == 1)
        #expect(components.cycles.first?.count == count)
        let paths = snapshot.shortestRootPaths()
        #expect(paths.path(to: tail[count / 4 - 1])?.count == count + count / 4)
        let cycle = try #require(snapshot.cycle(through: ids[count / 2], components: components))
        #expect(cycle.count == count)
        // Every reference reads "App.Link .next" but the closing ".loop", which sorts first.
        #expect(cycle.first?.from == ids[count - 1])
        #expect(isClosedLoop(cycle))
    }
}
