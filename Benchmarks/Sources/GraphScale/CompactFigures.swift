import RetainGraph

/// The CompactGraph alone, on the random graph every figure of issue 15 uses.
enum CompactFigures {
    /// A builder holding `count` objects of 16 types with two edges each (one in five weak)
    /// and 16 roots each holding one random object.
    static func randomBuilder(count: Int, roots: Int = 16) -> CompactGraph.Builder {
        var random = SplitMix64(state: UInt64(count))
        var builder = CompactGraph.Builder(
            expectedNodes: count + roots, expectedEdges: 2 * count + roots)
        let types = (0..<16).map { builder.intern("Bench.Type\($0)") }
        let first = builder.intern(".first")
        let second = builder.intern(".second")
        for index in 0..<count {
            builder.addNode(
                kind: .object, typeNameNumber: types[index % 16], address: UInt(index + 1) * 16,
                key: UInt64(index + 1))
        }
        for index in 0..<count {
            for slot in 0..<2 {
                builder.addEdge(
                    from: UInt32(index), to: UInt32(random.next() % UInt64(count)),
                    ownership: (2 * index + slot) % 5 == 4 ? .weak : .strong,
                    roleNumber: slot == 0 ? first : second)
            }
        }
        let runLoop = builder.intern("RunLoop")
        for root in 0..<roots {
            let node = builder.addNode(
                kind: .root, typeNameNumber: runLoop, key: UInt64(count + root + 1))
            builder.addRoot(node, name: "root \(root)")
            builder.addEdge(from: node, to: UInt32(random.next() % UInt64(count)), ownership: .strong)
        }
        return builder
    }

    /// Components and root paths alone, on a graph built beforehand (for callgrind).
    static func runAnalysis(count: Int) {
        let graph = measure("generate + build a CompactGraph (not a figure)") {
            randomBuilder(count: count).build()
        }
        measure("CompactGraph SCC + root paths (analysis alone)") {
            (graph.strongComponents().count, graph.paths().isReachable(0))
        }
    }

    static func run(count: Int) {
        let builder = measure("generate (not part of any figure)") { randomBuilder(count: count) }
        let before = Machine.residentBytes()
        let graph = measure("CompactGraph build, locality numbering") { builder.build() }
        let bytes = graph.arrayBytes
        print(
            "graph arrays: \(bytes) bytes = \(formatted(Double(bytes) / Double(graph.nodeCount))) B/node all-in, or 37 B/node + \(formatted(Double(bytes - 37 * graph.nodeCount) / Double(graph.edgeCount))) B/edge; RSS delta \((Machine.residentBytes() - before) / 1_048_576) MB"
        )
        let components = measure("strong components (Pearce)") { graph.strongComponents() }
        let tree = measure("shortest root paths (multi-source BFS)") { graph.paths() }
        measure("SCC + root paths") {
            (graph.strongComponents().count, graph.paths().isReachable(0))
        }
        var random = SplitMix64(state: 99)
        let asked = (0..<100).map { _ in UInt32(random.next() % UInt64(graph.nodeCount)) }
        var found = 0
        measure("100 who-holds-it queries (reverse BFS to the nearest root), total") {
            for node in asked where graph.pathFromRoot(to: node) != nil { found += 1 }
        }
        let reachable = asked.filter { tree.isReachable($0) }.count
        print(
            "components \(components.count), cycles \(components.cycles.count); \(found) of 100 asked held by a root (tree says \(reachable))"
        )
        let plain = measure("CompactGraph build, no renumbering") {
            randomBuilder(count: count).build(numberingForLocality: false)
        }
        measure("SCC + root paths, no renumbering") {
            (plain.strongComponents().count, plain.paths().isReachable(0))
        }
    }
}
