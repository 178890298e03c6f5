/// The whole heap a discoverer read for one leak check, handed to the check with what it
/// found: the graph of every live object, where the watched objects are in it, and the
/// discoverer's own snapshot.
///
/// A leak check copies only what holds the watched objects (``SnapshotScope/retention(of:)``),
/// never what they hold, so it cannot tell how much a leaked object keeps alive. A discoverer
/// that read the whole heap (the heap census) hands it over here; the check computes the heap's
/// dominator tree once (``/ObjectGraph/CompactGraph/dominatorTree()``) and every report of the
/// check says what its object retains, and test helpers can write the snapshot out.
///
/// ```swift
/// additions.discoveredHeap = DiscoveredHeap(
///     graph: heap.graph, nodes: [watched.id: node], snapshot: heap)
/// ```
public struct DiscoveredHeap: Sendable {
    /// Every live object and what holds each, with real sizes.
    public let graph: CompactGraph
    /// The watched objects' nodes in ``graph``, by their identity in the check.
    public let nodes: [ObjectID: CompactGraph.NodeID]
    /// The discoverer's own snapshot, for code that knows its type (the heap census's
    /// `HeapSnapshot`, which writes itself as a `.heapsnapshot` file).
    public let snapshot: any Sendable

    /// Creates the hand-over.
    ///
    /// - Parameters:
    ///   - graph: The whole heap's graph.
    ///   - nodes: The watched objects' nodes in `graph`, by identity.
    ///   - snapshot: The discoverer's own snapshot of the same heap.
    public init(
        graph: CompactGraph, nodes: [ObjectID: CompactGraph.NodeID], snapshot: any Sendable
    ) {
        self.graph = graph
        self.nodes = nodes
        self.snapshot = snapshot
    }
}
