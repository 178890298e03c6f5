/// The dense index of each of a set of object addresses, found with one or two memory reads.
///
/// A snapshot resolves every reference word it read (millions for a million objects) to the
/// index of its target. A binary search over the sorted addresses takes about 20 dependent
/// loads per word, most of them cache misses past a few hundred thousand objects: it was half
/// of `HeapCensus.snapshot()` at a million objects. This is an open-addressing table (linear
/// probing, load at most 1/2), hashed like the census table.
///
/// Each entry is one word that names its address exactly and holds its index: 16 bytes an
/// address (the table has twice as many entries as addresses), where an address and an index
/// side by side took 32 (160 MB of an attach's 5,000,000 objects, a third of the tool's own
/// memory). The word packs the address's low bits above its alignment (32 bits), a number
/// for its 64 GiB region of the address space (5 bits: a region table of 4,096 bytes maps the
/// bits above to it) and the index (27 bits). A set of addresses the word cannot describe
/// (2²⁷ or more of them, more than 31 regions, an address at or above 2⁴⁸, or one not
/// 8-aligned) gets entries of an address and an index side by side instead, as before.
///
/// Addresses already in ascending order and 16-aligned (a heap walk's) get no table: a bitmap of
/// the 16-byte slots where they start, with each KiB's first position, finds them with one
/// memory read too (``SortedAddresses``: under a byte an address in a heap of small objects).
///
/// The table has twice as many entries as addresses, not the next power of two above that:
/// a hash is mapped onto it by a multiplication's high word instead of a mask. A power of two
/// took up to twice the memory.
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
/// - Complexity: O(*n*) to build for *n* addresses (16 bytes per address, 32 for a set the
///   packed entries cannot describe, 16 per KiB of the ranges ascending ones fill); O(1)
///   expected per lookup (O(log *c*) for ascending addresses in *c* clusters, at most 4,096).
package struct AddressIndex: Sendable {
    /// An entry of a set the packed word cannot describe.
    fileprivate struct WideEntry {
        var address: UInt
        var index: Int32
    }

    /// The entries, owned by one object (shared by copies).
    private final class Storage: @unchecked Sendable {
        /// Packed entries (0: empty), or nil when the set needs wide ones.
        let packed: UnsafeMutablePointer<UInt64>?
        /// Wide entries (address 0: empty), when the set needs them.
        let wide: UnsafeMutablePointer<WideEntry>?
        /// For the packed entries: per 64 GiB region of the address space (the address's bits
        /// from `shift + 32` up), its number in the entries (1...31), 0 when no address lies
        /// in it.
        let regions: UnsafeMutablePointer<UInt8>?
        /// Ascending addresses' bitmap, when the set is one (no table then).
        let sorted: SortedAddresses?

        /// Packed entries; takes `regions` over.
        init(capacity: Int, regions: UnsafeMutablePointer<UInt8>) {
            packed = .allocate(capacity: capacity)
            packed?.initialize(repeating: 0, count: capacity)
            self.regions = regions
            wide = nil
            sorted = nil
        }

        /// Wide entries.
        init(capacity: Int) {
            wide = .allocate(capacity: capacity)
            wide?.initialize(repeating: WideEntry(address: 0, index: -1), count: capacity)
            packed = nil
            regions = nil
            sorted = nil
        }

        /// No table: `sorted` finds the addresses.
        init(sorted: SortedAddresses) {
            self.sorted = sorted
            packed = nil
            wide = nil
            regions = nil
        }

        deinit {
            packed?.deallocate()
            wide?.deallocate()
            regions?.deallocate()
        }
    }

    /// The packed entry's fields.
    private enum Layout {
        /// The entries of the region table: the regions below 2⁴⁸ (2⁴⁷ for addresses only
        /// 8-aligned).
        static let regionCount = 1 << 12
        static let lowBits: UInt64 = 0xFFFF_FFFF
        static let regionShift: UInt64 = 32
        static let indexShift: UInt64 = 37
        /// Region and low bits: what names an address.
        static let keyMask: UInt64 = (1 << 37) - 1
        static let maximumRegions = 31
        /// The number of indices the field holds (27 bits).
        static let indexLimit = 1 << 27
    }

    private let storage: Storage
    /// The number of entries (at least 16; below 2³²).
    private let capacity: Int
    /// The alignment bits every indexed address has (3 or 4): the packed entry keeps the 32
    /// bits above them.
    private let shift: UInt

    /// Indexes the first `count` of `addresses` (all of them when nil; distinct, none 0):
    /// `addresses[i]` ↦ `i`.
    package init(_ addresses: [UInt], count: Int? = nil) {
        let count = min(count ?? addresses.count, addresses.count)
        if let sorted = SortedAddresses(addresses, count: count) {
            storage = Storage(sorted: sorted)
            capacity = 0
            shift = 0
            return
        }
        // Below 2^32, as the lookup's multiplication needs: fewer than 2^31 addresses have
        // Int32 indices.
        let capacity = max(16, 2 * count)
        self.capacity = capacity
        let regions = UnsafeMutablePointer<UInt8>.allocate(capacity: Layout.regionCount)
        regions.initialize(repeating: 0, count: Layout.regionCount)
        shift = addresses.withUnsafeBufferPointer {
            Self.packing(UnsafeBufferPointer(rebasing: $0.prefix(count)), regions: regions)
        }
        if shift == 0 {
            regions.deallocate()
            storage = Storage(capacity: capacity)
        } else {
            storage = Storage(capacity: capacity, regions: regions)
        }
        addresses.withUnsafeBufferPointer { all in
            let addresses = UnsafeBufferPointer(rebasing: all.prefix(count))
            if let packed = storage.packed {
                Self.fill(
                    packed, capacity: capacity, regions: regions, shift: shift, from: addresses)
            } else if let wide = storage.wide {
                Self.fill(wide, capacity: capacity, from: addresses)
            }
        }
    }

    /// The index of `address`, or nil when it is not one of the indexed addresses.
    @inline(__always)
    package func index(of address: UInt) -> Int32? {
        let index = rawIndex(of: address)
        return index >= 0 ? index : nil
    }

    /// The index of `address`, or -1 when it is not one of the indexed addresses: the lookup
    /// of ``index(of:)`` without an optional, for loops that resolve many words.
    package func rawIndex(of address: UInt) -> Int32 {
        guard address != 0 else { return -1 }
        if let sorted = storage.sorted { return sorted.position(of: address) }
        // The hash of `home(_:_:)`, written out: a debug build would call it.
        let hash = (address >> 4) &* 0x9E37_79B9_7F4A_7C15
        var slot = Int(truncatingIfNeeded: ((hash >> 32) &* UInt(capacity)) >> 32)
        if let entries = storage.packed, let regions = storage.regions {
            // An address of no region, or not aligned as the indexed ones, is none of them:
            // most words a scan resolves (numbers, code, other memory) end here.
            let region = address >> (shift &+ 32)
            guard region < UInt(Layout.regionCount), address & ((1 << shift) &- 1) == 0 else {
                return -1
            }
            let number = UInt64(regions[Int(region)])
            guard number != 0 else { return -1 }
            let key =
                UInt64(truncatingIfNeeded: address >> shift) & Layout.lowBits
                | number << Layout.regionShift
            while true {
                let entry = entries[slot]
                if entry & Layout.keyMask == key {
                    return Int32(truncatingIfNeeded: entry >> Layout.indexShift)
                }
                if entry == 0 { return -1 }
                slot += 1
                if slot == capacity { slot = 0 }
            }
        }
        guard let entries = storage.wide else { return -1 }
        while true {
            let found = entries[slot].address
            if found == address { return entries[slot].index }
            if found == 0 { return -1 }
            slot += 1
            if slot == capacity { slot = 0 }
        }
    }

    /// The bytes the table takes.
    package var byteCount: Int {
        if let sorted = storage.sorted { return sorted.byteCount }
        return storage.packed != nil
            ? capacity * MemoryLayout<UInt64>.stride + Layout.regionCount
            : capacity * MemoryLayout<WideEntry>.stride
    }

    /// Whether the entries are packed words (16 bytes an address) rather than an address and
    /// an index side by side (32).
    package var isPacked: Bool { storage.packed != nil }

    /// Whether the addresses were ascending and are found through a bitmap of where they
    /// start, with no table.
    package var isSorted: Bool { storage.sorted != nil }

    /// The alignment bits every address has (4 or 3), each address's region numbered in
    /// `regions`; 0 when the packed entries cannot describe them.
    private static func packing(
        _ addresses: UnsafeBufferPointer<UInt>, regions: UnsafeMutablePointer<UInt8>
    ) -> UInt {
        guard addresses.count < Layout.indexLimit else { return 0 }
        var alignment: UInt = 0
        for address in addresses { alignment |= address }
        let shift: UInt = alignment & 15 == 0 ? 4 : alignment & 7 == 0 ? 3 : 0
        guard shift != 0 else { return 0 }
        var numbered = 0
        for address in addresses where address != 0 {
            let region = address >> (shift + 32)
            guard region < UInt(Layout.regionCount) else { return 0 }
            if regions[Int(region)] == 0 {
                guard numbered < Layout.maximumRegions else { return 0 }
                numbered += 1
                regions[Int(region)] = UInt8(numbered)
            }
        }
        return shift
    }

    private static func fill(
        _ entries: UnsafeMutablePointer<UInt64>, capacity: Int,
        regions: UnsafeMutablePointer<UInt8>, shift: UInt, from addresses: UnsafeBufferPointer<UInt>
    ) {
        for position in addresses.indices {
            let address = addresses[position]
            guard address != 0 else { continue }
            let number = UInt64(regions[Int(address >> (shift + 32))])
            let entry =
                UInt64(truncatingIfNeeded: address >> shift) & Layout.lowBits
                | number << Layout.regionShift | UInt64(position) << Layout.indexShift
            var slot = home(address, capacity)
            while entries[slot] != 0 {
                slot += 1
                if slot == capacity { slot = 0 }
            }
            entries[slot] = entry
        }
    }

    private static func fill(
        _ entries: UnsafeMutablePointer<WideEntry>, capacity: Int,
        from addresses: UnsafeBufferPointer<UInt>
    ) {
        for position in addresses.indices {
            let address = addresses[position]
            guard address != 0 else { continue }
            var slot = home(address, capacity)
            while entries[slot].address != 0 {
                slot += 1
                if slot == capacity { slot = 0 }
            }
            entries[slot] = WideEntry(address: address, index: Int32(position))
        }
    }

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
