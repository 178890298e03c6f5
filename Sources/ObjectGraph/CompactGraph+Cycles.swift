extension CompactGraph {
    /// One shortest cycle of retaining edges through `node`, starting at `node`, or `nil` when
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
