/// Object addresses to their numbers: an open-addressing hash table with linear probing.
///
/// Resolving every word a scan read (millions) against every object's address (millions) is
/// the attach's hottest loop: a multiplicative hash of the address, no SipHash, no
/// allocation per entry.
struct AddressTable: Sendable {
    private var keys: [UInt]
    private var values: [Int32]
    private let mask: Int

    /// Indexes `addresses`: address `addresses[i]` maps to `i`. Zero is never a key.
    init(_ addresses: [UInt]) {
        var capacity = 16
        while capacity < addresses.count * 2 { capacity <<= 1 }
        mask = capacity - 1
        keys = [UInt](repeating: 0, count: capacity)
        values = [Int32](repeating: -1, count: capacity)
        for (index, address) in addresses.enumerated() where address != 0 {
            var slot = Self.hash(address) & mask
            while keys[slot] != 0, keys[slot] != address { slot = (slot + 1) & mask }
            keys[slot] = address
            values[slot] = Int32(index)
        }
    }

    @inline(__always)
    private static func hash(_ address: UInt) -> Int {
        Int(truncatingIfNeeded: (address >> 4) &* 0x9E37_79B9_7F4A_7C15 >> 20)
    }

    /// The number of the object at `address`, or nil.
    ///
    /// - Complexity: O(1) expected.
    @inline(__always)
    func index(of address: UInt) -> Int32? {
        guard address != 0 else { return nil }
        var slot = Self.hash(address) & mask
        while true {
            let key = keys[slot]
            if key == address { return values[slot] }
            if key == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }
}
