/// The dense index of each of a set of object addresses, found with one or two memory reads.
///
/// A snapshot resolves every reference word it read (millions for a million objects) to the
/// index of its target. A binary search over the sorted addresses takes about 20 dependent
/// loads per word, most of them cache misses past a few hundred thousand objects: it was half
/// of `HeapCensus.snapshot()` at a million objects. This is an open-addressing table (linear
/// probing, load at most 1/2) of address and index side by side, hashed like the census table.
///
/// The table has twice as many entries as addresses, not the next power of two above that:
/// a hash is mapped onto it by a multiplication's high word instead of a mask. A power of two
/// took up to twice the memory (268 MB for the 5,000,000 objects of an attach, 54 bytes an
/// object, where 160 MB hold the same load).
///
/// The table lives behind a pointer its storage object owns, and a lookup is plain pointer
/// arithmetic: in a debug build an `Array`'s subscript and `withUnsafeBufferPointer` are
/// unspecialised generic calls (with a metadata lookup each), and the census's scan makes one
/// lookup per object under a stripe lock (Benchmarks/Scripts/exit-check-scale.sh).
///
/// ```swift
/// let index = AddressIndex(addresses)      // addresses[i] ↦ i
/// index.index(of: word)                    // nil unless word is one of them
/// ```
///
/// - Complexity: O(*n*) to build for *n* addresses (32 bytes per address);
///   O(1) expected per lookup.
package struct AddressIndex: Sendable {
    fileprivate struct Entry {
        var address: UInt
        var index: Int32
    }

    /// The entries, owned by one object (shared by copies; copied before a renumbering).
    private final class Storage: @unchecked Sendable {
        /// Address 0 marks an empty entry (no object lives at 0).
        let entries: UnsafeMutablePointer<Entry>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            entries = .allocate(capacity: capacity)
            entries.initialize(repeating: Entry(address: 0, index: -1), count: capacity)
        }

        deinit { entries.deallocate() }
    }

    private var storage: Storage
    /// The number of entries (at least 16).
    private let capacity: Int

    /// Indexes `addresses` (distinct, none 0): `addresses[i]` ↦ `i`.
    package init(_ addresses: [UInt]) {
        // Below 2^32, as home(_:_:) needs: fewer than 2^31 addresses have Int32 indices.
        let capacity = max(16, 2 * addresses.count)
        self.capacity = capacity
        storage = Storage(capacity: capacity)
        let entries = storage.entries
        addresses.withUnsafeBufferPointer { addresses in
            guard let base = addresses.baseAddress else { return }
            var position = 0
            while position < addresses.count {
                let address = base[position]
                if address != 0 {
                    var slot = Self.home(address, capacity)
                    while entries[slot].address != 0 {
                        slot += 1
                        if slot == capacity { slot = 0 }
                    }
                    entries[slot] = Entry(address: address, index: Int32(position))
                }
                position += 1
            }
        }
    }

    /// The index of `address`, or nil when it is not one of the indexed addresses (or its
    /// index was renumbered to a negative number).
    @inline(__always)
    package func index(of address: UInt) -> Int32? {
        let index = rawIndex(of: address)
        return index >= 0 ? index : nil
    }

    /// The index of `address`, or -1 when it is not one of the indexed addresses: the lookup
    /// of ``index(of:)`` without an optional, for loops that resolve many words.
    package func rawIndex(of address: UInt) -> Int32 {
        guard address != 0 else { return -1 }
        let entries = storage.entries
        // The hash of `home(_:_:)`, written out: a debug build would call it.
        let hash = (address >> 4) &* 0x9E37_79B9_7F4A_7C15
        var slot = Int(truncatingIfNeeded: ((hash >> 32) &* UInt(capacity)) >> 32)
        while true {
            let found = entries[slot].address
            if found == address { return entries[slot].index }
            if found == 0 { return -1 }
            slot += 1
            if slot == capacity { slot = 0 }
        }
    }

    /// Replaces every index `i` with `new[i]` (a negative number removes the address).
    ///
    /// - Complexity: O(capacity), one sequential pass.
    package mutating func renumber(_ new: [Int32]) {
        if !isKnownUniquelyReferenced(&storage) {
            let copy = Storage(capacity: storage.capacity)
            copy.entries.update(from: storage.entries, count: storage.capacity)
            storage = copy
        }
        let entries = storage.entries
        for slot in 0..<storage.capacity where entries[slot].address != 0 {
            let old = Int(entries[slot].index)
            entries[slot].index = old >= 0 && old < new.count ? new[old] : -1
        }
    }

    /// The bytes the table takes.
    package var byteCount: Int { storage.capacity * MemoryLayout<Entry>.stride }

    /// Fibonacci hashing of the address without its alignment bits (blocks are 16-aligned),
    /// its top 32 bits mapped onto `0..<capacity` by the high half of their product with
    /// `capacity` (below 2^32: an index is an `Int32`). Plain arithmetic, not
    /// `multipliedFullWidth(by:)`, which a debug build calls.
    @inline(__always)
    private static func home(_ address: UInt, _ capacity: Int) -> Int {
        let hash = (address >> 4) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: ((hash >> 32) &* UInt(capacity)) >> 32)
    }
}
