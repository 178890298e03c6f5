import RetainGraphUtilities

/// The notes of a core RetainGraph writes from a ``ProcessMemory``: the standard ones gdb and
/// this tool read (`NT_PRSTATUS` per thread, `NT_PRPSINFO`, `NT_AUXV`, `NT_FILE`), then
/// ``RetainGraphNotes``.
struct CoreNotes {
    private(set) var bytes: [UInt8] = []

    /// `struct elf_prstatus` on x86-64: 336 bytes, `pr_pid` at 32, `pr_ppid` at 36,
    /// `pr_reg` (27 words) at 112.
    static let statusSize = 336
    /// `struct elf_prpsinfo` on x86-64: 136 bytes, `pr_fname[16]` at 40, `pr_psargs[80]` at 56.
    static let processInfoSize = 136

    /// The notes of `memory`, with the auxiliary vector `auxiliaryVector` (`/proc/PID/auxv`).
    init(
        _ memory: ProcessMemory, auxiliaryVector: [UInt8], parentID: Int32, notes: RetainGraphNotes
    ) {
        for thread in memory.threads where thread.id > 0 {
            var status = [UInt8](repeating: 0, count: Self.statusSize)
            Self.put(UInt32(bitPattern: thread.id), at: 32, in: &status)
            Self.put(UInt32(bitPattern: parentID), at: 36, in: &status)
            for (index, register) in thread.registers.prefix(CoreFile.registerCount).enumerated() {
                Self.put(UInt64(register), at: 112 + 8 * index, in: &status)
            }
            append(name: "CORE", type: 1, status)
        }
        var info = [UInt8](repeating: 0, count: Self.processInfoSize)
        info[1] = UInt8(ascii: "R")
        Self.put(UInt32(bitPattern: memory.processID), at: 24, in: &info)
        Self.put(UInt32(bitPattern: parentID), at: 28, in: &info)
        for (index, byte) in memory.command.utf8.prefix(15).enumerated() { info[40 + index] = byte }
        for (index, byte) in memory.command.utf8.prefix(79).enumerated() { info[56 + index] = byte }
        append(name: "CORE", type: 3, info)
        if !auxiliaryVector.isEmpty { append(name: "CORE", type: 6, auxiliaryVector) }
        append(name: "CORE", type: 0x4649_4C45, Self.fileNote(memory.mappings))
        for note in notes.encoded {
            append(name: RetainGraphNotes.name, type: note.type, note.bytes)
        }
    }

    /// `NT_FILE`: the file mappings, with their offsets in pages of 4 KiB.
    static func fileNote(_ mappings: [Mapping]) -> [UInt8] {
        let files = mappings.filter(\.isFile)
        var bytes = [UInt8](repeating: 0, count: 16 + 24 * files.count)
        put(UInt64(files.count), at: 0, in: &bytes)
        put(UInt64(4096), at: 8, in: &bytes)
        for (index, mapping) in files.enumerated() {
            put(UInt64(mapping.range.lowerBound), at: 16 + 24 * index, in: &bytes)
            put(UInt64(mapping.range.upperBound), at: 24 + 24 * index, in: &bytes)
            put(UInt64(mapping.offset / 4096), at: 32 + 24 * index, in: &bytes)
        }
        for mapping in files { bytes += Array(mapping.path.utf8) + [0] }
        return bytes
    }

    /// A memory map as `/proc/PID/maps` shows it (the device is not kept: `00:00`).
    static func mapsText(_ mappings: [Mapping]) -> String {
        mappings.map { mapping in
            let permissions =
                (mapping.isReadable ? "r" : "-") + (mapping.isWritable ? "w" : "-")
                + (mapping.isExecutable ? "x" : "-") + (mapping.isShared ? "s" : "p")
            return "\(String(mapping.range.lowerBound, radix: 16))-"
                + "\(String(mapping.range.upperBound, radix: 16)) \(permissions) "
                + "\(String(mapping.offset, radix: 16)) 00:00 \(mapping.inode) \(mapping.path)\n"
        }.joined()
    }

    /// Appends one note: its header, its name and contents each padded to 4 bytes.
    private mutating func append(name: String, type: UInt32, _ contents: [UInt8]) {
        let nameBytes = Array(name.utf8) + [0]
        var header = [UInt8](repeating: 0, count: 12)
        Self.put(UInt32(nameBytes.count), at: 0, in: &header)
        Self.put(UInt32(contents.count), at: 4, in: &header)
        Self.put(type, at: 8, in: &header)
        bytes += header + nameBytes
        bytes += [UInt8](repeating: 0, count: (4 - nameBytes.count % 4) % 4)
        bytes += contents
        bytes += [UInt8](repeating: 0, count: (4 - contents.count % 4) % 4)
    }

    /// Stores `value` little-endian at `offset` of `bytes`.
    static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for (index, byte) in raw.enumerated() { bytes[offset + index] = byte }
        }
    }
}
