#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whether an ELF file carries its own DWARF line table, read from its section headers.
///
/// The `Runtime` module's cost per address grows with an image's debug information (it runs
/// line-number programs per address and builds a table of inlined calls per image), while on
/// an image without any (a stripped system library) it only searches the symbol table, faster
/// than starting `llvm-symbolizer`. So only images with a `.debug_line` section go to the
/// symbolizer for small batches. Separate debug files (`.gnu_debuglink`) do not count: the
/// `Runtime` module reads no line table from them.
enum ImageDebugInfo {
    /// Whether the ELF file at `path` has a non-empty `.debug_line` (or `.zdebug_line`) section.
    ///
    /// Reads the ELF header, the section headers and the section-name table with `pread`;
    /// never traps on a short, truncated or non-ELF file (the answer is then `false`).
    ///
    /// - Parameter path: An ELF file, 64-bit little-endian.
    /// - Returns: `true` when the line table is there.
    /// - Complexity: Three reads; cache the answer per image.
    static func hasLineTable(atPath path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard let header = read(descriptor, at: 0, count: 64), header.count == 64,
            header[0..<4].elementsEqual([0x7F, 0x45, 0x4C, 0x46]), header[4] == 2, header[5] == 1
        else { return false }
        let sectionsOffset = Int(field(header, at: 0x28, size: 8))
        let entrySize = Int(field(header, at: 0x3A, size: 2))
        let count = Int(field(header, at: 0x3C, size: 2))
        let namesIndex = Int(field(header, at: 0x3E, size: 2))
        guard entrySize >= 64, count > 0, count <= 65_535, namesIndex < count,
            let sections = read(descriptor, at: sectionsOffset, count: entrySize * count),
            sections.count == entrySize * count
        else { return false }
        func section(_ index: Int) -> (name: Int, offset: Int, size: Int) {
            let start = index * entrySize
            return (
                Int(field(sections, at: start, size: 4)),
                Int(clamping: field(sections, at: start + 0x18, size: 8)),
                Int(clamping: field(sections, at: start + 0x20, size: 8))
            )
        }
        let names = section(namesIndex)
        guard names.size > 0, names.size <= 1 << 24,
            let table = read(descriptor, at: names.offset, count: names.size)
        else { return false }
        for index in 0..<count {
            let entry = section(index)
            guard entry.size > 0, entry.name < table.count else { continue }
            let name = table[entry.name...].prefix { $0 != 0 }
            if name.elementsEqual(".debug_line".utf8) || name.elementsEqual(".zdebug_line".utf8) {
                return true
            }
        }
        return false
    }

    /// `count` bytes at `offset` of `descriptor`, or `nil` when the read fails.
    private static func read(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { break }
            done += result
        }
        return Array(bytes[..<done])
    }

    /// A little-endian unsigned field of `size` bytes at `offset` (0 when out of range).
    private static func field(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        guard offset >= 0, offset + size <= bytes.count else { return 0 }
        var value: UInt64 = 0
        for index in (0..<size).reversed() {
            value = value << 8 | UInt64(bytes[offset + index])
        }
        return value
    }
}
