extension GraphSnapshot {
    /// The ``Node`` of node number `node`, made from the compact columns.
    ///
    /// - Complexity: O(1) (two hash lookups in the sparse tables).
    func node(at node: UInt32) -> Node {
        let kind = NodeKind(graph.kind(of: node)) {
            graph.rootKind(of: node) ?? .custom(name: "root")
        }
        let extras = nodeExtras[node]
        return Node(
            id: id(at: node), typeName: graph.typeName(of: node), label: graph.label(of: node),
            kind: kind, address: graph.address(of: node), size: graph.size(of: node),
            creationTrace: extras?.trace, timer: extras?.timer, note: extras?.note)
    }

    /// The ``Reference`` of edge `edge`, held by node number `holder`.
    ///
    /// - Complexity: O(1).
    func reference(at edge: UInt32, from holder: UInt32) -> Reference {
        let id = Int(edge) < referenceIDs.count ? referenceIDs[Int(edge)] : nil
        return Reference(
            id: id?.slot == GraphStorage.noSlot ? nil : id, from: self.id(at: holder),
            to: self.id(at: graph.target(of: edge)), ownership: graph.ownership(ofEdge: edge),
            role: graph.role(ofEdge: edge), creationTrace: referenceTraces[Int(edge)],
            origin: graph.origin(ofEdge: edge), isLowPriority: graph.isLowPriority(edge))
    }

    /// The references of a path or cycle of the compact graph.
    func references(of steps: [CompactGraph.Step]) -> [Reference] {
        steps.map { reference(at: $0.edge, from: $0.from) }
    }
}
