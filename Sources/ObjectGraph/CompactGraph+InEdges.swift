import Locking

extension CompactGraph {
    /// The in-edge rows: for each node, the positions of the edges pointing at it, grouped by
    /// target, strong ones first, each group in holder order.
    package struct InEdgeRows: Sendable {
        let inStart: [UInt32]
        let strongInEnd: [UInt32]
        let inSources: [NodeID]
        let inEdges: [EdgeID]

        /// Bytes held by the four arrays.
        var bytes: Int { (inStart.count + strongInEnd.count + inSources.count + inEdges.count) * 4 }
    }

    /// The in-edge rows of one graph, built the first time a question needs them.
    ///
    /// Detection (components, root paths) reads only out-edges; only "who holds it" questions
    /// (``CompactGraph/strongPathFromRoot(to:)``, ``CompactGraph/incoming(to:)``) read in-edges.
    /// Building the rows scatters every edge to a random target's row: measured on the 1M-node
    /// random graph of `GraphScale`, about a third of a live graph's snapshot. A snapshot that is
    /// only analysed never pays it. Copies of a graph share one index, so the rows are built at
    /// most once per graph, under a lock (the build calls no user code).
    package final class InEdgeIndex: Sendable {
        private let rows = Locked<InEdgeRows?>(nil)

        package init() {}

        /// The rows, built from the graph's out-edges on first use.
        func rows(outStart: [UInt32], targets: [NodeID], edgeFlags: [UInt8]) -> InEdgeRows {
            rows.withLock { rows in
                if let rows { return rows }
                let built = InEdgeRows(outStart: outStart, targets: targets, edgeFlags: edgeFlags)
                rows = built
                return built
            }
        }

        /// The rows if they were built, without building them.
        var builtRows: InEdgeRows? { rows.withLock { $0 } }
    }

    /// The graph's in-edge rows (built on first use).
    var inEdgeRows: InEdgeRows {
        inEdgeIndex.rows(outStart: outStart, targets: targets, edgeFlags: edgeFlags)
    }
}

extension CompactGraph.InEdgeRows {
    /// Builds the reverse index from out-edge rows.
    init(outStart: [UInt32], targets: [CompactGraph.NodeID], edgeFlags: [UInt8]) {
        let nodeCount = outStart.count - 1
        var inStart = [UInt32](repeating: 0, count: nodeCount + 1)
        var strongInEnd = [UInt32](repeating: 0, count: nodeCount)
        var inSources = [CompactGraph.NodeID](repeating: 0, count: targets.count)
        var inEdges = [CompactGraph.EdgeID](repeating: 0, count: targets.count)
        EdgePlacement.placeInEdges(
            outStart: outStart, outTargets: targets, outFlags: edgeFlags, inStart: &inStart,
            strongInEnd: &strongInEnd, inSources: &inSources, inEdges: &inEdges)
        self.init(
            inStart: inStart, strongInEnd: strongInEnd, inSources: inSources, inEdges: inEdges)
    }
}
