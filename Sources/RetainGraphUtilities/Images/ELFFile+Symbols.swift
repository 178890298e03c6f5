/// A symbol of an ELF file's `.symtab` or `.dynsym`.
package struct ELFSymbol: Sendable {
    /// Its address in the file (add the image's load bias for the target's address).
    package var value: UInt
    package var size: UInt
    /// `STT_OBJECT` (1), `STT_FUNC` (2), `STT_TLS` (6)…
    package var type: UInt8
    package var name: String
}

extension ELFFile {
    /// Every defined symbol of `.symtab` (absent from stripped files) and `.dynsym`.
    package func symbols() -> [ELFSymbol] {
        var found: [ELFSymbol] = []
        for table in [".symtab", ".dynsym"] {
            guard let section = section(named: table), section.entrySize >= 24,
                Int(section.link) < sections.count
            else { continue }
            let strings = sections[Int(section.link)]
            let count = section.size / section.entrySize
            for index in 0..<count {
                let entry = section.offset + index * section.entrySize
                guard let nameOffset = load(entry, as: UInt32.self),
                    let info = load(entry + 4, as: UInt8.self),
                    let sectionIndex = load(entry + 6, as: UInt16.self),
                    let value = load(entry + 8, as: UInt64.self),
                    let size = load(entry + 16, as: UInt64.self)
                else { break }
                guard sectionIndex != 0, nameOffset != 0, value != 0,
                    let name = string(at: strings.offset + UInt(nameOffset)), !name.isEmpty
                else { continue }
                found.append(
                    ELFSymbol(value: UInt(value), size: UInt(size), type: info & 0xF, name: name))
            }
        }
        return found
    }
}

/// An image's data symbols sorted by address, to name the global variable a word lies in.
package struct SymbolIndex: Sendable {
    private let starts: [UInt]
    private let symbols: [ELFSymbol]

    /// Indexes the object and thread-local symbols of `file`.
    package init(_ file: ELFFile) {
        var byStart: [UInt: ELFSymbol] = [:]
        for symbol in file.symbols() where symbol.type == 1 && symbol.size > 0 {
            // .symtab and .dynsym name the same global: keep the first (`.symtab`'s).
            if byStart[symbol.value] == nil { byStart[symbol.value] = symbol }
        }
        symbols = byStart.values.sorted { $0.value < $1.value }
        starts = symbols.map(\.value)
    }

    /// The symbol whose storage holds file address `address`, if one does.
    ///
    /// - Complexity: O(log *n*).
    package func symbol(containing address: UInt) -> ELFSymbol? {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let symbol = symbols[low - 1]
        return address < symbol.value + symbol.size ? symbol : nil
    }
}

extension ELFFile {
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
            let start = strings.offset + UInt(nameOffset)
            guard start + UInt(wanted.count) < UInt(bytes.count),
                bytes[Int(start + UInt(wanted.count))] == 0
            else { return nil }
            for (offset, byte) in wanted.enumerated() where bytes[Int(start) + offset] != byte {
                return nil
            }
            return UInt(value)
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
