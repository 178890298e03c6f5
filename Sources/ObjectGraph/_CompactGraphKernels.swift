// The inner loops of the compact graph's analyses, over unsafe buffer pointers.
//
// Why unsafe: at a million nodes these loops run tens of millions of times, and an array
// subscript costs a bounds check and, for a `var` array, a uniqueness check on every write;
// measured with callgrind on the random 100k-node graph of `GraphScale`, the array version of
// the component search spent about half its instructions on them. Every pointer here comes
// from an array of the graph (alive for the whole call) or from a scratch buffer allocated
// and freed in the same function; every index read from the graph is below `nodeCount` or
// `edgeCount` by construction (`CompactGraph.Builder.build` drops edges naming unknown nodes).

/// Read-only views of a compact graph's out-edge arrays, valid inside ``CompactGraph/withOutEdges(_:)``.
package struct OutEdgeKernel {
    package let outStart: UnsafeBufferPointer<UInt32>
    package let strongOutEnd: UnsafeBufferPointer<UInt32>
    package let targets: UnsafeBufferPointer<UInt32>
    package let nodeCount: Int
}

extension CompactGraph {
    /// Calls `body` with unsafe views of the out-edge arrays.
    package func withOutEdges<Result>(_ body: (OutEdgeKernel) -> Result) -> Result {
        outStart.withUnsafeBufferPointer { outStart in
            strongOutEnd.withUnsafeBufferPointer { strongOutEnd in
                targets.withUnsafeBufferPointer { targets in
                    body(
                        OutEdgeKernel(
                            outStart: outStart, strongOutEnd: strongOutEnd, targets: targets,
                            nodeCount: kinds.count))
                }
            }
        }
    }
}

/// A node's state in the component search, in one 16-byte record: its visit (later closing)
/// number, its number of strong edges and the targets of the first two.
///
/// Why a record: the depth-first search is a chain of dependent loads (a node's row gives its
/// first target, whose number says whether to descend, whose row gives the next target…).
/// Sampled with `perf` on the 1M-node random graph of `GraphScale`, 92 % of the search's time
/// sat on two loads: the target out of `targets` and its number. With the first two targets
/// next to the number, descending into a node and coming back to its second edge cost one cache
/// miss each instead of two or three (most objects hold one or two others strongly; a third
/// edge and beyond are read from the rows). Components of the 1M-node live-graph snapshot,
/// median of 9 (`GraphScale live-parts`): 225 ms with three arrays, 155–165 ms with records.
struct Visit {
    /// Pearce's `rindex`: 0 while unvisited, the visit number while open, then the component.
    var index: UInt32
    /// The number of strong out-edges.
    let degree: UInt32
    /// The targets of the first two strong out-edges (0 where there are fewer, never read).
    let first: UInt32
    let second: UInt32
}

extension OutEdgeKernel {
    /// Pearce's iterative search (PEA_FIND_SCC2) over strong edges.
    ///
    /// On return, `rindex[v]` is `v`'s closing number: components are numbered down from
    /// `nodeCount - 1` in completion order.
    ///
    /// - Returns: The number of components.
    func pearceComponents(into rindex: UnsafeMutableBufferPointer<UInt32>) -> Int {
        let nodeCount = self.nodeCount
        // Each node's number next to its row and first target (see `Visit`).
        let visits = UnsafeMutableBufferPointer<Visit>.allocate(capacity: nodeCount)
        for node in 0..<nodeCount {
            let start = Int(outStart[node])
            let degree = Int(strongOutEnd[node]) - start
            visits[node] = Visit(
                index: 0, degree: UInt32(truncatingIfNeeded: degree),
                first: degree > 0 ? targets[start] : 0, second: degree > 1 ? targets[start + 1] : 0)
        }
        // The explicit call stack: node, rank of the next strong edge to look at among the
        // node's strong edges, and whether the node is still
        // the root of its component. Depth is at most nodeCount.
        let frameNode = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        let frameEdge = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        let frameRoot = UnsafeMutableBufferPointer<Bool>.allocate(capacity: nodeCount)
        // Visited nodes not yet assigned that are not roots of their component.
        let waiting = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        defer {
            visits.deallocate()
            frameNode.deallocate()
            frameEdge.deallocate()
            frameRoot.deallocate()
            waiting.deallocate()
        }
        var depth = 0
        var waitingCount = 0
        var index: UInt32 = 1
        var component = UInt32(truncatingIfNeeded: nodeCount - 1)

        for start in 0..<nodeCount where visits[start].index == 0 {
            visits[start].index = index
            index &+= 1
            frameNode[0] = UInt32(truncatingIfNeeded: start)
            frameEdge[0] = 0
            frameRoot[0] = true
            depth = 1
            while depth > 0 {
                let top = depth - 1
                let node = Int(frameNode[top])
                var edge = Int(frameEdge[top])
                var isRoot = frameRoot[top]
                let end = Int(visits[node].degree)
                var nodeIndex = visits[node].index
                var descended = false
                while edge < end {
                    let next: Int
                    switch edge {
                    case 0: next = Int(visits[node].first)
                    case 1: next = Int(visits[node].second)
                    default: next = Int(targets[Int(outStart[node]) + edge])
                    }
                    let nextIndex = visits[next].index
                    if nextIndex == 0 {
                        frameEdge[top] = UInt32(truncatingIfNeeded: edge)
                        frameRoot[top] = isRoot
                        visits[node].index = nodeIndex
                        visits[next].index = index
                        index &+= 1
                        frameNode[depth] = UInt32(truncatingIfNeeded: next)
                        frameEdge[depth] = 0
                        frameRoot[depth] = true
                        depth += 1
                        descended = true
                        break
                    }
                    if nextIndex < nodeIndex {
                        nodeIndex = nextIndex
                        isRoot = false
                    }
                    edge += 1
                }
                if descended { continue }
                depth -= 1
                if isRoot {
                    index &-= 1
                    while waitingCount > 0,
                        nodeIndex <= visits[Int(waiting[waitingCount - 1])].index
                    {
                        waitingCount -= 1
                        visits[Int(waiting[waitingCount])].index = component
                        index &-= 1
                    }
                    nodeIndex = component
                    component &-= 1
                } else {
                    waiting[waitingCount] = UInt32(truncatingIfNeeded: node)
                    waitingCount += 1
                }
                visits[node].index = nodeIndex
                // Back in the parent: finish the edge that led here, then move past it.
                if depth > 0 {
                    let parent = depth - 1
                    let parentNode = Int(frameNode[parent])
                    if nodeIndex < visits[parentNode].index {
                        visits[parentNode].index = nodeIndex
                        frameRoot[parent] = false
                    }
                    frameEdge[parent] &+= 1
                }
            }
        }
        for node in 0..<nodeCount { rindex[node] = visits[node].index }
        // `component` wrapped below zero once the last node was assigned: count in UInt32.
        return Int(UInt32(truncatingIfNeeded: nodeCount - 1) &- component)
    }

}

/// The counting sorts that place a builder's edges into rows (see
/// ``CompactGraph/Builder/build(numberingForLocality:)``), over unsafe buffers for the same
/// reason as the searches above: `&+=` on an array element costs a uniqueness check per edge.
package struct EdgePlacement {
    /// Each node's new number, by the number it was added with.
    let number: [UInt32]
    let start: [UInt32]
    let strongEnd: [UInt32]

    /// Counts each holder's edges (strong ones apart) and turns the counts into row starts
    /// (`start`, one extra end entry) and strong-edge ends (`strongEnd`).
    ///
    /// `number` is each node's new number, or empty when nodes keep theirs.
    ///
    /// - Returns: The number of edges kept (both ends below the node count).
    static func countRows(
        sources: UnsafeBufferPointer<UInt32>, targets: UnsafeBufferPointer<UInt32>,
        flags: UnsafeBufferPointer<UInt8>, number: UnsafeBufferPointer<UInt32>,
        start: UnsafeMutableBufferPointer<UInt32>, strongEnd: UnsafeMutableBufferPointer<UInt32>
    ) -> Int {
        let nodeCount = strongEnd.count
        let isIdentity = number.isEmpty
        for edge in 0..<sources.count {
            let from = Int(sources[edge])
            guard from < nodeCount, Int(targets[edge]) < nodeCount else { continue }
            let holder = isIdentity ? from : Int(number[from])
            start[holder + 1] &+= 1
            if CompactGraph.isRetaining(flags[edge]) { strongEnd[holder] &+= 1 }
        }
        accumulateRows(start: start, strongEnd: strongEnd)
        return Int(start[nodeCount])
    }

    /// Turns per-row counts into row bounds: on entry `start[k + 1]` counts row `k`'s edges
    /// and `strongEnd[k]` its strong ones; on return `start[k]` is where row `k` starts (one
    /// extra end entry) and `strongEnd[k]` where its strong edges end.
    package static func accumulateRows(
        start: UnsafeMutableBufferPointer<UInt32>, strongEnd: UnsafeMutableBufferPointer<UInt32>
    ) {
        for node in 0..<strongEnd.count {
            start[node + 1] &+= start[node]
            strongEnd[node] &+= start[node]
        }
    }

    /// Moves every kept edge to its place in its holder's row, strong ones first, each part in
    /// the order added, in the columns themselves, for nodes that keep their numbers: no second set of columns while building
    /// (9 bytes an edge) and no cursors (8 bytes a node). The edges dropped (an end not below
    /// the node count) go last, and the caller cuts the columns to `kept`.
    ///
    /// On entry `start` and `strongEnd` are the rows ``countRows(sources:targets:flags:number:start:strongEnd:)``
    /// made; they serve as the cursors, each edge placed from its row's end down (the edges
    /// taken last to first), and hold the rows again on return. `sources` holds each edge's
    /// place meanwhile, and nothing useful on return.
    ///
    /// - Complexity: O(*e*) time; every edge moved at most once, by swaps along the cycles of
    ///   the permutation (a heap's edges, read holder by holder, are mostly in place already).
    static func placeInPlace(
        sources: UnsafeMutableBufferPointer<UInt32>, targets: UnsafeMutableBufferPointer<UInt32>,
        flags: UnsafeMutableBufferPointer<UInt8>, roles: UnsafeMutableBufferPointer<UInt32>,
        tags: UnsafeMutableBufferPointer<UInt32>, start: UnsafeMutableBufferPointer<UInt32>,
        strongEnd: UnsafeMutableBufferPointer<UInt32>
    ) {
        let nodeCount = strongEnd.count
        let hasTags = !tags.isEmpty
        // Cursors at the rows' ends: a strong edge goes before `start[k]`, which then moves
        // down to the row's start; any other before `strongEnd[k]`, down to the strong end.
        for node in 0..<nodeCount {
            let end = start[node + 1]
            start[node] = strongEnd[node]
            strongEnd[node] = end
        }
        var dropped = sources.count
        var edge = sources.count
        while edge > 0 {
            edge -= 1
            let from = Int(sources[edge])
            let to = Int(targets[edge])
            guard from < nodeCount, to < nodeCount else {
                dropped -= 1
                sources[edge] = UInt32(truncatingIfNeeded: dropped)
                continue
            }
            if CompactGraph.isRetaining(flags[edge]) {
                start[from] &-= 1
                sources[edge] = start[from]
            } else {
                strongEnd[from] &-= 1
                sources[edge] = strongEnd[from]
            }
        }
        // Each swap puts one edge where it belongs.
        let place = sources
        for position in 0..<place.count {
            while Int(place[position]) != position {
                let other = Int(place[position])
                targets.swapAt(position, other)
                flags.swapAt(position, other)
                roles.swapAt(position, other)
                if hasTags { tags.swapAt(position, other) }
                place[position] = place[other]
                place[other] = UInt32(truncatingIfNeeded: other)
            }
        }
    }

    /// Places every kept edge in its holder's row, strong ones first, each part in the order
    /// added, into new columns: for a renumbered graph, whose edges all move to random places.
    /// Swapping them in place (``placeInPlace(sources:targets:flags:roles:tags:start:strongEnd:)``)
    /// took 1.4× as long on GraphScale's random graph of 1M nodes (515–545 ms against
    /// 367–387 ms for the whole build), where scattering each edge once into fresh columns
    /// costs the columns' memory instead.
    func placeOutEdges(
        sources: [UInt32], targets: [UInt32], flags: [UInt8], roles: [UInt32], tags: [UInt32],
        outTargets: inout [UInt32], outFlags: inout [UInt8], outRoles: inout [UInt32],
        outTags: inout [UInt32]
    ) {
        let nodeCount = strongEnd.count
        let hasTags = !outTags.isEmpty
        let isIdentity = number.isEmpty
        let strongCursor = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        let otherCursor = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        defer {
            strongCursor.deallocate()
            otherCursor.deallocate()
        }
        start.withUnsafeBufferPointer { start in
            _ = strongCursor.initialize(from: start.prefix(nodeCount))
        }
        _ = strongEnd.withUnsafeBufferPointer { otherCursor.initialize(from: $0) }
        number.withUnsafeBufferPointer { number in
            sources.withUnsafeBufferPointer { sources in
                targets.withUnsafeBufferPointer { targets in
                    flags.withUnsafeBufferPointer { flags in
                        roles.withUnsafeBufferPointer { roles in
                            tags.withUnsafeBufferPointer { tags in
                                outTargets.withUnsafeMutableBufferPointer { outTargets in
                                    outFlags.withUnsafeMutableBufferPointer { outFlags in
                                        outRoles.withUnsafeMutableBufferPointer { outRoles in
                                            outTags.withUnsafeMutableBufferPointer { outTags in
                                                for edge in 0..<sources.count {
                                                    let from = Int(sources[edge])
                                                    let to = Int(targets[edge])
                                                    guard from < nodeCount, to < nodeCount
                                                    else { continue }
                                                    let holder =
                                                        isIdentity ? from : Int(number[from])
                                                    let flag = flags[edge]
                                                    let slot: Int
                                                    if CompactGraph.isRetaining(flag) {
                                                        slot = Int(strongCursor[holder])
                                                        strongCursor[holder] &+= 1
                                                    } else {
                                                        slot = Int(otherCursor[holder])
                                                        otherCursor[holder] &+= 1
                                                    }
                                                    outTargets[slot] =
                                                        isIdentity
                                                        ? UInt32(truncatingIfNeeded: to)
                                                        : number[to]
                                                    outFlags[slot] = flag
                                                    outRoles[slot] = roles[edge]
                                                    if hasTags { outTags[slot] = tags[edge] }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Builds the reverse index from the out-edge rows: for each target, its holders in
    /// holder order, strong ones first.
    static func placeInEdges(
        outStart: [UInt32], outTargets: [UInt32], outFlags: [UInt8], inStart: inout [UInt32],
        strongInEnd: inout [UInt32], inSources: inout [UInt32], inEdges: inout [UInt32]
    ) {
        let nodeCount = strongInEnd.count
        let strongCursor = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        let otherCursor = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: nodeCount)
        defer {
            strongCursor.deallocate()
            otherCursor.deallocate()
        }
        outStart.withUnsafeBufferPointer { outStart in
            outTargets.withUnsafeBufferPointer { outTargets in
                outFlags.withUnsafeBufferPointer { outFlags in
                    inStart.withUnsafeMutableBufferPointer { inStart in
                        strongInEnd.withUnsafeMutableBufferPointer { strongInEnd in
                            for slot in 0..<outTargets.count {
                                let target = Int(outTargets[slot])
                                inStart[target + 1] &+= 1
                                if CompactGraph.isRetaining(outFlags[slot]) {
                                    strongInEnd[target] &+= 1
                                }
                            }
                            accumulateRows(start: inStart, strongEnd: strongInEnd)
                            _ = strongCursor.initialize(from: inStart.prefix(nodeCount))
                            _ = otherCursor.initialize(from: strongInEnd)
                        }
                    }
                    inSources.withUnsafeMutableBufferPointer { inSources in
                        inEdges.withUnsafeMutableBufferPointer { inEdges in
                            for holder in 0..<nodeCount {
                                for slot in Int(outStart[holder])..<Int(outStart[holder + 1]) {
                                    let target = Int(outTargets[slot])
                                    let position: Int
                                    if CompactGraph.isRetaining(outFlags[slot]) {
                                        position = Int(strongCursor[target])
                                        strongCursor[target] &+= 1
                                    } else {
                                        position = Int(otherCursor[target])
                                        otherCursor[target] &+= 1
                                    }
                                    inSources[position] = UInt32(truncatingIfNeeded: holder)
                                    inEdges[position] = UInt32(truncatingIfNeeded: slot)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
