import ObjectGraph
import Testing

/// `PathTree.pathLengths()`, which `retain-graph attach --who-holds` ranks instances by: the
/// length of every node's path in one pass, as `path(to:)` would count it.
@Suite("Path lengths from the path tree")
struct PathLengthTests {
    @Test("Every node's length is its path's step count; roots 0, unreached the maximum")
    func lengthsMatchPaths() {
        var builder = CompactGraph.Builder()
        let holder = builder.addNode(kind: .root, typeName: "global variable", label: "list")
        builder.addRoot(holder, kind: .heapHolder(.globalVariable(name: "list")))
        // A list of 50 nodes from the holder, added tail first (as a heap scan meets them).
        let nodes = (0..<50).map { _ in builder.addNode(kind: .object, typeName: "App.Node") }
        builder.addEdge(
            from: holder, to: nodes[49], ownership: .strong, role: .heldBy(.globalVariable))
        for index in stride(from: 49, to: 0, by: -1) {
            builder.addEdge(
                from: nodes[index], to: nodes[index - 1], ownership: .strong,
                role: .storedProperty(name: "next"))
        }
        let orphan = builder.addNode(kind: .object, typeName: "App.Orphan")
        let graph = builder.build(numberingForLocality: false)
        let tree = graph.paths()
        let lengths = tree.pathLengths()
        #expect(lengths.count == graph.nodeCount)
        #expect(lengths[Int(holder)] == 0)
        #expect(lengths[Int(orphan)] == UInt32.max)
        for node in nodes {
            #expect(Int(lengths[Int(node)]) == tree.path(to: node)?.count)
        }
        #expect(lengths[Int(nodes[49])] == 1)
        #expect(lengths[Int(nodes[0])] == 50)
    }
}
