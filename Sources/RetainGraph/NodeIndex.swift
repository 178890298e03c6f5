/// Maps node identities to positions in a snapshot's sorted node array.
///
/// Identities handed out by a ``LiveGraph`` are consecutive numbers with gaps where nodes were
/// removed, so most snapshots index them with a direct table (one array load per lookup, and a
/// linear-time sort). Identities given to objects found by discovery (at or above 2⁶²) and
/// sparse identities (synthetic graphs with arbitrary numbers) are sorted and searched, in a
/// part of their own: a live graph's snapshot with a check's discoveries keeps its direct table.
struct NodeIndex: Sendable {
    /// The index of the identities below 2⁶², and of the others.
    private let live: Part
    private let discovered: Part

    private struct Part: Sendable {
        /// The smallest identity, for the direct table.
        let base: UInt64
        /// For each identity `base + k`, its position, or `-1`; empty when identities are
        /// sparse.
        let table: [Int32]
        /// The sorted identities, for binary search when `table` is empty.
        let sortedIDs: [ObjectID]
        /// The position of this part's first identity among all.
        let offset: Int

        static let empty = Part(base: 0, table: [], sortedIDs: [], offset: 0)

        /// Orders `positions` of `ids` by identity, keeping the first of equal ones.
        static func build(_ ids: [ObjectID], positions: [Int], offset: Int) -> (Part, [Int]) {
            guard let first = positions.first else { return (Part.empty, []) }
            var low = ids[first].rawValue
            var high = low
            for position in positions {
                low = min(low, ids[position].rawValue)
                high = max(high, ids[position].rawValue)
            }
            let span = high - low
            if span < UInt64(Int32.max), span <= UInt64(positions.count) * 4 + 1_024 {
                // Counting placement: slot k holds the first node whose identity is base + k.
                var table = [Int32](repeating: -1, count: Int(span) + 1)
                for position in positions {
                    let slot = Int(ids[position].rawValue - low)
                    if table[slot] == -1 { table[slot] = Int32(position) }
                }
                var order: [Int] = []
                order.reserveCapacity(positions.count)
                for slot in table.indices where table[slot] != -1 {
                    order.append(Int(table[slot]))
                    table[slot] = Int32(offset + order.count - 1)
                }
                return (Part(base: low, table: table, sortedIDs: [], offset: offset), order)
            }
            let sorted = positions.sorted { a, b in
                ids[a] != ids[b] ? ids[a] < ids[b] : a < b
            }
            var order: [Int] = []
            order.reserveCapacity(positions.count)
            for position in sorted where order.last.map({ ids[$0] }) != ids[position] {
                order.append(position)
            }
            return (
                Part(base: 0, table: [], sortedIDs: order.map { ids[$0] }, offset: offset), order
            )
        }

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
            return low < sortedIDs.count && sortedIDs[low] == id ? offset + low : nil
        }
    }

    /// Orders identities, keeping the first of equal ones, and indexes them.
    ///
    /// - Returns: The index and the positions in `ids` of the kept identities, in order.
    /// - Complexity: O(*n*) for dense identities, O(*n* log *n*) otherwise.
    static func build(ids: [ObjectID]) -> (index: NodeIndex, order: [Int]) {
        var livePositions: [Int] = []
        var discoveredPositions: [Int] = []
        livePositions.reserveCapacity(ids.count)
        for (position, id) in ids.enumerated() {
            if id.rawValue < ObjectID.discoveredBase {
                livePositions.append(position)
            } else {
                discoveredPositions.append(position)
            }
        }
        let (live, liveOrder) = Part.build(ids, positions: livePositions, offset: 0)
        let (discovered, discoveredOrder) = Part.build(
            ids, positions: discoveredPositions, offset: liveOrder.count)
        return (NodeIndex(live: live, discovered: discovered), liveOrder + discoveredOrder)
    }

    /// The position of `id`, if indexed.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    @inline(__always)
    func position(of id: ObjectID) -> Int? {
        id.rawValue < ObjectID.discoveredBase
            ? live.position(of: id) : discovered.position(of: id)
    }
}
