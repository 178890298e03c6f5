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
        // Decoding works on the copies in place; values inside values are copied to scratch
        // memory, one buffer per depth.
        let copies = UnsafeMutableRawPointer(columns.bytes.base)
        let slots = scan.flat.dynamicSlots
        let plans = (0..<slots.count).map { _ in DynamicPlans() }
        let scratch = UnsafeMutableRawPointer.allocate(
            byteCount: DynamicPlan.maximumNesting * DynamicSlot.maximumSize,
            alignment: 16)
        defer { scratch.deallocate() }
        let decoder = scan.decoder

        /// Adds the reference `word` makes, if it is an object's address: read by `slot`
        /// of `entry` (a function's context is named by what it turns out to be).
        func add(_ word: UInt, _ entry: DynamicPlans.Entry, _ slot: Int, source: UInt32) {
            let target = index.rawIndex(of: word)
            guard target >= 0 else { return }
            let flags = entry.flags[slot]
            if flags & DynamicPlans.Entry.isBox != 0 { boxes.insert(target) }
            var role = entry.roles[slot]
            if flags & DynamicPlans.Entry.isFunctionContext != 0, kinds[Int(target)] != .closure {
                let type = typeIndex[Int(target)]
                role = builder.intern(
                    entry.slots[slot].role.capturing(
                        TypeNames.withoutModule(typeNames[Int(type)])))
            }
            edges.append(
                source: source, target: UInt32(target), flags: entry.edgeFlags[slot], role: role)
        }

        /// Reads one value of `slot` through its plan for what the value holds, then the values
        /// inside it.
        func read(
            _ slot: DynamicSlot, plans: DynamicPlans, copy: UnsafeMutableRawPointer,
            address: UInt, nesting: Int, source: UInt32
        ) {
            guard nesting < DynamicPlan.maximumNesting,
                let contents = decoder.contents(of: slot, copy: copy, address: address)
            else { return }
            let entry = plans.entry(for: contents) {
                DynamicPlans.Entry(
                    contents: contents, plan: decoder.plan(for: slot, contents: contents),
                    builder: &builder)
            }
            var number = 0
            while number < entry.offsets.count {
                let word = copy.loadUnaligned(fromByteOffset: entry.offsets[number], as: UInt.self)
                add(
                    entry.flags[number] & DynamicPlans.Entry.isStringObject != 0
                        ? StringObject.storage(word) : word, entry, number, source: source)
                number += 1
            }
            var inner = 0
            while inner < entry.dynamics.count {
                let value = entry.dynamics[inner]
                let buffer = scratch + nesting * DynamicSlot.maximumSize
                buffer.copyMemory(from: copy + value.offset, byteCount: value.size)
                read(
                    value, plans: entry.inner[inner], copy: buffer,
                    address: address &+ UInt(value.offset), nesting: nesting + 1, source: source)
                inner += 1
            }
        }

        for value in 0..<columns.dynamicCount {
            let slotNumber = Int(columns.dynamicSlots.base[value])
            let copy = copies + columns.dynamicOffsets.base[value]
            guard
                mayHoldReference(
                    copy, words: scan.flat.referenceWords(ofDynamic: slotNumber), index: index)
            else { continue }
            read(
                slots[slotNumber], plans: plans[slotNumber], copy: copy,
                address: columns.dynamicAddresses.base[value], nesting: 0,
                source: columns.dynamicSources.base[value])
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

/// The plans made for the values of one dynamic slot, by what they hold, with their words' role
/// numbers and the plans of the values inside them: the values of one slot hold the same few
/// types or cases, and a plan made once (its roles named as strings, then interned: dear, above
/// all in a debug build) is read in every value alike. Up to four per slot; a slot of `Any`
/// holding more types than that plans the others anew each time.
private final class DynamicPlans {
    /// A plan as the builder reads it, in plain columns (in a debug build, every copy of a
    /// slot with its role costs retains and a copy of its bytes): per word, its offset, its
    /// role's number, its edge flags and what it is.
    final class Entry {
        static let isBox: UInt8 = 1
        static let isStringObject: UInt8 = 2
        static let isFunctionContext: UInt8 = 4

        let contents: DynamicContents
        /// The box (then the only word, at offset 0), or the plan's slots.
        let slots: [LayoutSlot]
        let offsets: [Int]
        let roles: [UInt32]
        let edgeFlags: [UInt8]
        let flags: [UInt8]
        /// The values inside it, and per value the plans of that value.
        let dynamics: [DynamicSlot]
        let inner: [DynamicPlans]

        init(contents: DynamicContents, plan: DynamicPlan, builder: inout CompactGraph.Builder) {
            self.contents = contents
            slots = plan.box.map { [$0] } ?? plan.slots
            offsets = slots.map(\.offset)
            roles = slots.map { builder.intern($0.role) }
            edgeFlags = slots.map { CompactGraph.flags($0.ownership, .heap) }
            flags = slots.map {
                ($0.isBox ? Self.isBox : 0) | ($0.isStringObject ? Self.isStringObject : 0)
                    | ($0.isFunctionContext ? Self.isFunctionContext : 0)
            }
            dynamics = plan.box == nil ? plan.dynamics : []
            inner = dynamics.map { _ in DynamicPlans() }
        }
    }

    private static let ways = 4
    private var entries: [Entry] = []

    /// The entry for `contents`, made by `make` when not kept.
    func entry(for contents: DynamicContents, make: () -> Entry) -> Entry {
        var way = 0
        while way < entries.count {
            if Self.same(entries[way].contents, contents) { return entries[way] }
            way += 1
        }
        let entry = make()
        if entries.count < Self.ways { entries.append(entry) }
        return entry
    }

    /// `==`, written out: the synthesized one compares the optionals through generic code,
    /// unspecialised in a debug build.
    private static func same(_ a: DynamicContents, _ b: DynamicContents) -> Bool {
        a.isBoxed == b.isBoxed && a.type?.raw == b.type?.raw && a.caseName == b.caseName
    }
}
