import RuntimeLayouts
import Testing

/// The address index answers exactly: each indexed address its position, every other word
/// nothing, whether its entries are packed words, addresses and indices side by side, or no
/// entries at all (ascending addresses, found through a bitmap of where they start).
@Suite("Address index")
struct AddressIndexTests {
    /// `count` distinct addresses with `alignment`, spread over `regions` regions of 64 GiB
    /// from `base`, in a shuffled order.
    static func addresses(
        count: Int, regions: Int, alignment: UInt = 16, base: UInt = 0x5555_0000_0000
    ) -> [UInt] {
        var generator = SystemRandomNumberGenerator()
        var seen = Set<UInt>()
        var result: [UInt] = []
        while result.count < count {
            let region = UInt(result.count % regions)
            let offset = UInt.random(in: 1..<(1 << 30), using: &generator) * alignment
            let address = base + region << 36 + offset
            if seen.insert(address).inserted { result.append(address) }
        }
        return result
    }

    /// Checks that `index` finds each of `addresses` at its position and none of the words
    /// around them, nor the same low bits in another region.
    static func expectExact(_ index: AddressIndex, _ addresses: [UInt]) {
        let indexed = Set(addresses)
        for (position, address) in addresses.enumerated() {
            #expect(index.index(of: address) == Int32(position))
            for other in [
                address &+ 8, address &- 8, address &+ 16, address &+ 1, address ^ (1 << 36),
                address ^ (1 << 40), address ^ (1 << 47), address | (1 << 60),
            ] where !indexed.contains(other) {
                #expect(index.rawIndex(of: other) == -1, "\(String(other, radix: 16))")
            }
        }
        for word: UInt in [0, 1, 8, 16, 4096, .max, .max - 15] where !indexed.contains(word) {
            #expect(index.index(of: word) == nil)
        }
    }

    @Test("16-aligned heap addresses in a few regions get packed entries, 16 bytes each")
    func heapAddressesArePacked() {
        let addresses = Self.addresses(count: 20_000, regions: 3)
        let index = AddressIndex(addresses)
        #expect(index.isPacked)
        #expect(index.byteCount == 2 * addresses.count * 8 + 4096)
        Self.expectExact(index, addresses)
    }

    @Test("8-aligned addresses (type metadata) are packed too")
    func eightAlignedAddressesArePacked() {
        let addresses = Self.addresses(count: 2_000, regions: 2, alignment: 8) + [0x7F00_0000_0008]
        let index = AddressIndex(addresses)
        #expect(index.isPacked)
        Self.expectExact(index, addresses)
    }

    @Test("Addresses in more than 31 regions, above 2⁴⁸ or unaligned get wide entries, as exact")
    func setsThePackedWordCannotDescribeAreWide() {
        let cases: [[UInt]] = [
            Self.addresses(count: 3_000, regions: 40),
            Self.addresses(count: 1_000, regions: 1) + [0x1_0000_0000_0000],
            Self.addresses(count: 1_000, regions: 1) + [0x5555_0000_1234],
        ]
        for addresses in cases {
            let index = AddressIndex(addresses)
            #expect(!index.isPacked)
            Self.expectExact(index, addresses)
        }
    }

    @Test("An empty set finds nothing")
    func emptySetFindsNothing() {
        let index = AddressIndex([])
        for word: UInt in [0, 16, 0x5555_0000_0010, .max] { #expect(index.index(of: word) == nil) }
    }

    /// Ascending addresses as a heap walk finds them: `count` blocks of 32 to 128 bytes packed
    /// one after another from each of `heaps`, then `singles` large blocks mmapped 4 MiB apart.
    static func walkedHeap(count: Int, heaps: [UInt], singles: Int = 0) -> [UInt] {
        var generator = SystemRandomNumberGenerator()
        var result: [UInt] = []
        for (number, heap) in heaps.enumerated() {
            var address = heap + 16
            for _ in 0..<(count / heaps.count + (number == 0 ? count % heaps.count : 0)) {
                result.append(address)
                address += 16 * UInt.random(in: 2...8, using: &generator)
            }
        }
        let last = result.last ?? 0x7000_0000_0000
        for single in 0..<singles { result.append(last + UInt(single + 1) << 22 + 16) }
        return result
    }

    @Test("Ascending addresses (a heap walk's) get a bitmap of where they start, not a table")
    func ascendingAddressesAreSearchedWhereTheyAre() {
        let addresses = Self.walkedHeap(
            count: 40_000, heaps: [0x5555_0000_0000, 0x7F00_0400_0000, 0x7F00_0800_0000],
            singles: 50)
        let index = AddressIndex(addresses)
        #expect(index.isSorted)
        #expect(!index.isPacked)
        #expect(index.byteCount <= 2 * addresses.count)
        Self.expectExact(index, addresses)
        // Between the clusters, before the first address and past the last.
        for word in [
            addresses[0] - 16, addresses[0] - 0x10_0000, 0x6000_0000_0000, 0x7F00_0000_0000,
            addresses[addresses.count - 1] + 16, addresses[addresses.count - 1] + (1 << 22),
        ] {
            #expect(index.index(of: word) == nil, "\(String(word, radix: 16))")
        }
    }

    @Test("Neighbours exactly a cluster's gap apart, and one word more, are both found")
    func clusterBoundariesAreExact() {
        var addresses = Self.walkedHeap(count: 3_000, heaps: [0x5555_0000_0000])
        let last = addresses[addresses.count - 1]
        addresses.append(last + (1 << 20))  // the same cluster
        addresses.append(last + (1 << 20) + (1 << 20) + 16)  // a new one
        addresses += (1...200).map { addresses[addresses.count - 1] + UInt($0) * 48 }
        let index = AddressIndex(addresses)
        #expect(index.isSorted)
        Self.expectExact(index, addresses)
    }

    @Test("A prefix of ascending addresses (a snapshot's objects, then holders) is indexed alone")
    func anAscendingPrefixIsIndexedAlone() {
        let objects = Self.walkedHeap(count: 5_000, heaps: [0x5555_0000_0000])
        let holders: [UInt] = [0, 0x5555_0000_0008, objects[10], 0, 0x7FFF_0000_1000]
        let index = AddressIndex(objects + holders, count: objects.count)
        #expect(index.isSorted)
        Self.expectExact(index, objects)
        #expect(index.index(of: 0x7FFF_0000_1000) == nil)
        #expect(index.index(of: 0x5555_0000_0008) == nil)
        // Unsorted, the prefix alone is indexed too (as a table).
        let table = AddressIndex(objects.reversed() + holders, count: objects.count)
        #expect(table.isPacked)
        #expect(table.index(of: 0x7FFF_0000_1000) == nil)
        #expect(table.index(of: objects[0]) == Int32(objects.count - 1))
    }

    @Test("Addresses out of order, or in more clusters than the search serves, get the table")
    func unorderedOrScatteredAddressesGetTheTable() {
        var swapped = Self.walkedHeap(count: 3_000, heaps: [0x5555_0000_0000])
        swapped.swapAt(1_000, 1_001)
        let scattered = (1...5_000).map { 0x5555_0000_0000 + UInt($0) << 21 }
        let repeated = Self.walkedHeap(count: 3_000, heaps: [0x5555_0000_0000]) + [0x6000_0000_0000]
        for addresses in [swapped, scattered] {
            let index = AddressIndex(addresses)
            #expect(!index.isSorted)
            #expect(index.isPacked)
            Self.expectExact(index, addresses)
        }
        #expect(AddressIndex(repeated).isSorted)
        #expect(!AddressIndex(repeated + [0x6000_0000_0000]).isSorted)
    }

    @Test("Ascending addresses too sparse for the bitmap, or only 8-aligned, get the table")
    func sparseOrEightAlignedAddressesGetTheTable() {
        // 64 KiB apart: 64 chunks of bitmap an address, more than the table's 16 bytes.
        let sparse = (1...2_000).map { 0x5555_0000_0000 + UInt($0) << 16 }
        let eightAligned = Self.walkedHeap(count: 2_000, heaps: [0x5555_0000_0000]).map { $0 + 8 }
        for addresses in [sparse, eightAligned] {
            let index = AddressIndex(addresses)
            #expect(!index.isSorted)
            #expect(index.isPacked)
            Self.expectExact(index, addresses)
        }
    }
}
