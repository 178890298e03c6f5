extension CompactGraph {
    /// The positions of `node`'s out-edges, retaining ones first.
    ///
    /// - Complexity: O(1).
    public func outEdges(of node: NodeID) -> Range<Int> {
        Int(outStart[Int(node)])..<Int(outStart[Int(node) + 1])
    }

    /// The positions of `node`'s retaining out-edges (strong and conservative ones).
    ///
    /// - Complexity: O(1).
    public func strongOutEdges(of node: NodeID) -> Range<Int> {
        Int(outStart[Int(node)])..<Int(strongOutEnd[Int(node)])
    }

    /// The node `edge` points at.
    public func target(of edge: EdgeID) -> NodeID { targets[Int(edge)] }
    /// How `edge` holds its target.
    public func ownership(ofEdge edge: EdgeID) -> Ownership {
        Ownership(byte: edgeFlags[Int(edge)])
    }
    /// Where `edge` came from.
    public func origin(ofEdge edge: EdgeID) -> ReferenceOrigin {
        let flags = edgeFlags[Int(edge)]
        if flags & Self.foundInHeapFlag != 0 { return .heap }
        return flags & Self.discoveredFlag != 0 ? .reflection : .declared
    }
    /// Whether `edge` was discovered by reading memory rather than declared.
    public func isDiscovered(_ edge: EdgeID) -> Bool {
        edgeFlags[Int(edge)] & Self.discoveredFlag != 0
    }
    /// Whether `edge` was found by reading the whole heap (a census, or a process read from
    /// outside).
    public func isFoundInHeap(_ edge: EdgeID) -> Bool {
        edgeFlags[Int(edge)] & Self.foundInHeapFlag != 0
    }
    /// The interned number of `edge`'s role in ``roles``.
    public func roleNumber(ofEdge edge: EdgeID) -> UInt32 { edgeRoles[Int(edge)] }
    /// Why `edge`'s holder holds its target.
    public func role(ofEdge edge: EdgeID) -> ReferenceRole { roles[edgeRoles[Int(edge)]] }
    /// `edge`'s role as reports print it (``ReferenceRole/description``).
    public func label(ofEdge edge: EdgeID) -> String { role(ofEdge: edge).description }
    /// The caller's tag of `edge` (`0` when none were given).
    public func tag(ofEdge edge: EdgeID) -> UInt32 {
        edgeTags.isEmpty ? 0 : edgeTags[Int(edge)]
    }

    /// Whether the path finder explores paths through `edge` after every other (see
    /// ``PathTree``): a conservative word, or an edge its discoverer marked so.
    public func isLowPriority(_ edge: EdgeID) -> Bool {
        Self.isLowPriority(edgeFlags[Int(edge)])
    }

    /// The edge flag bits of a reference's origin, and of a low-priority edge.
    package static let discoveredFlag: UInt8 = 0x80
    package static let foundInHeapFlag: UInt8 = 0x40
    package static let lowPriorityFlag: UInt8 = 0x20
    /// Bit 4: a path through this edge is a last resort (``PathPriority/taskMemory``): a word of
    /// a task's memory, which may be a stale pointer its private allocator left behind.
    package static let lastResortFlag: UInt8 = 0x10

    /// The edge flags of an ownership and an origin, as the graph stores them; conservative
    /// words are low priority.
    @inlinable
    package static func flags(
        _ ownership: Ownership, _ origin: ReferenceOrigin, lowPriority: Bool = false
    ) -> UInt8 {
        var flags = ownership.byte
        if lowPriority || ownership == .conservative { flags |= 0x20 }
        switch origin {
        case .declared: return flags
        case .reflection: return flags | 0x80
        case .heap: return flags | 0xC0
        }
    }

    /// Whether edge flags mark a low-priority edge.
    @inline(__always)
    package static func isLowPriority(_ flags: UInt8) -> Bool { flags & 0x20 != 0 }

    /// `flags` marked low priority: the path finder takes such an edge only when no other
    /// path reaches its target.
    @inline(__always)
    package static func lowPriority(_ flags: UInt8) -> UInt8 { flags | 0x20 }
    /// Whether `flags` mark a last-resort edge.
    @inlinable
    package static func isLastResort(_ flags: UInt8) -> Bool { flags & 0x10 != 0 }
    /// `flags`, marked last resort (and so low priority).
    @inlinable
    package static func lastResort(_ flags: UInt8) -> UInt8 { flags | 0x30 }

    /// Whether edge flags describe a retaining reference (strong or conservative).
    @inline(__always)
    package static func isRetaining(_ flags: UInt8) -> Bool { flags & 7 < 2 }

    /// The holder of `edge`.
    ///
    /// - Complexity: O(log *n*) (a binary search of the row starts).
    public func source(of edge: EdgeID) -> NodeID {
        var low = 0
        var high = kinds.count - 1
        // The last row whose start is <= edge.
        while low < high {
            let middle = (low + high + 1) / 2
            if outStart[middle] <= edge { low = middle } else { high = middle - 1 }
        }
        return NodeID(low)
    }

    /// The edges that point at `node`, retaining ones first, as steps from each holder.
    ///
    /// - Complexity: O(in-degree), plus building the in-edge rows once per graph.
    public func incoming(to node: NodeID) -> [Step] {
        let rows = inEdgeRows
        return (Int(rows.inStart[Int(node)])..<Int(rows.inStart[Int(node) + 1])).map {
            Step(from: rows.inSources[$0], edge: rows.inEdges[$0], to: node)
        }
    }

    /// The edges `node` holds, retaining ones first, as steps.
    ///
    /// - Complexity: O(out-degree).
    public func outgoing(from node: NodeID) -> [Step] {
        outEdges(of: node).map { Step(from: node, edge: EdgeID($0), to: targets[$0]) }
    }

    /// Bytes held by the graph's arrays (not counting the interned strings and roles), with the
    /// in-edge index if a question has built it (8 bytes per node and 8 per edge).
    ///
    /// - Complexity: O(1).
    public var arrayBytes: Int {
        let perNode =
            kinds.count * (1 + 4 + 4 + MemoryLayout<UInt>.size + 8) + sizes.count * 4
            + numberOfAdded.count * 4 + outStart.count * 4 + strongOutEnd.count * 4
        let perEdge = targets.count * (4 + 1 + 4) + edgeTags.count * 4
        return perNode + perEdge + rootNodes.count * 4 + (inEdgeIndex.madeValue?.bytes ?? 0)
    }
}
