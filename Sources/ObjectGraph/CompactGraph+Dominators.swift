extension CompactGraph {
    /// Who keeps what alive: every node's immediate dominator over strong edges from the roots,
    /// and how many nodes and bytes each node retains.
    ///
    /// A node *d* dominates *v* when every strong path from any root to *v* passes through *d*:
    /// were *d* freed, *v* would be too. The tree is computed below a virtual root that holds
    /// every root, so a node held by two roots is dominated by neither. A node's retained set is
    /// itself and every node it dominates; its retained size is the sum of their sizes — what
    /// Chrome DevTools' Memory panel calls "Retained Size".
    ///
    /// ```swift
    /// let tree = graph.dominatorTree()      // sizes are the graph's (Builder.addNode(size:))
    /// print(tree.retainedSize(of: session), tree.retainedCount(of: session))
    /// for group in tree.largestRetainers(in: graph, limit: 5) {
    ///     print(group.typeName, group.retainedBytes)
    /// }
    /// ```
    ///
    /// Memory: 12 bytes per node (the immediate dominator, the retained count and the retained
    /// size as 32-bit numbers), plus 16 bytes for each node that retains 4 GiB or more (its
    /// exact size, kept apart).
    public struct DominatorTree: Sendable {
        /// Per node: its immediate dominator, or a mark (`DominatorMarks`).
        let idom: [NodeID]
        /// Per node: the nodes it dominates, itself included (0 when unreachable).
        let counts: [UInt32]
        /// Per node: its retained size, or `UInt32.max` when the size is in `largeSizes`.
        let sizes: [UInt32]
        /// Retained sizes of 4 GiB or more, by ascending node.
        let largeSizes: [(node: NodeID, bytes: UInt64)]

        /// The number of nodes some root reaches through strong edges.
        public let reachableCount: Int
        /// The bytes of every reachable node: the virtual root's retained size.
        public let reachableBytes: UInt64

        /// Whether some root reaches `node` through strong edges (roots reach themselves).
        ///
        /// - Complexity: O(1).
        public func isReachable(_ node: NodeID) -> Bool {
            Int(node) < idom.count && idom[Int(node)] != DominatorMarks.unreachable
        }

        /// The node's immediate dominator: the last node every strong path from the roots to
        /// `node` passes through.
        ///
        /// - Parameter node: A node of the graph the tree was computed for.
        /// - Returns: `nil` when `node` is a root, is held by several roots through disjoint
        ///   paths (only the virtual root above all roots dominates it), is unreachable, or is
        ///   not a node of the graph.
        /// - Complexity: O(1).
        public func immediateDominator(of node: NodeID) -> NodeID? {
            guard Int(node) < idom.count else { return nil }
            let up = idom[Int(node)]
            return up >= DominatorMarks.virtualRoot ? nil : up
        }

        /// The number of nodes that `node` retains: itself and every node it dominates.
        ///
        /// - Returns: 0 when `node` is unreachable or not a node of the graph.
        /// - Complexity: O(1).
        public func retainedCount(of node: NodeID) -> Int {
            Int(node) < counts.count ? Int(counts[Int(node)]) : 0
        }

        /// The bytes `node` retains: the sizes of itself and of every node it dominates.
        ///
        /// - Returns: 0 when `node` is unreachable or not a node of the graph.
        /// - Complexity: O(1), or O(log *k*) for one of the *k* nodes retaining 4 GiB or more.
        public func retainedSize(of node: NodeID) -> UInt64 {
            guard Int(node) < sizes.count else { return 0 }
            let size = sizes[Int(node)]
            guard size == UInt32.max else { return UInt64(size) }
            var low = 0
            var high = largeSizes.count
            while low < high {
                let middle = (low + high) / 2
                if largeSizes[middle].node < node { low = middle + 1 } else { high = middle }
            }
            return low < largeSizes.count ? largeSizes[low].bytes : UInt64(size)
        }

        /// Bytes held by the tree's arrays: 12 per node, plus 16 per node that retains 4 GiB
        /// or more.
        public var bytes: Int {
            idom.count * 4 + counts.count * 4 + sizes.count * 4 + largeSizes.count * 16
        }
    }

    /// Computes the dominator tree over strong edges from the roots, with retained counts and
    /// sizes.
    ///
    /// Sizes are the nodes' own (``size(of:)``, given to the builder); a graph built without
    /// sizes still gets exact retained counts, and retained sizes of 0. Edges that retain their
    /// target (``Ownership/retainsTarget``: strong and conservative ones) are the tree's edges,
    /// but for a word of a task's memory (a last resort for the path finder) into an object
    /// some other retaining edge reaches: that word may be stale, and explains nothing more.
    ///
    /// ```swift
    /// let tree = HeapCensus.snapshot().graph.dominatorTree()
    /// ```
    ///
    /// - Returns: The tree.
    /// - Complexity: O((*n* + *e*) log *n*) time for *n* nodes and *e* edges (Semi-NCA with
    ///   path compression, iterative; close to linear in practice); 12 bytes per node kept.
    ///   While it runs, scratch memory of about 36 bytes per node and 12 per strong edge, plus
    ///   up to 8 per strong edge for the search's stack.
    public func dominatorTree() -> DominatorTree {
        let nodeCount = kinds.count
        var counts: [UInt32] = []
        var retained: [UInt32] = []
        var totals = DominatorTotals(count: 0, bytes: 0, largeSizes: [])
        let idom = [NodeID](unsafeUninitializedCapacity: nodeCount) { idom, initialized in
            counts = [UInt32](unsafeUninitializedCapacity: nodeCount) { counts, countsDone in
                retained = [UInt32](unsafeUninitializedCapacity: nodeCount) { sizes, sizesDone in
                    totals = computeDominators(
                        idom: idom, retainedCount: counts, retainedSize: sizes)
                    sizesDone = nodeCount
                }
                countsDone = nodeCount
            }
            initialized = nodeCount
        }
        return DominatorTree(
            idom: idom, counts: counts, sizes: retained, largeSizes: totals.largeSizes,
            reachableCount: totals.count, reachableBytes: totals.bytes)
    }

    /// Runs the kernel on the graph's arrays into the three per-node buffers.
    private func computeDominators(
        idom: UnsafeMutableBufferPointer<UInt32>, retainedCount: UnsafeMutableBufferPointer<UInt32>,
        retainedSize: UnsafeMutableBufferPointer<UInt32>
    ) -> DominatorTotals {
        guard let idom = idom.baseAddress, let retainedCount = retainedCount.baseAddress,
            let retainedSize = retainedSize.baseAddress
        else { return DominatorTotals(count: 0, bytes: 0, largeSizes: []) }
        let kernel = { (edges: OutEdgeKernel) in
            rootNodes.withUnsafeBufferPointer { roots in
                sizes.withUnsafeBufferPointer { sizes in
                    edges.semiNCADominators(
                        roots: roots, sizes: sizes, idom: idom, retainedCount: retainedCount,
                        retainedSize: retainedSize)
                }
            }
        }
        let redundant = redundantLastResortEdges()
        guard !redundant.isEmpty else { return withOutEdges(kernel) }
        // The tree's edges without the redundant ones: a row that holds one keeps its other
        // retaining edges first, and ends before the rest. (The arrays are copied whole, a
        // memcpy; few rows change.)
        var end = strongOutEnd
        var kept = targets
        var next = 0
        while next < redundant.count {
            let row = Int(source(of: redundant[next]))
            var write = Int(outStart[row])
            for edge in Int(outStart[row])..<Int(strongOutEnd[row]) {
                if next < redundant.count, Int(redundant[next]) == edge {
                    next += 1
                } else {
                    kept[write] = targets[edge]
                    write += 1
                }
            }
            end[row] = UInt32(write)
        }
        return outStart.withUnsafeBufferPointer { start in
            end.withUnsafeBufferPointer { end in
                kept.withUnsafeBufferPointer { kept in
                    kernel(
                        OutEdgeKernel(
                            outStart: start, strongOutEnd: end, targets: kept,
                            nodeCount: kinds.count))
                }
            }
        }
    }

    /// The last-resort edges (words of a task's memory, which may be stale pointers) into
    /// nodes the roots reach through retaining edges that are not: such a word explains
    /// nothing another reference does not, so it retains nothing in the dominator tree or in
    /// an export (where Chrome DevTools would otherwise measure distances and draw the
    /// Retainers through it). A last-resort edge into a node nothing else reaches still
    /// retains it.
    ///
    /// - Returns: The edges, ascending; empty when there is none.
    /// - Complexity: O(*e*) to find the last-resort edges; when there are some, O(*n* + *e*)
    ///   more for one breadth-first search.
    package func redundantLastResortEdges() -> [EdgeID] {
        var lastResort: [EdgeID] = []
        for edge in edgeFlags.indices
        where Self.isLastResort(edgeFlags[edge]) && Self.isRetaining(edgeFlags[edge]) {
            lastResort.append(EdgeID(edge))
        }
        guard !lastResort.isEmpty else { return [] }
        var reached = [Bool](repeating: false, count: kinds.count)
        var queue: [NodeID] = []
        queue.reserveCapacity(kinds.count)
        for root in rootNodes where Int(root) < reached.count && !reached[Int(root)] {
            reached[Int(root)] = true
            queue.append(root)
        }
        var head = 0
        while head < queue.count {
            let node = Int(queue[head])
            head += 1
            for edge in Int(outStart[node])..<Int(strongOutEnd[node])
            where !Self.isLastResort(edgeFlags[edge]) {
                let target = Int(targets[edge])
                if !reached[target] {
                    reached[target] = true
                    queue.append(targets[edge])
                }
            }
        }
        return lastResort.filter { reached[Int(targets[Int($0)])] }
    }
}
