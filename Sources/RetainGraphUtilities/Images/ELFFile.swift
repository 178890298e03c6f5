#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A 64-bit little-endian ELF file on disk, mapped read-only: program headers, sections and
/// symbol tables, which the loaded image in the target does not keep in memory.
///
/// Every read is bounds-checked against the file: a truncated or hostile file yields nil, never
/// a fault.
package final class ELFFile: @unchecked Sendable {
    /// A program header.
    package struct Segment {
        package var type: UInt32
        package var flags: UInt32
        package var offset: UInt
        package var virtualAddress: UInt
        package var fileSize: UInt
        package var memorySize: UInt
        package var isWritable: Bool { flags & 2 != 0 }
    }

    /// A section header.
    package struct Section {
        package var name: String
        package var type: UInt32
        package var address: UInt
        package var offset: UInt
        package var size: UInt
        package var link: UInt32
        package var entrySize: UInt
    }

    package static let loadSegment: UInt32 = 1
    package static let relroSegment: UInt32 = 0x6474_e552

    package let bytes: UnsafeRawBufferPointer
    /// The file's inode, to tell whether it is still the file the target mapped.
    package let inode: UInt
    package private(set) var segments: [Segment] = []
    package private(set) var sections: [Section] = []

    /// Maps the file at `path` and reads its headers; nil unless it is a 64-bit ELF file.
    package init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_size >= 64 else { return nil }
        let size = Int(info.st_size)
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0),
            base != MAP_FAILED
        else { return nil }
        let mapped = UnsafeRawBufferPointer(start: base, count: size)
        guard mapped[0] == 0x7F, mapped[1] == 0x45, mapped[2] == 0x4C, mapped[3] == 0x46,
            mapped[4] == 2, mapped[5] == 1
        else {
            munmap(base, size)
            return nil
        }
        bytes = mapped
        inode = UInt(info.st_ino)
        readSegments()
        readSections()
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }

    /// The `T` at byte `offset`, or nil past the end.
    package func load<T: FixedWidthInteger>(_ offset: UInt, as type: T.Type) -> T? {
        guard offset <= UInt(bytes.count), UInt(bytes.count) - offset >= UInt(MemoryLayout<T>.size)
        else { return nil }
        return bytes.loadUnaligned(fromByteOffset: Int(offset), as: T.self)
    }

    /// The NUL-terminated string at byte `offset`, or nil.
    package func string(at offset: UInt) -> String? {
        guard offset < UInt(bytes.count) else { return nil }
        let tail = bytes[Int(offset)...]
        guard let end = tail.firstIndex(of: 0) else { return nil }
        return String(decoding: bytes[Int(offset)..<end], as: UTF8.self)
    }

    /// The section called `name`, if any.
    package func section(named name: String) -> Section? { sections.first { $0.name == name } }

    /// The bytes of `section` in the file, or nil when they lie outside it.
    package func contents(of section: Section) -> UnsafeRawBufferPointer? {
        guard section.type != 8,  // SHT_NOBITS: no bytes in the file
            section.offset <= UInt(bytes.count), UInt(bytes.count) - section.offset >= section.size
        else { return nil }
        return UnsafeRawBufferPointer(
            rebasing: bytes[Int(section.offset)..<Int(section.offset + section.size)])
    }

    private func readSegments() {
        guard let offset = load(0x20, as: UInt64.self), let size = load(0x36, as: UInt16.self),
            let count = load(0x38, as: UInt16.self), size >= 56
        else { return }
        for index in 0..<UInt(count) {
            let header = UInt(offset) + index * UInt(size)
            guard let type = load(header, as: UInt32.self),
                let flags = load(header + 4, as: UInt32.self),
                let fileOffset = load(header + 8, as: UInt64.self),
                let address = load(header + 16, as: UInt64.self),
                let fileSize = load(header + 32, as: UInt64.self),
                let memorySize = load(header + 40, as: UInt64.self)
            else { return }
            segments.append(
                Segment(
                    type: type, flags: flags, offset: UInt(fileOffset),
                    virtualAddress: UInt(address), fileSize: UInt(fileSize),
                    memorySize: UInt(memorySize)))
        }
    }

    private func readSections() {
        guard let offset = load(0x28, as: UInt64.self), let size = load(0x3A, as: UInt16.self),
            let count = load(0x3C, as: UInt16.self), let names = load(0x3E, as: UInt16.self),
            size >= 64, names < count
        else { return }
        func header(_ index: UInt) -> UInt { UInt(offset) + index * UInt(size) }
        guard let namesOffset = load(header(UInt(names)) + 0x18, as: UInt64.self) else { return }
        for index in 0..<UInt(count) {
            let at = header(index)
            guard let name = load(at, as: UInt32.self), let type = load(at + 4, as: UInt32.self),
                let address = load(at + 0x10, as: UInt64.self),
                let fileOffset = load(at + 0x18, as: UInt64.self),
                let sectionSize = load(at + 0x20, as: UInt64.self),
                let link = load(at + 0x28, as: UInt32.self),
                let entrySize = load(at + 0x38, as: UInt64.self)
            else { return }
            sections.append(
                Section(
                    name: string(at: UInt(namesOffset) + UInt(name)) ?? "", type: type,
                    address: UInt(address), offset: UInt(fileOffset), size: UInt(sectionSize),
                    link: link, entrySize: UInt(entrySize)))
        }
    }
}
