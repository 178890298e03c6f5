/// Maps node identities to positions in a snapshot's sorted node array.
///
/// Identities handed out by a ``LiveGraph`` are consecutive numbers with gaps where nodes were
/// removed, so most snapshots index them with a direct table (one array load per lookup, and a
/// linear-time sort). Sparse identities (synthetic graphs with arbitrary numbers) fall back to
/// a sort and binary search.
struct NodeIndex: Sendable {
    /// The smallest identity, for the direct table.
    private let base: UInt64
    /// For each identity `base + k`, its position, or `-1`; empty when identities are sparse.
    private let table: [Int32]
    /// The sorted identities, for binary search when `table` is empty.
    private let sortedIDs: [ObjectID]

    /// Orders identities, keeping the first of equal ones, and indexes them.
    ///
    /// - Returns: The index and the positions in `ids` of the kept identities, in order.
    /// - Complexity: O(*n*) for dense identities, O(*n* log *n*) otherwise.
    static func build(ids: [ObjectID]) -> (index: NodeIndex, order: [Int]) {
        guard let first = ids.first else {
            return (NodeIndex(base: 0, table: [], sortedIDs: []), [])
        }
        var low = first.rawValue
        var high = low
        for id in ids {
            low = min(low, id.rawValue)
            high = max(high, id.rawValue)
        }
        let span = high - low
        if span < UInt64(Int32.max), span <= UInt64(ids.count) * 4 + 1_024 {
            // Counting placement: slot k holds the first node whose identity is base + k.
            var table = [Int32](repeating: -1, count: Int(span) + 1)
            for (position, id) in ids.enumerated() {
                let slot = Int(id.rawValue - low)
                if table[slot] == -1 { table[slot] = Int32(position) }
            }
            var order: [Int] = []
            order.reserveCapacity(ids.count)
            for slot in table.indices where table[slot] != -1 {
                order.append(Int(table[slot]))
                table[slot] = Int32(order.count - 1)
            }
            return (NodeIndex(base: low, table: table, sortedIDs: []), order)
        }
        let sorted = ids.indices.sorted { a, b in ids[a] != ids[b] ? ids[a] < ids[b] : a < b }
        var order: [Int] = []
        order.reserveCapacity(ids.count)
        for position in sorted where order.last.map({ ids[$0] }) != ids[position] {
            order.append(position)
        }
        return (NodeIndex(base: 0, table: [], sortedIDs: order.map { ids[$0] }), order)
    }

    /// The position of `id`, if indexed.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    @inline(__always)
    func position(of id: ObjectID) -> Int? {
        if !table.isEmpty {
            guard id.rawValue >= base else { return nil }
            let slot = id.rawValue - base
            guard slot < UInt64(table.count) else { return nil }
            let position = table[Int(slot)]
            return position >= 0 ? Int(position) : nil
        }
        var low = 0
        var high = sortedIDs.count
        while low < high {
            let middle = (low + high) / 2
            if sortedIDs[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low < sortedIDs.count && sortedIDs[low] == id ? low : nil
    }
}
