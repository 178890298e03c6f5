/// A symbol of an ELF file's `.symtab` or `.dynsym`.
package struct ELFSymbol: Sendable {
    /// Its address in the file (add the image's load bias for the target's address).
    package var value: UInt
    package var size: UInt
    /// `STT_OBJECT` (1), `STT_FUNC` (2), `STT_TLS` (6)…
    package var type: UInt8
    package var name: String
}

/// An image's data symbols sorted by address, to name the global variable a word lies in.
///
/// Built from the symbol tables' entries alone (address, size, type, where the name is): a test
/// binary's table holds hundreds of thousands of symbols, and decoding every name up front took
/// longer than the reflection walk's whole time budget in a debug build. A name is decoded when
/// a symbol is found.
package struct SymbolIndex: Sendable {
    private struct Entry: Sendable {
        var start: UInt
        var size: UInt
        var name: UInt
    }

    private let file: ELFFile
    private let entries: [Entry]

    /// Indexes the object and thread-local symbols of `file`.
    package init(_ file: ELFFile) {
        self.file = file
        var byStart: [UInt: Entry] = [:]
        for table in [".symtab", ".dynsym"] {
            guard let section = file.section(named: table), section.entrySize >= 24,
                Int(section.link) < file.sections.count
            else { continue }
            let strings = file.sections[Int(section.link)].offset
            for index in 0..<section.size / section.entrySize {
                let entry = section.offset + index * section.entrySize
                guard let info = file.load(entry + 4, as: UInt8.self),
                    let nameOffset = file.load(entry, as: UInt32.self),
                    let value = file.load(entry + 8, as: UInt64.self),
                    let size = file.load(entry + 16, as: UInt64.self)
                else { break }
                // .symtab and .dynsym name the same global: keep the first (`.symtab`'s).
                guard info & 0xF == 1, size > 0, value != 0, nameOffset != 0,
                    byStart[UInt(value)] == nil
                else { continue }
                byStart[UInt(value)] = Entry(
                    start: UInt(value), size: UInt(size), name: strings + UInt(nameOffset))
            }
        }
        entries = byStart.values.sorted { $0.start < $1.start }
    }

    /// The symbol whose storage holds file address `address`, if one does.
    ///
    /// - Complexity: O(log *n*).
    package func symbol(containing address: UInt) -> ELFSymbol? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].start <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let entry = entries[low - 1]
        guard address < entry.start + entry.size, let name = file.string(at: entry.name) else {
            return nil
        }
        return ELFSymbol(value: entry.start, size: entry.size, type: 1, name: name)
    }
}

extension ELFFile {
    /// The file address of the symbol called `name` in `.symtab` or `.dynsym`, local symbols
    /// included, found by comparing names in place (no string made per symbol).
    ///
    /// - Complexity: O(*s*) for *s* symbols: for rare lookups.
    package func symbol(named name: String) -> UInt? {
        let wanted = Array(name.utf8)
        for table in [".symtab", ".dynsym"] {
            guard let section = section(named: table), section.entrySize >= 24,
                Int(section.link) < sections.count
            else { continue }
            let strings = sections[Int(section.link)].offset
            for index in 0..<section.size / section.entrySize {
                let entry = section.offset + index * section.entrySize
                guard let nameOffset = load(entry, as: UInt32.self),
                    let value = load(entry + 8, as: UInt64.self)
                else { break }
                guard nameOffset != 0, value != 0,
                    hasName(wanted, at: strings + UInt(nameOffset))
                else { continue }
                return UInt(value)
            }
        }
        return nil
    }

    /// Whether the NUL-terminated string at byte `offset` is `name`.
    func hasName(_ name: [UInt8], at offset: UInt) -> Bool {
        guard offset + UInt(name.count) < UInt(bytes.count),
            bytes[Int(offset + UInt(name.count))] == 0
        else { return false }
        for (index, byte) in name.enumerated() where bytes[Int(offset) + index] != byte {
            return false
        }
        return true
    }

    /// The file address of the exported symbol `name` (`.dynsym`), looked up through the GNU
    /// hash table when the file has one (a few probes, not a pass over every symbol).
    package func exportedSymbol(named name: String) -> UInt? {
        guard let symbols = section(named: ".dynsym"), symbols.entrySize >= 24,
            Int(symbols.link) < sections.count
        else { return nil }
        let strings = sections[Int(symbols.link)]
        let wanted = Array(name.utf8)
        func matches(_ index: UInt) -> UInt? {
            let entry = symbols.offset + index * symbols.entrySize
            guard let nameOffset = load(entry, as: UInt32.self),
                let sectionIndex = load(entry + 6, as: UInt16.self),
                let value = load(entry + 8, as: UInt64.self), sectionIndex != 0, value != 0
            else { return nil }
            return hasName(wanted, at: strings.offset + UInt(nameOffset)) ? UInt(value) : nil
        }
        guard let table = section(named: ".gnu.hash"),
            let bucketCount = load(table.offset, as: UInt32.self),
            let symbolOffset = load(table.offset + 4, as: UInt32.self),
            let bloomSize = load(table.offset + 8, as: UInt32.self), bucketCount > 0
        else {
            let count = symbols.size / symbols.entrySize
            return (0..<count).lazy.compactMap(matches).first
        }
        var hash: UInt32 = 5381
        for byte in wanted { hash = hash &* 33 &+ UInt32(byte) }
        let buckets = table.offset + 16 + UInt(bloomSize) * 8
        let chains = buckets + UInt(bucketCount) * 4
        guard var index = load(buckets + UInt(hash % bucketCount) * 4, as: UInt32.self),
            index >= symbolOffset
        else { return nil }
        while let chain = load(chains + UInt(index - symbolOffset) * 4, as: UInt32.self) {
            if chain | 1 == hash | 1, let value = matches(UInt(index)) { return value }
            if chain & 1 != 0 { return nil }
            index += 1
        }
        return nil
    }
}
