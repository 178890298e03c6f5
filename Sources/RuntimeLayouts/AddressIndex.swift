/// The dense index of each of a set of object addresses, found with one or two memory reads.
///
/// A snapshot resolves every reference word it read (millions for a million objects) to the
/// index of its target. A binary search over the sorted addresses takes about 20 dependent
/// loads per word, most of them cache misses past a few hundred thousand objects: it was half
/// of `HeapCensus.snapshot()` at a million objects. This is an open-addressing table (linear
/// probing, load at most 1/2) of address and index side by side, hashed like the census table.
///
/// ```swift
/// let index = AddressIndex(addresses)      // addresses[i] ↦ i
/// index.index(of: word)                    // nil unless word is one of them
/// ```
///
/// - Complexity: O(*n*) to build for *n* addresses (16 bytes × 2–4 per address, transient);
///   O(1) expected per lookup.
package struct AddressIndex: Sendable {
    private struct Entry: Sendable {
        var address: UInt
        var index: Int32
    }

    /// Address 0 marks an empty entry (no object lives at 0).
    private var entries: [Entry]
    private let mask: Int
    private let shift: UInt

    /// Indexes `addresses` (distinct, none 0): `addresses[i]` ↦ `i`.
    package init(_ addresses: [UInt]) {
        var log2Capacity = 4
        while 1 << log2Capacity < 2 * addresses.count { log2Capacity += 1 }
        mask = (1 << log2Capacity) - 1
        shift = UInt(64 - log2Capacity)
        entries = [Entry](repeating: Entry(address: 0, index: -1), count: mask + 1)
        entries.withUnsafeMutableBufferPointer { entries in
            for (position, address) in addresses.enumerated() where address != 0 {
                var slot = Self.home(address, shift)
                while entries[slot].address != 0 { slot = (slot + 1) & mask }
                entries[slot] = Entry(address: address, index: Int32(position))
            }
        }
    }

    /// The index of `address`, or nil when it is not one of the indexed addresses (or its
    /// index was renumbered to a negative number).
    @inline(__always)
    package func index(of address: UInt) -> Int32? {
        guard address != 0 else { return nil }
        return entries.withUnsafeBufferPointer { entries in
            var slot = Self.home(address, shift)
            while true {
                let entry = entries[slot]
                if entry.address == address { return entry.index >= 0 ? entry.index : nil }
                if entry.address == 0 { return nil }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Replaces every index `i` with `new[i]` (a negative number removes the address).
    ///
    /// - Complexity: O(capacity), one sequential pass.
    package mutating func renumber(_ new: [Int32]) {
        entries.withUnsafeMutableBufferPointer { entries in
            for slot in entries.indices where entries[slot].address != 0 {
                let old = Int(entries[slot].index)
                entries[slot].index = old >= 0 && old < new.count ? new[old] : -1
            }
        }
    }

    /// The bytes the table takes.
    package var byteCount: Int { entries.count * MemoryLayout<Entry>.stride }

    /// Fibonacci hashing of the address without its alignment bits (blocks are 16-aligned).
    private static func home(_ address: UInt, _ shift: UInt) -> Int {
        Int(truncatingIfNeeded: ((address >> 4) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }
}
