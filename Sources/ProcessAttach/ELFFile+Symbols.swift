/// A symbol of an ELF file's `.symtab` or `.dynsym`.
struct ELFSymbol: Sendable {
    /// Its address in the file (add the image's load bias for the target's address).
    var value: UInt
    var size: UInt
    /// `STT_OBJECT` (1), `STT_FUNC` (2), `STT_TLS` (6)…
    var type: UInt8
    var name: String
}

extension ELFFile {
    /// Every defined symbol of `.symtab` (absent from stripped files) and `.dynsym`.
    func symbols() -> [ELFSymbol] {
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
struct SymbolIndex: Sendable {
    private let starts: [UInt]
    private let symbols: [ELFSymbol]

    /// Indexes the object and thread-local symbols of `file`.
    init(_ file: ELFFile) {
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
    func symbol(containing address: UInt) -> ELFSymbol? {
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
