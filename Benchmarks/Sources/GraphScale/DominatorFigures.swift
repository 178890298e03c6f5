import RetainGraph

#if canImport(Glibc)
import Glibc
#endif

/// The dominator tree and retained sizes (issue 25) on a random graph of the GraphScale kind.
enum DominatorFigures {
    /// `count` objects of 16 types holding `references` strong or weak references in all (one
    /// in five weak), 16 roots; object sizes 16–512 bytes, addresses 64 bytes apart (so the
    /// export numbers objects by address as it does a census's).
    static func randomGraph(count: Int, references: Int) -> CompactGraph {
        var random = SplitMix64(state: UInt64(count) &+ 25)
        var builder = CompactGraph.Builder(
            expectedNodes: count + 16, expectedEdges: references + 16)
        let types = (0..<16).map { builder.intern("Bench.Type\($0)") }
        let role = builder.intern(.storedProperty(name: "field"))
        for index in 0..<count {
            builder.addNode(
                kind: .object, typeNameNumber: types[index % 16],
                address: 0x7f00_0000_0000 + UInt(index) * 64, key: UInt64(index + 1),
                size: 16 + Int(random.next() % 32) * 16)
        }
        for edge in 0..<references {
            builder.addEdge(
                from: UInt32(edge % count), to: UInt32(random.next() % UInt64(count)),
                ownership: edge % 5 == 4 ? .weak : .strong, roleNumber: role)
        }
        let runLoop = builder.intern("RunLoop")
        for root in 0..<16 {
            let node = builder.addNode(kind: .root, typeNameNumber: runLoop)
            builder.addRoot(node, name: "root \(root)")
            builder.addEdge(
                from: node, to: UInt32(random.next() % UInt64(count)), ownership: .strong)
        }
        return builder.build()
    }

    /// `dominators N [references]`: the dominator tree with retained sizes (median of 5), its
    /// bytes per object, and the largest-retainers query.
    static func run(count: Int, references: Int) {
        let graph = measure("generate + build the graph (not a figure)") {
            randomGraph(count: count, references: references)
        }
        print("graph: \(graph.nodeCount) nodes, \(graph.edgeCount) edges")
        let tree = graph.dominatorTree()
        measureMedian("FIGURE dominators + retained sizes", times: 5) {
            _ = graph.dominatorTree().reachableCount
        }
        // CPU time of this process alone: less sensitive to other processes than wall clock
        // on a loaded machine (they still share caches and memory bandwidth).
        var cpu: [Double] = []
        for _ in 0..<5 {
            let start = processCPUSeconds()
            _ = graph.dominatorTree().reachableCount
            cpu.append((processCPUSeconds() - start) * 1_000)
        }
        cpu.sort()
        print("FIGURE dominators + retained sizes, CPU time: \(formatted(cpu[2])) ms (median of 5)")
        print(
            "FIGURE dominator tree memory: \(tree.bytes) bytes = "
                + "\(formatted(Double(tree.bytes) / Double(graph.nodeCount))) B/object; "
                + "reachable \(tree.reachableCount) objects, \(tree.reachableBytes) bytes")
        measureMedian("largest retainers by type (10 groups)", times: 5) {
            _ = tree.largestRetainers(in: graph, limit: 10).count
        }
        for group in tree.largestRetainers(in: graph, limit: 3) {
            print("  \(group.typeName) ×\(group.instanceCount): \(group.retainedBytes) B")
        }
    }
}

/// The CPU time this process has used, in seconds (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`).
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
