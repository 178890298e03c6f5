import ObjectGraph
import Testing

/// The dominator tree against its definition: a node's dominators are the nodes whose removal
/// cuts it off from every root; its retained set is what it dominates.
@Suite("Compact graph: dominator tree and retained sizes")
struct DominatorTreeTests {
    /// A random graph with cycles, weak and unowned edges, self loops, several roots (one held
    /// by another root) and nodes no root reaches. Edges mostly go to nearby nodes, so that
    /// chains and trees form and dominators are not all the virtual root.
    static func randomGraph(nodes count: Int, seed: UInt64) -> CompactGraph {
        var random = DominatorFixtures.Random(seed: seed)
        var builder = CompactGraph.Builder()
        for node in 0..<count {
            builder.addNode(
                kind: .object, typeName: "T\(node % 7)", size: 16 + Int(random.next() % 200))
        }
        let rootCount = 1 + Int(random.next() % 4)
        for root in 0..<rootCount {
            builder.addRoot(UInt32(random.next() % UInt64(count)), name: "root \(root)")
        }
        for from in 0..<count {
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let near = from + 1 + Int(random.next() % 5)
                let far = Int(random.next() % UInt64(count))
                let to = random.next() % 4 == 0 ? far : min(near, count - 1)
                let roll = random.next() % 20
                let ownership: Ownership =
                    roll < 2 ? .weak : roll == 2 ? .unowned : roll == 3 ? .unownedUnsafe : .strong
                builder.addEdge(
                    from: UInt32(from), to: UInt32(to), ownership: ownership, role: .declared("e"))
            }
            if random.next() % 50 == 0 {
                builder.addEdge(
                    from: UInt32(from), to: UInt32(from), ownership: .strong,
                    role: .declared("self"))
            }
        }
        return builder.build(numberingForLocality: seed % 2 == 0)
    }

    /// The nodes the roots reach over strong edges, skipping `removed`.
    static func reachable(_ graph: CompactGraph, without removed: UInt32?) -> [Bool] {
        var seen = [Bool](repeating: false, count: graph.nodeCount)
        var queue: [UInt32] = []
        for (root, _) in graph.roots where root != removed && !seen[Int(root)] {
            seen[Int(root)] = true
            queue.append(root)
        }
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            for edge in graph.strongOutEdges(of: node) {
                let next = graph.target(of: UInt32(edge))
                if next != removed && !seen[Int(next)] {
                    seen[Int(next)] = true
                    queue.append(next)
                }
            }
        }
        return seen
    }

    /// Checks the tree against the definition, node by node.
    ///
    /// - Returns: How many nodes have a real (not virtual) immediate dominator.
    @discardableResult
    static func checkAgainstDefinition(_ graph: CompactGraph) -> Int {
        let tree = graph.dominatorTree()
        let count = graph.nodeCount
        let reached = reachable(graph, without: nil)
        // dominated[d][v]: v is reachable, and not without d (v != d).
        var dominated: [[Bool]] = []
        for candidate in 0..<count {
            let without = reachable(graph, without: UInt32(candidate))
            dominated.append(
                (0..<count).map { reached[$0] && !without[$0] && $0 != candidate })
        }
        var expectedReachable = 0
        var expectedBytes: UInt64 = 0
        var dominatedByANode = 0
        for node in 0..<count {
            #expect(tree.isReachable(UInt32(node)) == reached[node])
            guard reached[node] else {
                #expect(tree.immediateDominator(of: UInt32(node)) == nil)
                #expect(tree.retainedCount(of: UInt32(node)) == 0)
                #expect(tree.retainedSize(of: UInt32(node)) == 0)
                continue
            }
            expectedReachable += 1
            expectedBytes += UInt64(graph.size(of: UInt32(node)))
            // Retained set: the node and everything it dominates.
            let retained = (0..<count).filter { dominated[node][$0] } + [node]
            #expect(tree.retainedCount(of: UInt32(node)) == retained.count)
            #expect(
                tree.retainedSize(of: UInt32(node))
                    == retained.reduce(UInt64(0)) { $0 + UInt64(graph.size(of: UInt32($1))) })
            // The immediate dominator: the strict dominator that dominates the fewest nodes.
            let strict = (0..<count).filter { dominated[$0][node] }
            let deepest = strict.min {
                dominated[$0].filter { $0 }.count < dominated[$1].filter { $0 }.count
            }
            #expect(tree.immediateDominator(of: UInt32(node)) == deepest.map(UInt32.init))
            if deepest != nil { dominatedByANode += 1 }
        }
        #expect(tree.reachableCount == expectedReachable)
        #expect(expectedReachable > 0)
        #expect(tree.reachableBytes == expectedBytes)
        return dominatedByANode
    }

    @Test("Random graphs of up to 2,000 nodes: immediate dominators and retained sizes match")
    func randomGraphsMatchTheDefinition() {
        for seed in 1...24 as ClosedRange<Int> {
            let graph = Self.randomGraph(nodes: 5 + Int(seed) * 11, seed: UInt64(seed))
            Self.checkAgainstDefinition(graph)
        }
        let large = Self.randomGraph(nodes: 2_000, seed: 2_000)
        // Enough structure to test: hundreds of nodes with a real immediate dominator.
        #expect(Self.checkAgainstDefinition(large) > 200)
    }

    @Test("A diamond: the join is dominated by the split, weak edges retain nothing")
    func diamondAndWeakEdges() {
        // root 0 -> 1 -> {2, 3} -> 4; 4 ~weak~> 5; 1 -> 6 (self loop on 6).
        let graph = DominatorFixtures.graph(
            sizes: [1, 2, 4, 8, 16, 32, 64], roots: [0],
            strong: [(0, 1), (1, 2), (1, 3), (2, 4), (3, 4), (1, 6), (6, 6)],
            other: [(4, 5, .weak)])
        let tree = graph.dominatorTree()
        #expect(tree.immediateDominator(of: 4) == 1)
        #expect(tree.immediateDominator(of: 2) == 1)
        #expect(tree.immediateDominator(of: 1) == 0)
        #expect(tree.immediateDominator(of: 0) == nil)
        #expect(!tree.isReachable(5))
        #expect(tree.retainedSize(of: 1) == 2 + 4 + 8 + 16 + 64)
        #expect(tree.retainedCount(of: 1) == 5)
        #expect(tree.retainedSize(of: 6) == 64)
        #expect(tree.reachableBytes == 1 + 2 + 4 + 8 + 16 + 64)
    }

    @Test("A root held by another root stays a root; a node held by two roots has no dominator")
    func rootsUnderTheVirtualRoot() {
        // Roots 0 and 1; 0 -> 1 -> 2; 0 -> 3 and 1 -> 3.
        let graph = DominatorFixtures.graph(
            sizes: [10, 20, 30, 40], roots: [0, 1], strong: [(0, 1), (1, 2), (0, 3), (1, 3)])
        let tree = graph.dominatorTree()
        #expect(tree.immediateDominator(of: 1) == nil)
        #expect(tree.immediateDominator(of: 2) == 1)
        #expect(tree.immediateDominator(of: 3) == nil)
        #expect(tree.retainedSize(of: 0) == 10)
        #expect(tree.retainedSize(of: 1) == 50)
        #expect(tree.reachableCount == 4)
    }

    @Test("A chain of a million nodes: no recursion, the head retains everything")
    func millionNodeChain() {
        let count = 1_000_000
        var builder = CompactGraph.Builder(expectedNodes: count, expectedEdges: count)
        let type = builder.intern("Link")
        for _ in 0..<count { builder.addNode(kind: .object, typeNameNumber: type, size: 48) }
        for node in 0..<(count - 1) {
            builder.addEdge(from: UInt32(node), to: UInt32(node + 1), ownership: .strong)
        }
        builder.addRoot(0, name: "head")
        let graph = builder.build(numberingForLocality: false)
        let tree = graph.dominatorTree()
        #expect(tree.retainedCount(of: 0) == count)
        #expect(tree.retainedSize(of: 0) == UInt64(48 * count))
        #expect(tree.immediateDominator(of: UInt32(count - 1)) == UInt32(count - 2))
        #expect(tree.bytes == 12 * count)
    }

    @Test("Retained sizes of 4 GiB and more are kept exactly; nodes without a size weigh nothing")
    func largeAndMissingSizes() {
        let graph = DominatorFixtures.graph(
            sizes: [1, Int(UInt32.max), Int(UInt32.max), 0], roots: [0],
            strong: [(0, 1), (1, 2), (1, 3)])
        let tree = graph.dominatorTree()
        #expect(tree.retainedSize(of: 1) == 2 * UInt64(UInt32.max))
        #expect(tree.retainedSize(of: 0) == 2 * UInt64(UInt32.max) + 1)
        #expect(tree.retainedSize(of: 2) == UInt64(UInt32.max))
        #expect(tree.retainedSize(of: 3) == 0)
        #expect(tree.retainedCount(of: 0) == 4)
        #expect(tree.retainedSize(of: 99) == 0)
        #expect(tree.immediateDominator(of: 99) == nil)
    }
}

extension DominatorTreeTests {
    @Test("Largest retainers: grouped by type, a type nested in itself counted once")
    func largestRetainersByType() {
        // root 0 (Root) -> 1 (Session) -> 2 (Session) -> 3 (Buffer); 0 -> 4 (Buffer);
        // 0 -> 5 (Cache) -> 6 (Buffer).
        var builder = CompactGraph.Builder()
        let types = ["Root", "Session", "Session", "Buffer", "Buffer", "Cache", "Buffer"]
        for (name, size) in zip(types, [8, 100, 100, 1_000, 500, 10, 2_000]) {
            builder.addNode(kind: .object, typeName: name, size: size)
        }
        builder.addRoot(0, name: "root")
        for (from, to) in [(0, 1), (1, 2), (2, 3), (0, 4), (0, 5), (5, 6)] as [(UInt32, UInt32)] {
            builder.addEdge(from: from, to: to, ownership: .strong)
        }
        let graph = builder.build(numberingForLocality: false)
        let tree = graph.dominatorTree()
        let groups = tree.largestRetainers(in: graph, limit: 3)
        // The root retains everything; then the three Buffers, none inside another.
        #expect(groups.map(\.typeName) == ["Root", "Buffer", "Cache"])
        #expect(groups[0].retainedBytes == 3_718)
        #expect(groups[1].retainedBytes == 3_500)
        #expect(groups[1].instanceCount == 3)
        #expect(groups[1].largest == 6)
        #expect(groups[2].retainedBytes == 2_010)
        let all = tree.largestRetainers(in: graph, limit: 10)
        let session = all.first { $0.typeName == "Session" }
        // The inner Session is inside the outer one's retained size: counted once.
        #expect(session?.retainedBytes == 1_200)
        #expect(session?.retainedCount == 3)
        #expect(session?.instanceCount == 2)
        #expect(tree.largestRetainers(in: graph, limit: 0).isEmpty)
    }
}
