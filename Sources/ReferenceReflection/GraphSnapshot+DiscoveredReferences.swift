import RetainGraph

extension GraphSnapshot {
    /// A snapshot with the nodes and references of a reflection walk added.
    ///
    /// Nodes the snapshot already has are kept as they are (the snapshot's labels, kinds and
    /// timer information win); a discovered reference that duplicates one already present
    /// (same holder, target, kind and role, declared or not) is dropped, so declaring an edge
    /// and discovering it does not double it.
    ///
    /// ```swift
    /// let result = ReferenceWalker(graph: graph).walk(from: [owner])
    /// let enriched = graph.snapshot().addingDiscoveredReferences(from: result)
    /// let cycles = enriched.stronglyConnectedComponents().cycles
    /// ```
    ///
    /// - Parameter result: A walk over objects of the graph this snapshot was taken from.
    /// - Returns: The enriched snapshot.
    /// - Complexity: O(*n* + *r*) (the compact graph is built again).
    public func addingDiscoveredReferences(from result: WalkResult) -> GraphSnapshot {
        var additions = GraphSnapshot.Builder(
            expectedNodes: result.nodes.count, expectedReferences: result.references.count)
        for node in result.nodes { additions.addNode(node) }
        for reference in result.references { additions.addReference(reference) }
        return adding(additions)
    }
}
