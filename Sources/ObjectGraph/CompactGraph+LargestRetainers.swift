extension CompactGraph.DominatorTree {
    /// The objects of one type that retain the most, as ``largestRetainers(in:limit:)`` finds
    /// them.
    public struct RetainerGroup: Hashable, Sendable {
        /// The type name the group's objects share.
        public let typeName: String
        /// How many reachable objects have that type.
        public let instanceCount: Int
        /// The bytes the group retains: the retained sizes of its objects, each object counted
        /// once (an object dominated by another object of the same type is already inside that
        /// one's retained size).
        public let retainedBytes: UInt64
        /// The objects the group retains, counted the same way.
        public let retainedCount: Int
        /// The object of the group that retains the most bytes.
        public let largest: CompactGraph.NodeID
    }

    /// The types whose objects retain the most bytes, largest first: where the memory goes.
    ///
    /// Each reachable object belongs to the group of its type name. A group's retained bytes
    /// add up its objects' retained sizes, leaving out objects that another object of the same
    /// type dominates (their bytes are already in that one's), as Chrome DevTools does for its
    /// Summary's "Retained Size" column.
    ///
    /// ```swift
    /// for group in tree.largestRetainers(in: graph, limit: 3) {
    ///     print("\(group.typeName) ×\(group.instanceCount) retains \(group.retainedBytes) B")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - graph: The graph the tree was computed for.
    ///   - limit: The most groups to return (clamped to at least 0).
    /// - Returns: Up to `limit` groups, by decreasing retained bytes, then by type name.
    /// - Complexity: O(*n* + *t* log *t*) for *n* nodes of *t* type names; 12 bytes per node of
    ///   scratch memory.
    public func largestRetainers(in graph: CompactGraph, limit: Int = 10) -> [RetainerGroup] {
        let nodeCount = min(idom.count, graph.nodeCount)
        guard nodeCount > 0, limit > 0 else { return [] }
        // Children of each node in the tree, in rows (the virtual root's row is last).
        let top = nodeCount
        var childStart = [UInt32](repeating: 0, count: nodeCount + 2)
        for node in 0..<nodeCount where idom[node] != DominatorMarks.unreachable {
            let up = idom[node] == DominatorMarks.virtualRoot ? top : Int(idom[node])
            childStart[up + 1] &+= 1
        }
        for row in 0...nodeCount { childStart[row + 1] &+= childStart[row] }
        var cursor = childStart
        var children = [CompactGraph.NodeID](repeating: 0, count: Int(childStart[nodeCount + 1]))
        for node in 0..<nodeCount where idom[node] != DominatorMarks.unreachable {
            let up = idom[node] == DominatorMarks.virtualRoot ? top : Int(idom[node])
            children[Int(cursor[up])] = CompactGraph.NodeID(node)
            cursor[up] &+= 1
        }
        cursor = []

        // One walk down the tree; `open[type]` counts the ancestors of that type on the way.
        let typeCount = graph.strings.count
        var open = [UInt32](repeating: 0, count: typeCount)
        var instances = [Int](repeating: 0, count: typeCount)
        var bytes = [UInt64](repeating: 0, count: typeCount)
        var objects = [Int](repeating: 0, count: typeCount)
        var largest = [CompactGraph.NodeID?](repeating: nil, count: typeCount)
        var stack: [(node: Int, next: UInt32)] = [(top, childStart[top])]
        while let frame = stack.last {
            if frame.next == childStart[frame.node + 1] {
                stack.removeLast()
                if frame.node != top {
                    open[Int(graph.typeNameNumber(of: UInt32(frame.node)))] -= 1
                }
                continue
            }
            stack[stack.count - 1].next += 1
            let node = children[Int(frame.next)]
            let type = Int(graph.typeNameNumber(of: node))
            instances[type] += 1
            let size = retainedSize(of: node)
            if open[type] == 0 {
                bytes[type] &+= size
                objects[type] += retainedCount(of: node)
            }
            if largest[type].map({ retainedSize(of: $0) < size }) ?? true { largest[type] = node }
            open[type] += 1
            stack.append((Int(node), childStart[Int(node)]))
        }
        let groups = (0..<typeCount).compactMap { type -> RetainerGroup? in
            guard let node = largest[type] else { return nil }
            return RetainerGroup(
                typeName: graph.strings[UInt32(type)], instanceCount: instances[type],
                retainedBytes: bytes[type], retainedCount: objects[type], largest: node)
        }
        return Array(
            groups.sorted {
                ($0.retainedBytes, $1.typeName) > ($1.retainedBytes, $0.typeName)
            }.prefix(limit))
    }
}
