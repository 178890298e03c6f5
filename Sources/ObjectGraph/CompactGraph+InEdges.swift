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

    /// The graph's in-edge rows, built the first time a question needs them.
    ///
    /// Detection (components, root paths) reads only out-edges; only "who holds it" questions
    /// (``CompactGraph/strongPathFromRoot(to:)``, ``CompactGraph/incoming(to:)``) read in-edges.
    /// Building the rows scatters every edge to a random target's row: measured on the 1M-node
    /// random graph of `GraphScale`, about a third of a live graph's snapshot. A snapshot that is
    /// only analysed never pays it; copies of a graph share the rows.
    var inEdgeRows: InEdgeRows {
        inEdgeIndex.value { InEdgeRows(outStart: outStart, targets: targets, edgeFlags: edgeFlags) }
    }

    /// A value a graph computes the first time it is asked for and shares with its copies,
    /// under a lock (the computation calls no user code).
    package final class Computed<Value: Sendable>: Sendable {
        private let stored = Locked<Value?>(nil)

        package init() {}

        /// A value made already.
        package init(_ value: Value) { stored.withLock { $0 = value } }

        /// The value, made with `make` on first use.
        package func value(_ make: () -> Value) -> Value {
            stored.withLock { stored in
                if let stored { return stored }
                let value = make()
                stored = value
                return value
            }
        }

        /// The value if it was made, without making it.
        package var madeValue: Value? { stored.withLock { $0 } }
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
