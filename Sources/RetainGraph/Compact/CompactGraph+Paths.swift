extension CompactGraph {
    /// The shortest strong path from any root to every node a root reaches.
    ///
    /// Made by one breadth-first search from all roots at once over strong edges: each path it
    /// gives has the fewest edges of any strong path from any root.
    ///
    /// ```swift
    /// let paths = graph.rootPaths()
    /// if let path = paths.path(to: leaked) { print(path.map { graph.label(ofEdge: $0.edge) }) }
    /// ```
    public struct RootPathTree: Sendable {
        /// For each node: the edge that first reached it, ``unreached``, or ``rootMark``.
        let parentEdge: [EdgeID]
        /// For each node: the holder of ``parentEdge``.
        let parentNode: [NodeID]
        static let unreached = EdgeID.max
        static let rootMark = EdgeID.max - 1

        /// Whether some root reaches `node` through strong edges (roots reach themselves).
        ///
        /// - Complexity: O(1).
        public func isReachable(_ node: NodeID) -> Bool { parentEdge[Int(node)] != Self.unreached }

        /// The shortest strong path from a root to `node`, root first.
        ///
        /// - Returns: `[]` when `node` is a root, `nil` when no root reaches it.
        /// - Complexity: O(length of the path).
        public func path(to node: NodeID) -> [Step]? {
            var current = Int(node)
            guard parentEdge[current] != Self.unreached else { return nil }
            var steps: [Step] = []
            while parentEdge[current] != Self.rootMark {
                let holder = parentNode[current]
                steps.append(Step(from: holder, edge: parentEdge[current], to: NodeID(current)))
                current = Int(holder)
            }
            return steps.reversed()
        }
    }

    /// Finds the shortest strong path from any root to every node.
    ///
    /// - Complexity: O(*n* + *e*) time, 8 bytes per node.
    public func rootPaths() -> RootPathTree {
        let nodeCount = kinds.count
        var parentNode: [NodeID] = []
        let parentEdge = [EdgeID](unsafeUninitializedCapacity: nodeCount) { edges, count in
            parentNode = [NodeID](unsafeUninitializedCapacity: nodeCount) { nodes, initialized in
                withOutEdges {
                    $0.strongBreadthFirst(
                        from: rootNodes, parentEdge: edges, parentNode: nodes,
                        unreached: RootPathTree.unreached, rootMark: RootPathTree.rootMark)
                }
                initialized = nodes.count
            }
            count = nodeCount
        }
        return RootPathTree(parentEdge: parentEdge, parentNode: parentNode)
    }

    /// The shortest strong path from the nearest root to `node`, root first: "who holds it".
    ///
    /// Searches backwards from `node` over strong in-edges and stops at the first root found,
    /// so a node a few references from a root costs a few steps whatever the graph's size
    /// (plus clearing one array of 4 bytes per node).
    ///
    /// - Returns: `[]` when `node` is a root, `nil` when no root holds it through strong edges
    ///   (for example, when it is reachable only through weak ones).
    /// - Complexity: O(*n* + *e*) at worst.
    public func strongPathFromRoot(to node: NodeID) -> [Step]? {
        if isRoot(node) { return [] }
        let nodeCount = kinds.count
        let rows = inEdgeRows
        let inStart = rows.inStart
        let strongInEnd = rows.strongInEnd
        let inSources = rows.inSources
        let inEdges = rows.inEdges
        // For each node seen: the in-edge position that leads from it towards `node`.
        let unseen = UInt32.max
        var towards = [UInt32](repeating: unseen, count: nodeCount)
        towards[Int(node)] = unseen - 1
        var queue: [NodeID] = [node]
        var head = 0
        while head < queue.count {
            let current = Int(queue[head])
            head += 1
            for position in Int(inStart[current])..<Int(strongInEnd[current]) {
                let holder = Int(inSources[position])
                guard towards[holder] == unseen else { continue }
                towards[holder] = UInt32(position)
                if isRoot(NodeID(holder)) {
                    var steps: [Step] = []
                    var at = holder
                    while at != Int(node) {
                        let position = Int(towards[at])
                        let edge = inEdges[position]
                        let next = Int(targets[Int(edge)])
                        steps.append(Step(from: NodeID(at), edge: edge, to: NodeID(next)))
                        at = next
                    }
                    return steps
                }
                queue.append(NodeID(holder))
            }
        }
        return nil
    }

    /// One shortest cycle of strong edges through `node`, starting at `node`, or `nil` when
    /// `node` sits in no cycle.
    ///
    /// - Parameters:
    ///   - node: The node the cycle must pass through.
    ///   - components: The graph's components, if already computed; the search then stays
    ///     inside `node`'s component.
    /// - Complexity: O(*n* + *e*) at worst; bounded by `node`'s component when `components`
    ///   is given.
    public func cycle(through node: NodeID, components: Components? = nil) -> [Step]? {
        let component = components.map { $0.component(of: node) }
        if let components, let component, !components.isCycle(component) { return nil }
        // For each node reached: the edge that reached it (a small dictionary: the search is
        // usually short).
        var reachedBy: [NodeID: EdgeID] = [:]
        var holderOf: [NodeID: NodeID] = [:]
        var queue: [NodeID] = [node]
        var head = 0
        while head < queue.count {
            let current = queue[head]
            head += 1
            for edge in strongOutEdges(of: current) {
                let next = targets[edge]
                if let components, let component, components.component(of: next) != component {
                    continue
                }
                if next == node {
                    var steps = [Step(from: current, edge: EdgeID(edge), to: node)]
                    var at = current
                    while at != node, let edge = reachedBy[at], let holder = holderOf[at] {
                        steps.append(Step(from: holder, edge: edge, to: at))
                        at = holder
                    }
                    return steps.reversed()
                }
                if reachedBy[next] == nil {
                    reachedBy[next] = EdgeID(edge)
                    holderOf[next] = current
                    queue.append(next)
                }
            }
        }
        return nil
    }
}
