import ObjectGraph
import RetainGraphUtilities
import RuntimeLayouts

extension HeapSnapshot {
    /// Decodes the dynamic values the scan copied (enum payloads, existentials) into more
    /// references, through the reader's metadata source.
    ///
    /// - Returns: The objects reached as boxes of values held out of line (an indirect enum
    ///   payload, an existential's boxed value).
    static func decodeDynamicValues(
        _ scan: HeapScan, index: AddressIndex, kinds: [CompactGraph.NodeKind],
        builder: inout CompactGraph.Builder, typeNames: [String], typeIndex: [Int32],
        into edges: inout EdgeColumns
    ) -> Set<Int32> {
        var boxes = Set<Int32>()
        let columns = scan.columns.storage.pointee
        guard columns.dynamicCount > 0 else { return boxes }
        // Decoding works on the copies in place.
        let copies = UnsafeMutableRawPointer(columns.bytes.base)
        let roles = DynamicRoleCache(slots: scan.flat.dynamicSlots.count)
        defer { roles.free() }
        for value in 0..<columns.dynamicCount {
            let source = columns.dynamicSources.base[value]
            let slotNumber = Int(columns.dynamicSlots.base[value])
            let copy = copies + columns.dynamicOffsets.base[value]
            guard
                mayHoldReference(
                    copy, words: scan.flat.referenceWords(ofDynamic: slotNumber), index: index)
            else { continue }
            let address = columns.dynamicAddresses.base[value]
            scan.decode(scan.flat.dynamicSlots[slotNumber], copy, address) { word, slot in
                let target = index.rawIndex(of: word)
                guard target >= 0 else { return }
                if slot.isBox { boxes.insert(target) }
                var role = roles.number(of: slot.role, slot: slotNumber, builder: &builder)
                if slot.isFunctionContext, kinds[Int(target)] != .closure {
                    let type = typeIndex[Int(target)]
                    role = builder.intern(
                        slot.role.capturing(TypeNames.withoutModule(typeNames[Int(type)])))
                }
                edges.append(
                    source: source, target: UInt32(target),
                    flags: CompactGraph.flags(slot.ownership, .heap), role: role)
            }
        }
        return boxes
    }

    /// Whether any of the first `words` words of a dynamic value's copy is, without the bits
    /// an enum may keep its case in, the address of one of the census's objects.
    ///
    /// Only such a word can become a reference of the snapshot: decoding keeps the words that
    /// are census objects' addresses (a reference, an existential's or an indirect case's box),
    /// and a reference field lies at a multiple of 8 bytes from the value's start. Decoding a
    /// value is much dearer than this look (enum cases, role names built as strings, and in a
    /// debug build unspecialised generic code), and many dynamic values hold no census object
    /// at all (a case without payload, a number or an inline string in an `Any`).
    private static func mayHoldReference(
        _ copy: UnsafeMutableRawPointer, words: Int, index: AddressIndex
    ) -> Bool {
        let values = copy.assumingMemoryBound(to: UInt.self)
        var word = 0
        while word < words {
            let address = values[word] & 0x0000_FFFF_FFFF_FFF0
            if address >= 4096, index.rawIndex(of: address) >= 0 { return true }
            word += 1
        }
        return false
    }
}

/// The roles the values of each dynamic slot decoded to lately, four per slot: values of one
/// slot decode to the same few roles (its cases, its paths), and comparing a role is far
/// cheaper than interning it (hashing its strings), above all in a debug build, where the
/// interning's dictionary runs unspecialised. Plain buffers, for the same reason.
private struct DynamicRoleCache {
    private static let ways = 4
    private let roles: UnsafeMutablePointer<ReferenceRole>
    /// Each way's role number in the graph; `UInt32.max` while the way is empty.
    private let numbers: UnsafeMutablePointer<UInt32>
    /// Per slot, the way to replace next.
    private let next: UnsafeMutablePointer<Int>
    private let count: Int

    init(slots: Int) {
        count = max(slots, 1) * Self.ways
        roles = .allocate(capacity: count)
        roles.initialize(repeating: .capture(name: ""), count: count)
        numbers = .allocate(capacity: count)
        numbers.initialize(repeating: .max, count: count)
        next = .allocate(capacity: max(slots, 1))
        next.initialize(repeating: 0, count: max(slots, 1))
    }

    func free() {
        roles.deinitialize(count: count)
        roles.deallocate()
        numbers.deallocate()
        next.deallocate()
    }

    /// The graph's number of `role`, met in a value of dynamic slot `slot`.
    func number(of role: ReferenceRole, slot: Int, builder: inout CompactGraph.Builder) -> UInt32 {
        let first = slot * Self.ways
        var way = 0
        while way < Self.ways {
            let number = numbers[first + way]
            if number != .max, roles[first + way] == role { return number }
            way += 1
        }
        let number = builder.intern(role)
        let replaced = next[slot]
        next[slot] = (replaced + 1) % Self.ways
        roles[first + replaced] = role
        numbers[first + replaced] = number
        return number
    }
}
