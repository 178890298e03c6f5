import RetainGraphUtilities

/// An ELF core file, parsed: its memory segments and its notes (threads, the process, the files
/// it mapped, the auxiliary vector, and what RetainGraph's own writers add).
///
/// Reads cores written by the kernel (`core_pattern`, systemd-coredump once decompressed), by
/// gdb's `gcore`, by `retain-graph dump` and by a forked child of HeapDumps. The file is mapped
/// read-only; every offset and size in it is checked against the file's length before use.
struct CoreFile {
    /// A `PT_LOAD` segment: a range of the process's memory, and how much of it the file holds.
    struct Load {
        var range: Range<UInt>
        /// Where its bytes start in the file.
        var offset: UInt
        /// How many of its bytes the file holds (the rest was not dumped).
        var fileSize: UInt
        var flags: UInt32
        var isReadable: Bool { flags & 4 != 0 }
        var isWritable: Bool { flags & 2 != 0 }
        var isExecutable: Bool { flags & 1 != 0 }
    }

    /// A thread's `NT_PRSTATUS`.
    struct Thread {
        var id: Int32
        var signal: Int32
        /// `user_regs_struct`, 27 words on x86-64.
        var registers: [UInt]
    }

    /// One entry of `NT_FILE`: a mapping of a file.
    struct FileMapping {
        var range: Range<UInt>
        /// The offset in the file, in bytes.
        var offset: UInt
        var path: String
    }

    /// `x86_64`'s `EM_X86_64`.
    static let x86Machine = 62
    /// The words of `user_regs_struct` on x86-64.
    static let registerCount = 27

    let path: String
    let file: ELFFile
    private(set) var loads: [Load] = []
    private(set) var threads: [Thread] = []
    private(set) var processID: Int32 = 0
    private(set) var parentID: Int32 = 0
    private(set) var command = "?"
    private(set) var files: [FileMapping] = []
    /// The auxiliary vector (`NT_AUXV`), by type.
    private(set) var auxiliaryVector: [UInt: UInt] = [:]
    /// The raw auxiliary vector, to write again.
    private(set) var auxiliaryBytes: [UInt8] = []
    /// What RetainGraph's writers add, when one wrote the core.
    private(set) var retainGraph = RetainGraphNotes()

    /// Opens and parses the core at `path`.
    ///
    /// - Throws: ``CoreFileError/unreadable(path:reason:)``, ``CoreFileError/notACore(path:)``,
    ///   ``CoreFileError/unsupportedMachine(path:machine:)``,
    ///   ``CoreFileError/truncated(path:size:expected:)``,
    ///   ``CoreFileError/malformed(path:reason:)``.
    init(path: String) throws(CoreFileError) {
        guard let file = ELFFile(path: path) else {
            throw .unreadable(
                path: path, reason: "no such file, not readable, or not a 64-bit ELF file")
        }
        self.path = path
        self.file = file
        guard let type = file.load(0x10, as: UInt16.self), type == 4 else {
            throw .notACore(path: path)
        }
        let machine = Int(file.load(0x12, as: UInt16.self) ?? 0)
        guard machine == Self.x86Machine else {
            throw .unsupportedMachine(path: path, machine: machine)
        }
        let size = UInt(file.bytes.count)
        var needed: UInt = 0
        for segment in file.segments where segment.type == 1 || segment.type == 4 {
            let (end, overflow) = segment.offset.addingReportingOverflow(segment.fileSize)
            guard !overflow else { throw .malformed(path: path, reason: "a segment overflows") }
            needed = max(needed, end)
        }
        guard needed <= size else {
            throw .truncated(path: path, size: Int(size), expected: Int(clamping: needed))
        }
        for segment in file.segments where segment.type == ELFFile.loadSegment {
            let (end, overflow) = segment.virtualAddress.addingReportingOverflow(
                segment.memorySize)
            guard !overflow, segment.memorySize > 0 else { continue }
            loads.append(
                Load(
                    range: segment.virtualAddress..<end, offset: segment.offset,
                    fileSize: min(segment.fileSize, segment.memorySize), flags: segment.flags))
        }
        loads.sort { $0.range.lowerBound < $1.range.lowerBound }
        for segment in file.segments where segment.type == 4 {  // PT_NOTE
            readNotes(from: segment.offset, size: segment.fileSize)
        }
        guard !threads.isEmpty else {
            throw .malformed(path: path, reason: "no thread (NT_PRSTATUS note)")
        }
        if processID == 0 { processID = threads[0].id }
    }

    /// Reads each note of the `PT_NOTE` segment at file offset `offset`.
    private mutating func readNotes(from offset: UInt, size: UInt) {
        var at = offset
        let end = offset + size
        while at + 12 <= end {
            guard let nameSize = file.load(at, as: UInt32.self),
                let descriptionSize = file.load(at + 4, as: UInt32.self),
                let type = file.load(at + 8, as: UInt32.self)
            else { return }
            let nameStart = at + 12
            let descriptionStart = nameStart + (UInt(nameSize) + 3) & ~3
            let next = descriptionStart + (UInt(descriptionSize) + 3) & ~3
            guard next <= end else { return }
            let name = file.string(at: nameStart).map { String($0.prefix(Int(nameSize))) } ?? ""
            let bytes = UnsafeRawBufferPointer(
                rebasing: file.bytes[
                    Int(descriptionStart)..<Int(descriptionStart) + Int(descriptionSize)])
            note(name: name, type: type, bytes)
            at = next
        }
    }

    /// Reads one note.
    private mutating func note(name: String, type: UInt32, _ bytes: UnsafeRawBufferPointer) {
        func word(_ offset: Int) -> UInt {
            offset + 8 <= bytes.count
                ? bytes.loadUnaligned(fromByteOffset: offset, as: UInt.self) : 0
        }
        func int32(_ offset: Int) -> Int32 {
            offset + 4 <= bytes.count
                ? bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self) : 0
        }
        switch (name, type) {
        case ("CORE", 1):  // NT_PRSTATUS: the registers at 112, 27 words
            guard bytes.count >= 112 + 8 * Self.registerCount else { return }
            threads.append(
                Thread(
                    id: int32(32), signal: Int32(truncatingIfNeeded: int32(12) & 0xFFFF),
                    registers: (0..<Self.registerCount).map { word(112 + 8 * $0) }))
        case ("CORE", 3):  // NT_PRPSINFO: pid at 24, ppid at 28, pr_fname[16] at 40
            guard bytes.count >= 56 else { return }
            processID = int32(24)
            parentID = int32(28)
            let name = bytes[40..<55].prefix { $0 != 0 }  // comm: 15 bytes
            command = PrintableText.escaped(String(decoding: name, as: UTF8.self))
        case ("CORE", 6):  // NT_AUXV: pairs of words
            auxiliaryBytes = Array(bytes)
            var offset = 0
            while offset + 16 <= bytes.count {
                let key = word(offset)
                if key == 0 { break }
                auxiliaryVector[key] = word(offset + 8)
                offset += 16
            }
        case ("CORE", 0x4649_4C45):  // NT_FILE
            files = Self.fileMappings(bytes)
        case (RetainGraphNotes.name, _):
            retainGraph.read(type: type, bytes)
        default:
            break
        }
    }

    /// `NT_FILE`: count, page size, then (start, end, page offset) per file, then the names.
    static func fileMappings(_ bytes: UnsafeRawBufferPointer) -> [FileMapping] {
        guard bytes.count >= 16 else { return [] }
        let count = Int(clamping: bytes.loadUnaligned(as: UInt.self))
        let pageSize = bytes.loadUnaligned(fromByteOffset: 8, as: UInt.self)
        guard count < bytes.count / 24 + 1, pageSize > 0, pageSize <= 1 << 30 else { return [] }
        var names = 16 + 24 * count
        var mappings: [FileMapping] = []
        for index in 0..<count {
            let entry = 16 + 24 * index
            guard names <= bytes.count else { break }
            let start = bytes.loadUnaligned(fromByteOffset: entry, as: UInt.self)
            let end = bytes.loadUnaligned(fromByteOffset: entry + 8, as: UInt.self)
            let page = bytes.loadUnaligned(fromByteOffset: entry + 16, as: UInt.self)
            let tail = bytes[names...]
            let stop = tail.firstIndex(of: 0) ?? bytes.count
            let name = String(decoding: bytes[names..<stop], as: UTF8.self)
            names = stop + 1
            let (offset, overflow) = page.multipliedReportingOverflow(by: pageSize)
            guard start < end, !overflow else { continue }
            mappings.append(FileMapping(range: start..<end, offset: offset, path: name))
        }
        return mappings
    }

    /// The load segment that holds `address`, if any.
    ///
    /// - Complexity: O(log *segments*).
    func load(containing address: UInt) -> Load? {
        loads(overlapping: address..<address + 1).first
    }

    /// The load segments that overlap `range`, by address.
    ///
    /// - Complexity: O(log *segments* + *k*) for *k* segments returned.
    func loads(overlapping range: Range<UInt>) -> ArraySlice<Load> {
        var low = 0
        var high = loads.count
        while low < high {
            let middle = (low + high) / 2
            if loads[middle].range.upperBound <= range.lowerBound {
                low = middle + 1
            } else {
                high = middle
            }
        }
        var end = low
        while end < loads.count, loads[end].range.lowerBound < range.upperBound { end += 1 }
        return loads[low..<end]
    }
}
