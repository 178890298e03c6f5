// The dominator tree (Semi-NCA) and retained sizes, over unsafe pointers.
//
// Why unsafe: every pass is a loop of array reads and writes per node or per edge over a
// million nodes; with `[UInt32]` arrays each access pays a bounds check and each write a
// uniqueness check (the reason `_CompactGraphKernels.swift` gives), and in a debug build a
// range's iterator is a generic call per element, so the loops are `while` loops over
// pointers. Every pointer comes from the graph's arrays (alive for the whole call) or from a
// scratch buffer allocated and freed in `semiNCADominators`; every node number read from the
// graph is below `nodeCount` by construction (`CompactGraph.Builder.build` drops edges naming
// unknown nodes); roots are checked against `nodeCount` before use.
//
// Why this shape: on the 1M-object / 3.2M-reference random graph of `GraphScale dominators`
// the time is memory latency. On this 2-core VM a chain of dependent reads costs 12–37 ns each
// in an array of 4–8 MB and 96–159 ns from 12 MB on (past the cache and the TLB reach), while
// independent reads cost 2–9 ns; so the reads that decide the next read stay in small arrays,
// and every other pass streams:
// - The search (`_DominatorKernel+Search.swift`) reads each node once: its first strong target
//   from a 4 MB array (the chain), where its other targets start from another (off the chain).
//   It was three dependent misses per node in `outStart`, `strongOutEnd` and `targets` (21 MB).
//   Its stack holds edges, so nothing is read back from a visited node; reached is a bit
//   (128 KB for 1M nodes); the numbers by node are written after the search, in one pass.
// - Only back and cross edges (1.0M of 2.3M here) go through the link-eval forest; forward
//   edges lower their target's candidate in a streaming pass. The forest's ancestor and label
//   share an 8-byte record, and evaluation halves paths (one pass, no path stack).
// - Results are written node by node (independent reads by number, sequential writes), the
//   sizes of 4 GiB or more split off in the same pass. Buffers are reused from pass to pass:
//   about 52 MB touched on the benchmark graph (was about 76) and a third of the page faults.
// Thread CPU time of the kernel alone on that graph, previous / current in turns in one
// process (load 4–8): 295–364 / 167–194 ms, 1.7–1.8×; callgrind: 344 M → about 270 M
// instructions. Per pass and the benchmark figures: Benchmarks/RESULTS-HISTORY.md, "Dominators
// at the machine's limit".

/// The marks ``OutEdgeKernel/semiNCADominators(roots:sizes:idom:retainedCount:retainedSize:)``
/// writes in `idom`.
enum DominatorMarks {
    /// `idom` of a node that no root reaches through strong edges.
    static let unreachable = UInt32.max
    /// `idom` of a node dominated only by the virtual root above every root.
    static let virtualRoot = UInt32.max - 1
}

/// What one dominator computation gives besides the per-node arrays.
struct DominatorTotals {
    /// Reached nodes (the virtual root's retained count).
    var count: Int
    /// Their bytes (the virtual root's retained size).
    var bytes: UInt64
    /// Retained sizes of 4 GiB or more, by ascending node (`retainedSize` holds `UInt32.max`).
    var largeSizes: [(node: UInt32, bytes: UInt64)]
}

extension OutEdgeKernel {
    /// Computes every node's immediate dominator over strong edges from a virtual root that
    /// holds every root, and each node's retained count and size.
    ///
    /// Semi-NCA (Georgiadis, "Linear-Time Algorithms for Dominators and Related Problems",
    /// 2005): a depth-first search from the virtual root, semidominators in reverse preorder
    /// with path compression, then each immediate dominator as the nearest common ancestor of
    /// the parent and the semidominator, and the retained sums in one reverse-preorder pass.
    /// Nothing recurses: a chain of a million nodes is fine.
    ///
    /// - Parameters:
    ///   - roots: The roots (node numbers; numbers out of range are skipped).
    ///   - sizes: Bytes per node, by node number; nodes past its end weigh 0.
    ///   - idom: Per node, on return: its immediate dominator, ``DominatorMarks/virtualRoot``
    ///     or ``DominatorMarks/unreachable``.
    ///   - retainedCount: Per node, on return: the nodes it dominates, itself included (0 when
    ///     unreachable).
    ///   - retainedSize: Per node, on return: the sum of `sizes` over those nodes, or
    ///     `UInt32.max` when that is 4 GiB or more (the sum is then in `largeSizes`).
    /// - Returns: The virtual root's totals and the large sizes.
    /// - Complexity: O((*n* + *e*) log *n*) time; scratch memory about 36 bytes per node and
    ///   12 per strong edge, plus up to 8 per strong edge for the search's stack.
    func semiNCADominators(
        roots: UnsafeBufferPointer<UInt32>, sizes: UnsafeBufferPointer<UInt32>,
        idom: UnsafeMutablePointer<UInt32>, retainedCount: UnsafeMutablePointer<UInt32>,
        retainedSize: UnsafeMutablePointer<UInt32>
    ) -> DominatorTotals {
        let nodeCount = self.nodeCount
        let edgeRoom = roots.count + targets.count
        // Reused once the search is over (their lives do not overlap): `heads` holds the
        // numbers by node and the row starts, `rest` the rows, the stack the row cursors, then
        // the forest, then the retained counts.
        let heads = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * (nodeCount + 1))
        let rest = UnsafeMutablePointer<UInt32>.allocate(capacity: max(targets.count, 1))
        let seen = UnsafeMutablePointer<UInt64>.allocate(capacity: (nodeCount + 63) / 64 + 1)
        let stack = UnsafeMutablePointer<UInt32>.allocate(
            capacity: 2 * max(edgeRoom, nodeCount + 1))
        let nonTree = UnsafeMutablePointer<UInt32>.allocate(capacity: 2 * max(edgeRoom, 1))
        let vertex = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCount + 1)
        let parent = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCount + 1)
        let semi = UnsafeMutablePointer<UInt32>.allocate(capacity: nodeCount + 1)
        defer {
            heads.deallocate()
            rest.deallocate()
            seen.deallocate()
            stack.deallocate()
            nonTree.deallocate()
            vertex.deallocate()
            parent.deallocate()
            semi.deallocate()
        }
        let search = DominatorSearch(self, heads: heads, rest: rest, seen: seen)
        let (count, kept) = search.search(
            roots: roots, vertex: vertex, parent: parent, semi: semi, stack: stack,
            nonTree: nonTree)
        let number = heads
        var position = 1
        while position < count {
            number[Int(vertex[position])] = UInt32(truncatingIfNeeded: position)
            position &+= 1
        }
        let rowStart = heads + nodeCount
        DominatorSemidominators.sortPredecessors(
            count: count, nonTree: nonTree, kept: kept, number: number, semi: semi,
            rowStart: rowStart, rows: rest, cursor: stack)
        DominatorSemidominators.semidominators(
            count: count, parent: parent, semi: semi, rowStart: rowStart, rows: rest,
            links: stack)
        let dominator = parent
        let counts = stack
        let bytes = UnsafeMutablePointer<UInt64>.allocate(capacity: count)
        defer { bytes.deallocate() }
        nearestCommonAncestors(
            count: count, sizes: sizes, vertex: vertex, dominator: dominator, semi: semi,
            counts: counts, bytes: bytes)
        return writeResults(
            search: search, number: number, vertex: vertex, dominator: dominator,
            counts: counts, bytes: bytes, idom: idom, retainedCount: retainedCount,
            retainedSize: retainedSize)
    }

    /// Turns `dominator` (the parent numbers on entry) into the immediate dominators by
    /// number, and sums each number's retained count and bytes.
    ///
    /// The immediate dominator is the nearest ancestor of the parent, in the tree built so
    /// far, whose number is at most the semidominator's. A number's dominator is smaller, so
    /// one pass in reverse preorder adds whole subtrees.
    private func nearestCommonAncestors(
        count: Int, sizes: UnsafeBufferPointer<UInt32>, vertex: UnsafeMutablePointer<UInt32>,
        dominator: UnsafeMutablePointer<UInt32>, semi: UnsafeMutablePointer<UInt32>,
        counts: UnsafeMutablePointer<UInt32>, bytes: UnsafeMutablePointer<UInt64>
    ) {
        dominator[0] = 0
        counts[0] = 0
        bytes[0] = 0
        let sizeCount = sizes.count
        var position = 1
        while position < count {
            var candidate = dominator[position]
            let limit = semi[position]
            while candidate > limit { candidate = dominator[Int(candidate)] }
            dominator[position] = candidate
            counts[position] = 1
            let node = Int(vertex[position])
            bytes[position] = node < sizeCount ? UInt64(sizes[node]) : 0
            position &+= 1
        }
        position = count &- 1
        while position > 0 {
            let up = Int(dominator[position])
            counts[up] &+= counts[position]
            bytes[up] &+= bytes[position]
            position &-= 1
        }
    }

    /// Writes the per-node results, node by node (the reads by number are independent, the
    /// writes sequential).
    private func writeResults(
        search: DominatorSearch, number: UnsafeMutablePointer<UInt32>,
        vertex: UnsafeMutablePointer<UInt32>, dominator: UnsafeMutablePointer<UInt32>,
        counts: UnsafeMutablePointer<UInt32>, bytes: UnsafeMutablePointer<UInt64>,
        idom: UnsafeMutablePointer<UInt32>, retainedCount: UnsafeMutablePointer<UInt32>,
        retainedSize: UnsafeMutablePointer<UInt32>
    ) -> DominatorTotals {
        var large: [(node: UInt32, bytes: UInt64)] = []
        var node = 0
        while node < nodeCount {
            guard search.isReached(node) else {
                idom[node] = DominatorMarks.unreachable
                retainedCount[node] = 0
                retainedSize[node] = 0
                node &+= 1
                continue
            }
            let position = Int(number[node])
            let up = Int(dominator[position])
            idom[node] = up == 0 ? DominatorMarks.virtualRoot : vertex[up]
            retainedCount[node] = counts[position]
            let size = bytes[position]
            if size >= UInt64(UInt32.max) {
                retainedSize[node] = UInt32.max
                large.append((UInt32(truncatingIfNeeded: node), size))
            } else {
                retainedSize[node] = UInt32(truncatingIfNeeded: size)
            }
            node &+= 1
        }
        return DominatorTotals(count: Int(counts[0]), bytes: bytes[0], largeSizes: large)
    }
}
