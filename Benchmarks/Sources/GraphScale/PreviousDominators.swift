// The dominator kernel as it was before issue 35 (ObjectGraph's `_DominatorKernel.swift` at
// a24a27e, unchanged but for its home), kept here so that `GraphScale dominators-ratio` can
// time it and the current one back to back in one process: a ratio that stays meaningful on a
// loaded machine, and a check, at a million nodes, that both give the same tree.

/// The previous kernel's inputs: the strong out-edge rows, read through the public API once.
struct PreviousDominators {
    static let unreachable = UInt32.max
    static let virtualRoot = UInt32.max - 1

    let outStart: UnsafeBufferPointer<UInt32>
    let strongOutEnd: UnsafeBufferPointer<UInt32>
    let targets: UnsafeBufferPointer<UInt32>
    let nodeCount: Int
}

extension PreviousDominators {
    /// Computes every node's immediate dominator over strong edges from a virtual root that
    /// holds every root, and each node's retained count and size.
    ///
    /// Semi-NCA (Georgiadis, "Linear-Time Algorithms for Dominators and Related Problems",
    /// 2005): one iterative depth-first search from the virtual root, the predecessors of each
    /// reached node sorted into rows by preorder number, semidominators in reverse preorder with
    /// path compression, then each immediate dominator as the nearest common ancestor of the
    /// parent and the semidominator. No recursion anywhere: a chain of a million nodes is fine.
    ///
    /// - Parameters:
    ///   - roots: The roots (node numbers; numbers out of range are skipped).
    ///   - sizes: Bytes per node, by node number; nodes past its end weigh 0.
    ///   - idom: Per node, on return: its immediate dominator, `virtualRoot`
    ///     or `unreachable`.
    ///   - retainedCount: Per node, on return: the nodes it dominates, itself included (0 when
    ///     unreachable).
    ///   - retainedSize: Per node, on return: the sum of `sizes` over those nodes.
    /// - Returns: The virtual root's totals: reachable nodes and their bytes.
    func semiNCADominators(
        roots: UnsafeBufferPointer<UInt32>, sizes: UnsafeBufferPointer<UInt32>,
        idom: UnsafeMutableBufferPointer<UInt32>, retainedCount: UnsafeMutableBufferPointer<UInt32>,
        retainedSize: UnsafeMutableBufferPointer<UInt64>
    ) -> (count: Int, bytes: UInt64) {
        let nodeCount = self.nodeCount
        // Preorder numbers: 0 is the virtual root, reached nodes get 1, 2, …; `number[v] == 0`
        // means not reached (no real node gets 0).
        let number = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        number.initialize(repeating: 0)
        let vertex = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount + 1)
        let parent = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount + 1)
        defer {
            number.deallocate()
            vertex.deallocate()
            parent.deallocate()
        }
        // Every strong edge between reached nodes, by preorder numbers, as the search meets it:
        // the predecessor rows are then sorted from these without looking a number up again.
        let edgeTo = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: targets.count)
        let edgeFrom = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: targets.count)
        defer {
            edgeTo.deallocate()
            edgeFrom.deallocate()
        }
        let (reached, edgeCount) = depthFirst(
            from: roots, number: number, vertex: vertex, parent: parent, edgeTo: edgeTo,
            edgeFrom: edgeFrom)
        let count = reached + 1  // with the virtual root

        // Predecessors by preorder number, in rows: the virtual root before each root, then
        // the holder of every strong edge between reached nodes.
        let predStart = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count + 1)
        predStart.initialize(repeating: 0)
        defer { predStart.deallocate() }
        for root in roots where Int(root) < nodeCount {
            predStart[Int(number[Int(root)]) + 1] &+= 1
        }
        for edge in 0..<edgeCount { predStart[Int(edgeTo[edge]) + 1] &+= 1 }
        for position in 0..<count { predStart[position + 1] &+= predStart[position] }
        let preds = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: Int(predStart[count]))
        defer { preds.deallocate() }
        // `semi` doubles as the fill cursor of each row until the main loop needs it.
        let semi = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
        defer { semi.deallocate() }
        _ = semi.initialize(from: predStart.prefix(count))
        for root in roots where Int(root) < nodeCount {
            let row = Int(number[Int(root)])
            preds[Int(semi[row])] = 0
            semi[row] &+= 1
        }
        for edge in 0..<edgeCount {
            let row = Int(edgeTo[edge])
            preds[Int(semi[row])] = edgeFrom[edge]
            semi[row] &+= 1
        }

        let dominator = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
        defer { dominator.deallocate() }
        semidominators(
            count: count, predStart: predStart, preds: preds, parent: parent, semi: semi,
            scratch: dominator)
        // NCA: the immediate dominator is the nearest ancestor of the parent, in the tree built
        // so far, whose number is at most the semidominator's.
        dominator[0] = 0
        for position in 1..<count {
            var candidate = parent[position]
            while candidate > semi[position] { candidate = dominator[Int(candidate)] }
            dominator[position] = candidate
        }

        // Retained counts and sizes: each node's totals go to its dominator, whose preorder
        // number is smaller, so one pass in reverse preorder sums whole subtrees.
        let counts = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
        let bytes = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: count)
        defer {
            counts.deallocate()
            bytes.deallocate()
        }
        counts[0] = 0
        bytes[0] = 0
        for position in 1..<count {
            let node = Int(vertex[position])
            counts[position] = 1
            bytes[position] = node < sizes.count ? UInt64(sizes[node]) : 0
        }
        for position in stride(from: count - 1, through: 1, by: -1) {
            let up = Int(dominator[position])
            counts[up] &+= counts[position]
            bytes[up] &+= bytes[position]
        }
        idom.initialize(repeating: Self.unreachable)
        retainedCount.initialize(repeating: 0)
        retainedSize.initialize(repeating: 0)
        for position in 1..<count {
            let node = Int(vertex[position])
            let up = Int(dominator[position])
            idom[node] = up == 0 ? Self.virtualRoot : vertex[up]
            retainedCount[node] = counts[position]
            retainedSize[node] = bytes[position]
        }
        return (Int(counts[0]), bytes[0])
    }

    /// Numbers the nodes the roots reach over strong edges in depth-first preorder (from 1),
    /// recording each one's node (`vertex`) and its parent's number (`parent`, 0 for roots),
    /// and every strong edge it crosses as a pair of numbers (`edgeFrom` → `edgeTo`).
    ///
    /// - Returns: The number of nodes reached and of edges recorded.
    private func depthFirst(
        from roots: UnsafeBufferPointer<UInt32>, number: UnsafeMutableBufferPointer<UInt32>,
        vertex: UnsafeMutableBufferPointer<UInt32>, parent: UnsafeMutableBufferPointer<UInt32>,
        edgeTo: UnsafeMutableBufferPointer<UInt32>, edgeFrom: UnsafeMutableBufferPointer<UInt32>
    ) -> (nodes: Int, edges: Int) {
        // The explicit stack: a node's number and the next strong edge to look at.
        let stackNode = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        let stackEdge = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        defer {
            stackNode.deallocate()
            stackEdge.deallocate()
        }
        var reached: UInt32 = 0
        var crossed = 0
        vertex[0] = 0
        parent[0] = 0
        for root in roots where Int(root) < nodeCount && number[Int(root)] == 0 {
            reached &+= 1
            number[Int(root)] = reached
            vertex[Int(reached)] = root
            parent[Int(reached)] = 0
            stackNode[0] = root
            stackEdge[0] = outStart[Int(root)]
            var depth = 1
            while depth > 0 {
                let node = Int(stackNode[depth - 1])
                let nodeNumber = number[node]
                var edge = Int(stackEdge[depth - 1])
                let end = Int(strongOutEnd[node])
                var descended = false
                while edge < end {
                    let next = Int(targets[edge])
                    edge += 1
                    var nextNumber = number[next]
                    let isNew = nextNumber == 0
                    if isNew {
                        reached &+= 1
                        nextNumber = reached
                        number[next] = reached
                    }
                    edgeTo[crossed] = nextNumber
                    edgeFrom[crossed] = nodeNumber
                    crossed += 1
                    if isNew {
                        vertex[Int(reached)] = UInt32(truncatingIfNeeded: next)
                        parent[Int(reached)] = nodeNumber
                        stackEdge[depth - 1] = UInt32(truncatingIfNeeded: edge)
                        stackNode[depth] = UInt32(truncatingIfNeeded: next)
                        stackEdge[depth] = outStart[next]
                        depth += 1
                        descended = true
                        break
                    }
                }
                if !descended { depth -= 1 }
            }
        }
        return (Int(reached), crossed)
    }

    /// Computes each reached node's semidominator (by preorder number) into `semi`, visiting
    /// numbers in decreasing order and evaluating processed predecessors with path compression.
    ///
    /// On entry `semi` holds garbage; `scratch` (one entry per number) is used as the forest of
    /// processed nodes (`ancestor`).
    private func semidominators(
        count: Int, predStart: UnsafeMutableBufferPointer<UInt32>,
        preds: UnsafeMutableBufferPointer<UInt32>, parent: UnsafeMutableBufferPointer<UInt32>,
        semi: UnsafeMutableBufferPointer<UInt32>,
        scratch ancestor: UnsafeMutableBufferPointer<UInt32>
    ) {
        let none = UInt32.max
        // `label[v]`: the smallest semidominator on the compressed path from v up to (not
        // including) the first unprocessed ancestor.
        let label = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
        let path = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
        defer {
            label.deallocate()
            path.deallocate()
        }
        for position in 0..<count {
            label[position] = UInt32(truncatingIfNeeded: position)
            ancestor[position] = none
        }
        for current in stride(from: count - 1, through: 1, by: -1) {
            var best = parent[current]
            for slot in Int(predStart[current])..<Int(predStart[current + 1]) {
                let holder = preds[slot]
                if Int(holder) <= current {
                    // Not processed yet (or a self loop): its own number.
                    if Int(holder) < current, holder < best { best = holder }
                    continue
                }
                // Processed: compress its path, then read the smallest label on it.
                var top = Int(holder)
                var depth = 0
                while ancestor[Int(ancestor[top])] != none {
                    path[depth] = UInt32(truncatingIfNeeded: top)
                    depth += 1
                    top = Int(ancestor[top])
                }
                while depth > 0 {
                    depth -= 1
                    let below = Int(path[depth])
                    let above = Int(ancestor[below])
                    if label[above] < label[below] { label[below] = label[above] }
                    ancestor[below] = ancestor[above]
                }
                let value = label[Int(holder)]
                if value < best { best = value }
            }
            semi[current] = best
            label[current] = best
            ancestor[current] = parent[current]
        }
        semi[0] = 0
    }
}

extension PreviousDominators {
    /// What `CompactGraph.dominatorTree()` returned before issue 35, computed the way it was:
    /// three per-node arrays, the kernel, then the 64-bit sizes narrowed to 32 bits.
    struct Tree {
        var idom: [UInt32]
        var counts: [UInt32]
        var sizes: [UInt32]
        var large: [(node: UInt32, bytes: UInt64)]
        var reachable: (count: Int, bytes: UInt64)
    }

    /// The previous `dominatorTree()`, on rows read from `graph` through its public API.
    static func tree(
        outStart: [UInt32], strongOutEnd: [UInt32], targets: [UInt32], roots: [UInt32],
        sizes: [UInt32]
    ) -> Tree {
        let nodeCount = strongOutEnd.count
        var counts: [UInt32] = []
        var wide: [UInt64] = []
        var totals = (count: 0, bytes: UInt64(0))
        let idom = [UInt32](unsafeUninitializedCapacity: nodeCount) { idom, initialized in
            counts = [UInt32](unsafeUninitializedCapacity: nodeCount) { counts, countsDone in
                wide = [UInt64](unsafeUninitializedCapacity: nodeCount) { wide, wideDone in
                    outStart.withUnsafeBufferPointer { outStart in
                        strongOutEnd.withUnsafeBufferPointer { strongOutEnd in
                            targets.withUnsafeBufferPointer { targets in
                                roots.withUnsafeBufferPointer { roots in
                                    sizes.withUnsafeBufferPointer { sizes in
                                        totals = PreviousDominators(
                                            outStart: outStart, strongOutEnd: strongOutEnd,
                                            targets: targets, nodeCount: nodeCount
                                        ).semiNCADominators(
                                            roots: roots, sizes: sizes, idom: idom,
                                            retainedCount: counts, retainedSize: wide)
                                    }
                                }
                            }
                        }
                    }
                    wideDone = nodeCount
                }
                countsDone = nodeCount
            }
            initialized = nodeCount
        }
        var large: [(node: UInt32, bytes: UInt64)] = []
        let narrow = [UInt32](unsafeUninitializedCapacity: nodeCount) { narrow, initialized in
            for node in 0..<nodeCount {
                let bytes = wide[node]
                if bytes >= UInt64(UInt32.max) {
                    narrow[node] = UInt32.max
                    large.append((UInt32(node), bytes))
                } else {
                    narrow[node] = UInt32(bytes)
                }
            }
            initialized = nodeCount
        }
        return Tree(idom: idom, counts: counts, sizes: narrow, large: large, reachable: totals)
    }
}
