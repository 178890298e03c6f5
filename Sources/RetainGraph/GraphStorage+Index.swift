/// An open-addressing hash index from a node's key (its identity or its object's address) to
/// its slot in ``GraphStorage/nodes``.
///
/// A bucket holds only the slot number plus one (0 is empty): the key is read back from the
/// node's slot, so an index costs 4 bytes per bucket and, kept at most half full, 8 to 16
/// bytes per node. Linear probing with backward-shift deletion: no tombstones, so lookups stay
/// short however many nodes come and go.
struct SlotIndex {
    /// Which field of a ``NodeSlot`` is the key.
    let byAddress: Bool
    /// Slot number plus one, or 0 for an empty bucket; the count is a power of two (or 0).
    private(set) var buckets: [UInt32] = []
    /// The number of keys indexed.
    private(set) var count = 0

    init(byAddress: Bool) { self.byAddress = byAddress }

    @inline(__always)
    private func key(of node: NodeSlot) -> UInt64 { byAddress ? node.address : node.id }

    @inline(__always)
    private static func home(_ key: UInt64, mask: Int) -> Int { FastHash.mix(key, seed: 0) & mask }

    /// The slot of the node whose key is `key`, if indexed.
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)
    func find(_ key: UInt64, in nodes: ChunkedArray<NodeSlot>) -> UInt32? {
        guard count > 0 else { return nil }
        let mask = buckets.count - 1
        var index = Self.home(key, mask: mask)
        while true {
            let entry = buckets[index]
            if entry == 0 { return nil }
            if self.key(of: nodes[Int(entry - 1)]) == key { return entry - 1 }
            index = (index + 1) & mask
        }
    }

    /// Indexes `slot`, whose node already holds its key in `nodes`.
    mutating func insert(_ slot: UInt32, in nodes: ChunkedArray<NodeSlot>) {
        if (count + 1) * 2 > buckets.count { grow(nodes) }
        let mask = buckets.count - 1
        var index = Self.home(key(of: nodes[Int(slot)]), mask: mask)
        while buckets[index] != 0 { index = (index + 1) & mask }
        buckets[index] = slot + 1
        count += 1
    }

    /// Removes `slot`; call it while the node's slot still holds its key.
    mutating func remove(_ slot: UInt32, in nodes: ChunkedArray<NodeSlot>) {
        guard count > 0 else { return }
        let mask = buckets.count - 1
        var hole = Self.home(key(of: nodes[Int(slot)]), mask: mask)
        while buckets[hole] != slot + 1 {
            if buckets[hole] == 0 { return }
            hole = (hole + 1) & mask
        }
        // Backward shift: move up every later entry of the run whose probe passes the hole.
        var next = (hole + 1) & mask
        while buckets[next] != 0 {
            let entry = buckets[next]
            let home = Self.home(key(of: nodes[Int(entry - 1)]), mask: mask)
            if (next &- home) & mask >= (next &- hole) & mask {
                buckets[hole] = entry
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = 0
        count -= 1
    }

    /// Forgets every key, keeping the buckets' memory.
    mutating func removeAll() {
        for index in buckets.indices { buckets[index] = 0 }
        count = 0
    }

    private mutating func grow(_ nodes: ChunkedArray<NodeSlot>) {
        let old = buckets
        buckets = [UInt32](repeating: 0, count: max(16, old.count * 2))
        let mask = buckets.count - 1
        for entry in old where entry != 0 {
            var index = Self.home(key(of: nodes[Int(entry - 1)]), mask: mask)
            while buckets[index] != 0 { index = (index + 1) & mask }
            buckets[index] = entry
        }
    }
}
