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
        /// The sorted identities' raw values, for binary search when `table` is empty.
        let sortedKeys: [UInt64]
        /// The position of this part's first identity among all.
        let offset: Int

        static let empty = Part(base: 0, table: [], sortedKeys: [], offset: 0)

        /// Orders `positions` of `keys` (raw identities), keeping the first of equal ones.
        static func build(_ keys: [UInt64], positions: [Int], offset: Int) -> (Part, [Int]) {
            guard let first = positions.first else { return (Part.empty, []) }
            var low = keys[first]
            var high = low
            for position in positions {
                low = min(low, keys[position])
                high = max(high, keys[position])
            }
            let span = high - low
            if span < UInt64(Int32.max), span <= UInt64(positions.count) * 4 + 1_024 {
                // Counting placement: slot k holds the first node whose identity is base + k.
                var table = [Int32](repeating: -1, count: Int(span) + 1)
                for position in positions {
                    let slot = Int(keys[position] - low)
                    if table[slot] == -1 { table[slot] = Int32(position) }
                }
                var order: [Int] = []
                order.reserveCapacity(positions.count)
                for slot in table.indices where table[slot] != -1 {
                    order.append(Int(table[slot]))
                    table[slot] = Int32(offset + order.count - 1)
                }
                return (Part(base: low, table: table, sortedKeys: [], offset: offset), order)
            }
            let sorted = positions.sorted { a, b in
                keys[a] != keys[b] ? keys[a] < keys[b] : a < b
            }
            var order: [Int] = []
            order.reserveCapacity(positions.count)
            for position in sorted where order.last.map({ keys[$0] }) != keys[position] {
                order.append(position)
            }
            return (
                Part(base: 0, table: [], sortedKeys: order.map { keys[$0] }, offset: offset), order
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
            var high = sortedKeys.count
            while low < high {
                let middle = (low + high) / 2
                if sortedKeys[middle] < id.rawValue { low = middle + 1 } else { high = middle }
            }
            return low < sortedKeys.count && sortedKeys[low] == id.rawValue ? offset + low : nil
        }
    }

    /// Orders raw identities, keeping the first of equal ones, and indexes them.
    ///
    /// - Returns: The index and the positions in `keys` of the kept identities, in order.
    /// - Complexity: O(*n*) for dense identities, O(*n* log *n*) otherwise.
    static func build(keys: [UInt64]) -> (index: NodeIndex, order: [Int]) {
        var livePositions: [Int] = []
        var discoveredPositions: [Int] = []
        livePositions.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() {
            if key < ObjectID.discoveredBase {
                livePositions.append(position)
            } else {
                discoveredPositions.append(position)
            }
        }
        let (live, liveOrder) = Part.build(keys, positions: livePositions, offset: 0)
        let (discovered, discoveredOrder) = Part.build(
            keys, positions: discoveredPositions, offset: liveOrder.count)
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
