import RuntimeLayouts
import Testing

/// The address index answers exactly: each indexed address its position, every other word
/// nothing, whether its entries are packed words or addresses and indices side by side.
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
}
