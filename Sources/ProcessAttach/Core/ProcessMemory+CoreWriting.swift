import RetainGraphUtilities

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What writing a core produced.
public struct CoreWriteResult: Sendable, Equatable {
    /// The file's length (pages of zeros are holes: the file takes less on disk).
    public let fileSize: Int
    /// The bytes of memory written (pages of zeros left out).
    public let writtenBytes: Int
    /// The `PT_LOAD` segments.
    public let segments: Int
}

extension ProcessMemory {
    /// Writes this memory as an ELF core file that gdb and ``ProcessCore`` read.
    ///
    /// One `PT_LOAD` segment per piece of each mapping: the copied memory in full, the first
    /// page of each image (its ELF header and build id, as the kernel dumps it), and the rest
    /// of each image with no bytes (read from its file, as in the kernel's cores). Notes:
    /// `NT_PRSTATUS` per thread (registers), `NT_PRPSINFO`, `NT_AUXV` when given, `NT_FILE`,
    /// and `RETAINGRAPH` notes (the memory map, thread names, the time, what was not read).
    /// Pages of zeros are left as holes (`lseek`), as the kernel does: the file's length is
    /// the process's address space read, its size on disk what was in use.
    ///
    /// ```swift
    /// let process = try StoppedProcess(processID: pid)
    /// let memory = try process.captureMemory()
    /// process.resume()
    /// try memory.writeCore(toFile: "app.core")   // read back with ProcessCore
    /// ```
    ///
    /// - Parameters:
    ///   - path: The file to write (created with mode 0600: a core holds the process's secrets).
    ///   - auxiliaryVector: The process's `/proc/PID/auxv`, if read.
    ///   - parentID: The process's parent, if known.
    /// - Returns: The file's length and what was written.
    /// - Throws: ``CoreFileError/writeFailed(path:reason:)``.
    /// - Complexity: O(*m*) for *m* bytes copied.
    @discardableResult
    public func writeCore(toFile path: String, auxiliaryVector: [UInt8] = [], parentID: Int32 = 0)
        throws(CoreFileError) -> CoreWriteResult
    {
        var segments: [(range: Range<UInt>, flags: UInt32, source: MemoryRegion?, size: UInt)] = []
        var index = 0
        for mapping in mappings where mapping.path != "[vvar]" && mapping.path != "[vsyscall]" {
            let flags: UInt32 =
                (mapping.isReadable ? 4 : 0) | (mapping.isWritable ? 2 : 0)
                | (mapping.isExecutable ? 1 : 0)
            while index < regions.count, regions[index].range.upperBound <= mapping.range.lowerBound
            {
                index += 1
            }
            var cursor = mapping.range.lowerBound
            var next = index
            while next < regions.count, regions[next].range.lowerBound < mapping.range.upperBound {
                let region = regions[next]
                let piece = mapping.range.clamped(to: region.range)
                if piece.lowerBound > cursor {
                    segments.append((cursor..<piece.lowerBound, flags, nil, 0))
                }
                let isHeader =
                    mapping.isFile && mapping.offset == 0
                    && piece.lowerBound == mapping.range.lowerBound
                let size =
                    region.isCopy ? UInt(piece.count) : isHeader ? min(4096, UInt(piece.count)) : 0
                segments.append((piece, flags, region, size))
                cursor = piece.upperBound
                next += 1
            }
            if cursor < mapping.range.upperBound {
                segments.append((cursor..<mapping.range.upperBound, flags, nil, 0))
            }
        }
        var notes = RetainGraphNotes()
        notes.maps = CoreNotes.mapsText(mappings)
        notes.threadNames = Dictionary(threads.map { ($0.id, $0.name) }) { first, _ in first }
        notes.statements = limitations
        notes.time = capturedAt ?? Self.now
        notes.writer = "retain-graph dump"
        let noteBytes = CoreNotes(
            self, auxiliaryVector: auxiliaryVector, parentID: parentID, notes: notes
        ).bytes
        let headerSize = 64 + 56 * (segments.count + 1)
        var offset = UInt(headerSize + noteBytes.count + 4095) & ~4095
        var header = [UInt8](repeating: 0, count: headerSize)
        Self.writeELFHeader(&header, programHeaders: segments.count + 1)
        Self.writeProgramHeader(
            &header, at: 64, type: 4, flags: 4, offset: UInt(headerSize), address: 0,
            fileSize: UInt(noteBytes.count), memorySize: 0)
        var offsets: [UInt] = []
        for (number, segment) in segments.enumerated() {
            offsets.append(offset)
            Self.writeProgramHeader(
                &header, at: 64 + 56 * (number + 1), type: 1, flags: segment.flags, offset: offset,
                address: segment.range.lowerBound, fileSize: segment.size,
                memorySize: UInt(segment.range.count))
            offset += (segment.size + 4095) & ~4095
        }
        let output = try CoreOutput(path: path)
        try output.write(header)
        try output.write(noteBytes)
        var written = 0
        for (number, segment) in segments.enumerated() where segment.size > 0 {
            guard let region = segment.source else { continue }
            try output.seek(to: offsets[number])
            written += try output.writeSkippingZeroPages(
                region.local(segment.range.lowerBound), count: Int(segment.size))
        }
        try output.finish(length: offset)
        return CoreWriteResult(
            fileSize: Int(offset), writtenBytes: written, segments: segments.count)
    }

    /// Seconds since 1970 now (`clock_gettime(CLOCK_REALTIME)`).
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// An ELF header for an x86-64 core (`ET_CORE`) with `count` program headers after it.
    private static func writeELFHeader(_ bytes: inout [UInt8], programHeaders count: Int) {
        bytes.replaceSubrange(0..<8, with: [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0])
        CoreNotes.put(UInt16(4), at: 0x10, in: &bytes)  // ET_CORE
        CoreNotes.put(UInt16(CoreFile.x86Machine), at: 0x12, in: &bytes)
        CoreNotes.put(UInt32(1), at: 0x14, in: &bytes)  // EV_CURRENT
        CoreNotes.put(UInt64(64), at: 0x20, in: &bytes)  // e_phoff
        CoreNotes.put(UInt16(64), at: 0x34, in: &bytes)  // e_ehsize
        CoreNotes.put(UInt16(56), at: 0x36, in: &bytes)  // e_phentsize
        CoreNotes.put(UInt16(clamping: count), at: 0x38, in: &bytes)
        CoreNotes.put(UInt16(64), at: 0x3A, in: &bytes)  // e_shentsize
    }

    private static func writeProgramHeader(
        _ bytes: inout [UInt8], at: Int, type: UInt32, flags: UInt32, offset: UInt,
        address: UInt, fileSize: UInt, memorySize: UInt
    ) {
        CoreNotes.put(type, at: at, in: &bytes)
        CoreNotes.put(flags, at: at + 4, in: &bytes)
        CoreNotes.put(UInt64(offset), at: at + 8, in: &bytes)
        CoreNotes.put(UInt64(address), at: at + 16, in: &bytes)
        CoreNotes.put(UInt64(fileSize), at: at + 32, in: &bytes)
        CoreNotes.put(UInt64(memorySize), at: at + 40, in: &bytes)
        CoreNotes.put(UInt64(type == 1 ? 4096 : 1), at: at + 48, in: &bytes)
    }
}

/// A core file being written with `write`, `lseek` and `ftruncate`.
struct CoreOutput: ~Copyable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws(CoreFileError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: Self.reason()) }
    }

    deinit { close(descriptor) }

    private static func reason() -> String { String(cString: strerror(errno)) }

    func write(_ bytes: [UInt8]) throws(CoreFileError) {
        let result: Result<Void, CoreFileError> = bytes.withUnsafeBytes { raw in
            Result { () throws(CoreFileError) in try write(raw.baseAddress, count: raw.count) }
        }
        try result.get()
    }

    func write(_ start: UnsafeRawPointer?, count: Int) throws(CoreFileError) {
        guard let start else { return }
        var done = 0
        while done < count {
            let result = Glibc.write(descriptor, start + done, count - done)
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { throw .writeFailed(path: path, reason: Self.reason()) }
            done += result
        }
    }

    func seek(to offset: UInt) throws(CoreFileError) {
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            throw .writeFailed(path: path, reason: Self.reason())
        }
    }

    /// Writes `count` bytes from `start`, leaving each page of zeros a hole; the bytes written.
    func writeSkippingZeroPages(_ start: UnsafeRawPointer, count: Int) throws(CoreFileError) -> Int
    {
        var written = 0
        var page = 0
        while page < count {
            let length = min(4096, count - page)
            var run = page
            while run < count, !Self.isZero(start + run, min(4096, count - run)) { run += 4096 }
            if run > page {
                let end = min(run, count)
                try write(start + page, count: end - page)
                written += end - page
                page = end
            } else {
                guard lseek(descriptor, off_t(length), SEEK_CUR) >= 0 else {
                    throw .writeFailed(path: path, reason: Self.reason())
                }
                page += length
            }
        }
        return written
    }

    private static func isZero(_ start: UnsafeRawPointer, _ count: Int) -> Bool {
        let words = count / 8
        for index in 0..<words
        where start.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) != 0 {
            return false
        }
        for index in words * 8..<count where start.load(fromByteOffset: index, as: UInt8.self) != 0
        {
            return false
        }
        return true
    }

    /// Sets the file's length to `length` (trailing holes included) and flushes nothing more.
    func finish(length: UInt) throws(CoreFileError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw .writeFailed(path: path, reason: Self.reason())
        }
    }
}
