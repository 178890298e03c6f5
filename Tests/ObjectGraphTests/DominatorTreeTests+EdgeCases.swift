import ObjectGraph
import Testing

/// The cases the search's shortcuts must get right (roots reached again, leaves, parallel
/// edges, rows longer than the first target), and larger graphs against a second algorithm.
extension DominatorTreeTests {
    @Test("Nodes reached only through weak or unowned references are unreachable")
    func weakOnlyReachability() {
        // root 0 -> 1; 1 ~weak~> 2 -> 3; 1 ~unowned~> 4; 0 ~unowned(unsafe)~> 5.
        let graph = DominatorFixtures.graph(
            sizes: [1, 2, 4, 8, 16, 32], roots: [0], strong: [(0, 1), (2, 3)],
            other: [(1, 2, .weak), (1, 4, .unowned), (0, 5, .unownedUnsafe)])
        let tree = graph.dominatorTree()
        for node: UInt32 in [2, 3, 4, 5] {
            #expect(!tree.isReachable(node))
            #expect(tree.retainedSize(of: node) == 0)
            #expect(tree.immediateDominator(of: node) == nil)
        }
        #expect(tree.retainedSize(of: 0) == 3)
        #expect(tree.reachableCount == 2)
    }

    @Test("Conservative references retain: a node held only through them has a dominator")
    func conservativeReferencesRetain() {
        // root 0 -> 1 ~conservative~> 2 ~conservative~> 3; 0 ~conservative~> 4 -> 3.
        let graph = DominatorFixtures.graph(
            sizes: [1, 2, 4, 8, 16], roots: [0], strong: [(0, 1), (4, 3)],
            other: [(1, 2, .conservative), (2, 3, .conservative), (0, 4, .conservative)])
        let tree = graph.dominatorTree()
        #expect(tree.immediateDominator(of: 2) == 1)
        #expect(tree.immediateDominator(of: 3) == 0)
        #expect(tree.immediateDominator(of: 4) == 0)
        #expect(tree.retainedSize(of: 1) == 6)
        #expect(tree.reachableBytes == 31)
    }

    @Test("A graph without references: roots retain themselves, the rest is unreachable")
    func graphWithoutReferences() {
        let graph = DominatorFixtures.graph(sizes: [5, 6, 7], roots: [2, 0], strong: [])
        let tree = graph.dominatorTree()
        #expect(tree.retainedSize(of: 0) == 5)
        #expect(tree.retainedSize(of: 2) == 7)
        #expect(tree.immediateDominator(of: 0) == nil)
        #expect(!tree.isReachable(1))
        #expect(tree.reachableCount == 2)
        let empty = DominatorFixtures.graph(sizes: [], roots: [], strong: []).dominatorTree()
        #expect(empty.reachableCount == 0)
        #expect(empty.bytes == 0)
        #expect(!empty.isReachable(0))
    }

    @Test("Parallel references, cycles through a root and a root held by a later node")
    func parallelEdgesAndCyclesThroughRoots() {
        // Roots 0 and 3. 0 -> 1 twice, 1 -> 2 -> 0 (back to the root), 2 -> 3 (a later root),
        // 3 -> 4, 1 -> 4 -> 1; 4 -> 5 -> 5.
        let graph = DominatorFixtures.graph(
            sizes: [1, 2, 4, 8, 16, 32], roots: [0, 3],
            strong: [
                (0, 1), (0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (1, 4), (4, 1), (4, 5), (5, 5),
            ])
        let tree = graph.dominatorTree()
        #expect(tree.immediateDominator(of: 0) == nil)
        #expect(tree.immediateDominator(of: 3) == nil)
        #expect(tree.immediateDominator(of: 1) == nil)  // from root 0, and from root 3 via 4
        #expect(tree.immediateDominator(of: 2) == 1)
        #expect(tree.immediateDominator(of: 4) == nil)  // from root 3, and from root 0 via 1
        #expect(tree.immediateDominator(of: 5) == 4)
        #expect(tree.retainedSize(of: 4) == 48)
        #expect(tree.retainedCount(of: 1) == 2)
        #expect(tree.reachableBytes == 63)
    }

    @Test("Dense random graphs with conservative edges match the iterative algorithm")
    func denseRandomGraphsMatchTheIterativeAlgorithm() {
        for seed in 1...6 as ClosedRange<UInt64> {
            let graph = Self.denseGraph(nodes: 1_500 * Int(seed), seed: seed)
            let tree = graph.dominatorTree()
            let expected = DominatorFixtures.iterativeDominators(graph)
            var mismatches = 0
            var dominatedByANode = 0
            for node in 0..<graph.nodeCount {
                let id = UInt32(node)
                let idom = expected.idom[node].flatMap { $0 == graph.nodeCount ? nil : UInt32($0) }
                if idom != nil { dominatedByANode += 1 }
                if tree.isReachable(id) != (expected.idom[node] != nil)
                    || tree.immediateDominator(of: id) != idom
                    || tree.retainedCount(of: id) != expected.counts[node]
                    || tree.retainedSize(of: id) != expected.bytes[node]
                {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0, "seed \(seed)")
            #expect(dominatedByANode > graph.nodeCount / 10, "seed \(seed): too little structure")
        }
    }

    /// One to nine references per node (so rows reach past the first target), one in ten
    /// conservative and one in eight weak, one node in ten holding nothing; node 0 and up to
    /// five others are roots.
    static func denseGraph(nodes count: Int, seed: UInt64) -> CompactGraph {
        var random = DominatorFixtures.Random(seed: seed &* 7_919)
        var builder = CompactGraph.Builder()
        for node in 0..<count {
            builder.addNode(kind: .object, typeName: "T\(node % 5)", size: 1 + random.below(300))
        }
        let roots = Set([0] + (0..<random.below(6)).map { _ in random.below(count) })
        for root in roots.sorted() { builder.addRoot(UInt32(root), name: "root \(root)") }
        // Roots always hold something; one other node in ten holds nothing.
        for from in 0..<count where roots.contains(from) || random.below(10) != 0 {
            for _ in 0...random.below(8) {
                let near = min(from + 1 + random.below(8), count - 1)
                let to = random.below(3) == 0 ? random.below(count) : near
                let roll = random.below(40)
                let ownership: Ownership =
                    roll < 4 ? .conservative : roll < 9 ? .weak : roll == 9 ? .unowned : .strong
                builder.addEdge(
                    from: UInt32(from), to: UInt32(to), ownership: ownership, role: .declared("e"))
            }
        }
        return builder.build(numberingForLocality: seed % 2 == 1)
    }

    @Test("A word of task memory retains only what nothing else reaches")
    func lastResortEdgesRetainOnlyWhatNothingElseReaches() throws {
        // Roots 0 (a task) and 1. 1 -> 2 -> 3; the task's memory ~> 3 (stale: 2 holds it)
        // and ~> 4 (nothing else holds 4).
        var builder = CompactGraph.Builder()
        for size in [1, 2, 4, 8, 16] { builder.addNode(kind: .object, typeName: "N", size: size) }
        builder.addRoot(0, name: "task")
        builder.addRoot(1, name: "global")
        builder.addEdge(from: 1, to: 2, ownership: .strong, role: .declared("a"))
        builder.addEdge(from: 2, to: 3, ownership: .strong, role: .declared("b"))
        for target: UInt32 in [3, 4] {
            builder.addEdge(from: 0, to: target, ownership: .conservative, role: .runs)
            builder.edgeFlags[builder.edgeFlags.count - 1] = CompactGraph.lastResort(
                builder.edgeFlags[builder.edgeFlags.count - 1])
        }
        let graph = builder.build(numberingForLocality: false)
        #expect(graph.redundantLastResortEdges().map { graph.target(of: $0) } == [3])
        let tree = graph.dominatorTree()
        #expect(tree.immediateDominator(of: 3) == 2)
        #expect(tree.immediateDominator(of: 4) == 0)
        #expect(tree.retainedSize(of: 0) == 1 + 16)
        #expect(tree.retainedSize(of: 1) == 2 + 4 + 8)
        #expect(tree.reachableCount == 5)
    }

}
