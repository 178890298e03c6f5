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

extension DominatorFigures {
    /// `dominators-ratio N [R]`: the previous kernel (`PreviousDominators`) and the current
    /// `dominatorTree()` on the same graph, in turns, `rounds` times each; checks that both
    /// give the same tree, then prints each one's median wall clock and CPU time and the
    /// median of the per-round ratios. Both share the machine's load, so the ratio means
    /// something where the absolute figures do not.
    static func runRatio(count: Int, references: Int, rounds: Int = 9) {
        let graph = randomGraph(count: count, references: references)
        let nodes = graph.nodeCount
        var outStart = [UInt32](repeating: 0, count: nodes + 1)
        var strongOutEnd = [UInt32](repeating: 0, count: nodes)
        for node in 0..<nodes {
            outStart[node] = UInt32(graph.outEdges(of: UInt32(node)).lowerBound)
            strongOutEnd[node] = UInt32(graph.strongOutEdges(of: UInt32(node)).upperBound)
        }
        outStart[nodes] = UInt32(graph.edgeCount)
        let targets = (0..<graph.edgeCount).map { graph.target(of: UInt32($0)) }
        let roots = graph.roots.map(\.node)
        let sizes = (0..<nodes).map { UInt32(graph.size(of: UInt32($0))) }
        func previous() -> PreviousDominators.Tree {
            PreviousDominators.tree(
                outStart: outStart, strongOutEnd: strongOutEnd, targets: targets, roots: roots,
                sizes: sizes)
        }
        let before = previous()
        let after = graph.dominatorTree()
        var differing = 0
        for node in 0..<nodes {
            let id = UInt32(node)
            let up = before.idom[node]
            let idom: UInt32? = up >= PreviousDominators.virtualRoot ? nil : up
            let size = before.sizes[node]
            let bytes =
                size == UInt32.max
                ? before.large.first { $0.node == id }?.bytes ?? 0 : UInt64(size)
            if after.immediateDominator(of: id) != idom
                || after.retainedCount(of: id) != Int(before.counts[node])
                || after.retainedSize(of: id) != bytes
            {
                differing += 1
            }
        }
        print(
            "same tree: \(differing == 0 ? "yes" : "NO, \(differing) nodes differ"); reachable "
                + "\(after.reachableCount) objects, \(after.reachableBytes) bytes (previous: "
                + "\(before.reachable.count), \(before.reachable.bytes))")
        var wall: (before: [Double], after: [Double]) = ([], [])
        var cpu: (before: [Double], after: [Double]) = ([], [])
        let clock = ContinuousClock()
        func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1e3
                + Double(duration.components.attoseconds) / 1e15
        }
        for _ in 0..<rounds {
            var start = processCPUSeconds()
            wall.before.append(milliseconds(clock.measure { _ = previous().reachable }))
            cpu.before.append((processCPUSeconds() - start) * 1e3)
            start = processCPUSeconds()
            wall.after.append(milliseconds(clock.measure { _ = graph.dominatorTree().bytes }))
            cpu.after.append((processCPUSeconds() - start) * 1e3)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let ratios = zip(wall.before, wall.after).map { $0 / $1 }
        let cpuRatios = zip(cpu.before, cpu.after).map { $0 / $1 }
        print(
            "\(Machine.loadAverage()) | previous kernel: \(formatted(median(wall.before))) ms "
                + "(CPU \(formatted(median(cpu.before))) ms); current: "
                + "\(formatted(median(wall.after))) ms (CPU \(formatted(median(cpu.after))) ms); "
                + "median of \(rounds) rounds taken in turn")
        print(
            "FIGURE dominators, previous / current: \(formatted(median(ratios)))× wall clock, "
                + "\(formatted(median(cpuRatios)))× CPU time (medians of the per-round ratios)")
    }
}

/// The CPU time this process has used, in seconds (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`).
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
