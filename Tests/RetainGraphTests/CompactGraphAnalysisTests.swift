import RetainGraph
import Testing
import _TestSupport

@Suite("Compact graph: cycles and root paths")
struct CompactGraphAnalysisTests {
    /// A graph of `count` nodes named `N0`, `N1`, ... with the given strong edges; nodes listed
    /// in `roots` are roots named `root N<k>`. Numbered as added, so node `k` is `N<k>`.
    static func graph(
        _ count: Int, strong edges: [(UInt32, UInt32)],
        other: [(UInt32, UInt32, Ownership)] = [],
        roots: [UInt32] = [], sizes: [Int] = [], locality: Bool = false
    ) -> CompactGraph {
        var builder = CompactGraph.Builder()
        for node in 0..<count {
            builder.addNode(
                kind: roots.contains(UInt32(node)) ? .root : .object, typeName: "N\(node)",
                size: node < sizes.count ? sizes[node] : 0)
        }
        for root in roots { builder.addRoot(root, name: "root N\(root)") }
        for (from, to) in edges {
            builder.addEdge(
                from: from, to: to, ownership: .strong, role: .declared("N\(from)->N\(to)"))
        }
        for (from, to, kind) in other {
            builder.addEdge(
                from: from, to: to, ownership: kind, role: .declared("N\(from)~>N\(to)"))
        }
        return builder.build(numberingForLocality: locality)
    }

    static func names(_ graph: CompactGraph, _ nodes: some Sequence<UInt32>) -> Set<String> {
        Set(nodes.map(graph.typeName(of:)))
    }

    @Test("Two cycles and a chain between them: each cycle is one component, the chain is not")
    func cyclesAreComponents() {
        // 0 <-> 1 -> 2 -> 3 -> 4 -> 5 -> 3, and 6 alone.
        let graph = Self.graph(7, strong: [(0, 1), (1, 0), (1, 2), (2, 3), (3, 4), (4, 5), (5, 3)])
        let components = graph.strongComponents()
        #expect(components.count == 4)
        let cycles = components.cycles.map { Self.names(graph, components.members(of: $0)) }
        #expect(Set(cycles) == [["N0", "N1"], ["N3", "N4", "N5"]])
        #expect(components.isInCycle(4))
        #expect(!components.isInCycle(2))
        #expect(!components.isInCycle(6))
        #expect(components.component(of: 0) == components.component(of: 1))
        // Completion order: what a component holds completes before it.
        #expect(components.component(of: 3) < components.component(of: 2))
        #expect(components.component(of: 2) < components.component(of: 0))
    }

    @Test("A node holding itself strongly is a cycle of one; weakly, it is not")
    func selfLoops() {
        let graph = Self.graph(2, strong: [(0, 0)], other: [(1, 1, .weak)])
        let components = graph.strongComponents()
        #expect(components.isInCycle(0))
        #expect(!components.isInCycle(1))
        #expect(graph.cycle(through: 0)?.map(\.to) == [0])
        #expect(graph.cycle(through: 1) == nil)
    }

    @Test("Weak, unowned and unowned(unsafe) edges never close a cycle")
    func nonStrongEdgesAreIgnored() {
        for kind in [Ownership.weak, .unowned, .unownedUnsafe] {
            let graph = Self.graph(3, strong: [(0, 1), (1, 2)], other: [(2, 0, kind)])
            let components = graph.strongComponents()
            #expect(components.cycles.isEmpty, "\(kind)")
            #expect(components.count == 3)
            #expect(graph.cycle(through: 0, components: components) == nil)
        }
    }

    @Test("A cycle of 100,000 nodes is found whole without recursion")
    func longCycle() {
        let count = 100_000
        let edges = (0..<count).map { (UInt32($0), UInt32(($0 + 1) % count)) }
        let graph = Self.graph(count, strong: edges, roots: [], locality: true)
        let components = graph.strongComponents()
        #expect(components.count == 1)
        #expect(components.cycles == [0])
        #expect(components.members(of: 0).count == count)
        let cycle = graph.cycle(through: 5, components: components)
        #expect(cycle?.count == count)
        #expect(cycle?.first?.from == 5)
        #expect(cycle?.last?.to == 5)
    }

    @Test("The shortest strong path from a root is found, in both directions of search")
    func shortestRootPath() {
        // root 0 -> 1 -> 2 -> 3 -> 4 (long way); root 5 -> 6 -> 4 (short way); 7 -> 4 (no root)
        let graph = Self.graph(
            8, strong: [(0, 1), (1, 2), (2, 3), (3, 4), (5, 6), (6, 4), (7, 4)], roots: [0, 5])
        let backwards = graph.pathFromRoot(to: 4)
        let forwards = graph.paths().path(to: 4)
        for path in [backwards, forwards] {
            #expect(path?.map { graph.label(ofEdge: $0.edge) } == ["N5->N6", "N6->N4"])
            #expect(path?.first?.from == 5)
            #expect(path?.first.map { graph.rootName(of: $0.from) } == "root N5")
        }
        #expect(graph.pathFromRoot(to: 0) == [])
        #expect(graph.paths().path(to: 5) == [])
        #expect(graph.pathFromRoot(to: 7) == nil)
        #expect(graph.paths().path(to: 7) == nil)
        #expect(!graph.paths().isReachable(7))
    }

    @Test("A node reachable only through a weak or unowned edge has no strong root path")
    func weaklyHeldNodeHasNoRootPath() {
        for kind in [Ownership.weak, .unowned, .unownedUnsafe] {
            // root 0 -> 1 strongly, 1 -> 2 with `kind`, 2 -> 3 strongly.
            let graph = Self.graph(4, strong: [(0, 1), (2, 3)], other: [(1, 2, kind)], roots: [0])
            #expect(graph.pathFromRoot(to: 1)?.count == 1)
            #expect(graph.pathFromRoot(to: 2) == nil, "\(kind)")
            #expect(graph.pathFromRoot(to: 3) == nil, "\(kind)")
            #expect(graph.paths().path(to: 3) == nil, "\(kind)")
            #expect(graph.incoming(to: 2).map(\.from) == [1])
        }
    }

    @Test("The cycle through a node starts and ends at it and follows strong edges")
    func cycleThroughNode() {
        // 0 -> 1 -> 2 -> 0 and 1 -> 3 -> 1 (two loops through 1); 2 -> 4 leaves the cycle.
        let graph = Self.graph(5, strong: [(0, 1), (1, 2), (2, 0), (1, 3), (3, 1), (2, 4)])
        let components = graph.strongComponents()
        let cycle = graph.cycle(through: 1, components: components)
        #expect(cycle?.map(\.from) == [1, 3])
        #expect(cycle?.map(\.to) == [3, 1])
        let throughZero = graph.cycle(through: 0)
        #expect(throughZero?.map(\.from) == [0, 1, 2])
        #expect(graph.cycle(through: 4, components: components) == nil)
    }

    @Test("Renumbering for locality changes no answer about a named node")
    func localityKeepsAnswers() {
        let edges: [(UInt32, UInt32)] = [(3, 1), (1, 2), (2, 1), (0, 3), (4, 2)]
        let plain = Self.graph(5, strong: edges, roots: [0])
        let local = Self.graph(5, strong: edges, roots: [0], locality: true)
        for graph in [plain, local] {
            let components = graph.strongComponents()
            #expect(
                components.cycles.map { Self.names(graph, components.members(of: $0)) } == [
                    ["N1", "N2"]
                ])
            let n2 = (0..<5).first { graph.typeName(of: $0) == "N2" } ?? 0
            #expect(
                graph.pathFromRoot(to: n2)?.map { graph.label(ofEdge: $0.edge) } == [
                    "N0->N3", "N3->N1", "N1->N2",
                ])
        }
        #expect(local.typeName(of: 0) == "N0")
        #expect(local.typeName(of: 1) == "N3")
    }

    @Test(
        "On random graphs, cycles and root path lengths agree with GraphSnapshot's",
        arguments: [1, 2, 3, 4])
    func agreesWithSnapshotOnRandomGraphs(seed: UInt64) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let count = 2_000
        var nodes: [Node] = []
        var references: [Reference] = []
        var builder = CompactGraph.Builder()
        for index in 0..<count {
            let isRoot = index % 97 == 0
            nodes.append(
                Node(
                    id: ObjectID(rawValue: UInt64(index + 1)), typeName: "T\(index)",
                    kind: isRoot ? .root(.process) : .object))
            builder.addNode(
                kind: isRoot ? .root : .object, typeName: "T\(index)", key: UInt64(index + 1))
            if isRoot { builder.addRoot(UInt32(index), name: "root") }
        }
        for _ in 0..<(count * 2) {
            let from = next(count)
            let to = next(count)
            let kind: Ownership = next(4) == 0 ? .weak : .strong
            references.append(
                Reference(
                    from: ObjectID(rawValue: UInt64(from + 1)),
                    to: ObjectID(rawValue: UInt64(to + 1)),
                    ownership: kind == .strong ? .strong : .weak, role: .declared("e")))
            builder.addEdge(from: UInt32(from), to: UInt32(to), ownership: kind)
        }
        let snapshot = GraphSnapshot(nodes: nodes, references: references)
        let graph = builder.build()
        let components = graph.strongComponents()
        let compactCycles = Set(
            components.cycles.map { component in
                components.members(of: component).map { graph.key(of: $0) }.sorted()
            })
        let snapshotCycles = Set(
            snapshot.stronglyConnectedComponents().cycles.map { $0.map(\.rawValue) })
        #expect(compactCycles == snapshotCycles)
        #expect(!compactCycles.isEmpty)
        let tree = graph.paths()
        let snapshotPaths = snapshot.shortestRootPaths()
        for added in UInt32(0)..<UInt32(count) {
            let node = graph.node(added: added)
            let id = ObjectID(rawValue: UInt64(added) + 1)
            let expected = snapshotPaths.path(to: id)?.count
            #expect(tree.path(to: node)?.count == expected)
            #expect(graph.pathFromRoot(to: node)?.count == expected)
        }
    }

    @Test(
        "Components are exactly the classes of mutual strong reachability, whatever the degrees",
        arguments: [11, 12, 13])
    func componentsMatchMutualReachability(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }
        // Out-degrees from 0 to 5, one edge in three weak, so the search meets empty rows, rows
        // whose first edge is weak and long rows (the search reads a row's first target apart).
        let count = 300
        var builder = CompactGraph.Builder()
        var strongTargets = [[Int]](repeating: [], count: count)
        for index in 0..<count { builder.addNode(kind: .object, typeName: "T\(index)") }
        for from in 0..<count {
            for _ in 0..<next(6) {
                let to = next(count)
                let isStrong = next(3) != 0
                builder.addEdge(
                    from: UInt32(from), to: UInt32(to), ownership: isStrong ? .strong : .weak)
                if isStrong { strongTargets[from].append(to) }
            }
        }
        // Reachability by a plain search from every node (fine at 300 nodes).
        let reaches: [Set<Int>] = (0..<count).map { start in
            var seen: Set<Int> = []
            var stack = strongTargets[start]
            while let node = stack.popLast() {
                if seen.insert(node).inserted { stack.append(contentsOf: strongTargets[node]) }
            }
            return seen
        }
        for locality in [false, true] {
            let graph = builder.build(numberingForLocality: locality)
            let components = graph.strongComponents()
            for a in 0..<count {
                let nodeA = graph.node(added: UInt32(a))
                for b in 0..<count where a != b {
                    let nodeB = graph.node(added: UInt32(b))
                    let mutual = reaches[a].contains(b) && reaches[b].contains(a)
                    #expect(
                        (components.component(of: nodeA) == components.component(of: nodeB))
                            == mutual, "\(a) and \(b), locality \(locality)")
                }
                #expect(components.isInCycle(nodeA) == reaches[a].contains(a), "\(a)")
            }
        }
    }
}
