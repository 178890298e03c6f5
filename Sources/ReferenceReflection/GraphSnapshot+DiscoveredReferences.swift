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
    /// - Complexity: O((*n* + *r*) log (*n* + *r*)).
    public func addingDiscoveredReferences(from result: WalkResult) -> GraphSnapshot {
        let known = Set(nodes.map(\.id))
        var seenNodes: Set<ObjectID> = []
        let newNodes = result.nodes.filter {
            !known.contains($0.id) && seenNodes.insert($0.id).inserted
        }
        struct Key: Hashable {
            let from: ObjectID, to: ObjectID, kind: ReferenceKind, role: ReferenceRole
        }
        var present = Set(
            references.map { Key(from: $0.from, to: $0.to, kind: $0.kind, role: $0.role) })
        let newReferences = result.references.filter {
            present.insert(Key(from: $0.from, to: $0.to, kind: $0.kind, role: $0.role)).inserted
        }
        guard !newNodes.isEmpty || !newReferences.isEmpty else { return self }
        return adding(nodes: newNodes, references: newReferences)
    }
}
