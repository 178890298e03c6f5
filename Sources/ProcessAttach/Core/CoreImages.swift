import RetainGraphUtilities

/// The files a core's process mapped, opened from this machine (or under a sysroot) and
/// checked to be the very files the process ran.
///
/// A core holds the first page of each ELF file the process mapped (the kernel's and gdb's
/// default, `coredump_filter` bit 4; RetainGraph's writers too): its GNU build id is compared
/// with the file's, or, for a file without one, the page's bytes with the file's first page.
/// A core without that page is checked by the inode its memory map names (a RetainGraph dump
/// read on the machine it was written on), or not at all, which is said in the limitations.
struct CoreImages {
    /// The images opened, checked.
    private(set) var images: [LoadedImage] = []
    /// Each file opened, by the path the process used.
    private(set) var files: [String: ELFFile] = [:]
    /// What could not be checked.
    private(set) var limitations: [String] = []

    /// Opens and checks the files of `mappings`.
    ///
    /// - Parameters:
    ///   - mappings: The process's memory map.
    ///   - core: The core, whose dumped first pages identify the files.
    ///   - sysroot: The folder that holds the process's files (nil: this machine's root).
    /// - Throws: ``CoreFileError/missingFiles(path:files:sysroot:)`` when a file mapped as code
    ///   is missing, ``CoreFileError/fileChanged(path:file:reason:)`` when a file is not the one
    ///   the process mapped.
    init(mappings: [Mapping], core: CoreFile, sysroot: String?) throws(CoreFileError) {
        var byPath: [String: [Mapping]] = [:]
        var order: [String] = []
        for mapping in mappings where mapping.isFile {
            if byPath[mapping.path] == nil { order.append(mapping.path) }
            byPath[mapping.path, default: []].append(mapping)
        }
        var missing: [String] = []
        for path in order {
            guard let fileMappings = byPath[path] else { continue }
            let local =
                (sysroot.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "") + path
            guard let file = ELFFile(path: local) else {
                if fileMappings.contains(where: \.isExecutable) {
                    missing.append(path)
                } else if Self.dumpedHeader(of: fileMappings, in: core) != nil {
                    limitations.append("not found: \(PrintableText.escaped(path))")
                }
                continue
            }
            let loaded = ImageTable.loadedMappings(fileMappings)
            try check(file, path: path, mappings: loaded, core: core, sysroot: sysroot)
            files[path] = file
            if let image = LoadedImage(path: path, file: file, mappings: loaded) {
                images.append(image)
            }
        }
        if !missing.isEmpty {
            throw .missingFiles(
                path: core.path, files: missing.map(PrintableText.escaped), sysroot: sysroot)
        }
    }

    /// Throws unless `file` is the file the process mapped at `mappings`.
    private mutating func check(
        _ file: ELFFile, path: String, mappings: [Mapping], core: CoreFile, sysroot: String?
    ) throws(CoreFileError) {
        let shown = PrintableText.escaped(path)
        if let header = Self.dumpedHeader(of: mappings, in: core) {
            let dumped = Self.buildID(inImageAt: header)
            let onDisk = Self.buildID(inImageAt: file.bytes)
            switch (dumped, onDisk) {
            case (let dumped?, let onDisk?) where dumped != onDisk:
                throw .fileChanged(
                    path: core.path, file: shown,
                    reason: "build id \(Self.hex(onDisk)), the process ran \(Self.hex(dumped))")
            case (_?, _?):
                return
            case (_?, nil):
                throw .fileChanged(
                    path: core.path, file: shown,
                    reason: "it has no build id, the process's file had one")
            case (nil, _):  // no build id, or its note lies past the page the core holds
                let count = min(header.count, file.bytes.count, 4096)
                guard header.prefix(count).elementsEqual(file.bytes.prefix(count)) else {
                    throw .fileChanged(
                        path: core.path, file: shown, reason: "its first page differs")
                }
                return
            }
        }
        if sysroot == nil, let inode = mappings.first?.inode, inode != 0 {
            guard inode == file.inode else {
                throw .fileChanged(
                    path: core.path, file: shown,
                    reason: "inode \(file.inode), the process mapped inode \(inode)")
            }
            return
        }
        limitations.append(
            "not checked against the process's file (no header page in the core): \(shown)")
    }

    /// The bytes the core holds of the mapping at file offset 0 (the ELF header's page).
    static func dumpedHeader(of mappings: [Mapping], in core: CoreFile) -> UnsafeRawBufferPointer? {
        guard let first = mappings.first(where: { $0.offset == 0 }),
            let load = core.load(containing: first.range.lowerBound),
            load.range.lowerBound == first.range.lowerBound, load.fileSize >= 64
        else { return nil }
        let start = Int(load.offset)
        return UnsafeRawBufferPointer(rebasing: core.file.bytes[start..<start + Int(load.fileSize)])
    }

    /// The GNU build id (`NT_GNU_BUILD_ID`) of the ELF image whose first bytes are `bytes`
    /// (a file, or its first page as mapped), found through its `PT_NOTE` program headers.
    static func buildID(inImageAt bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T? {
            offset >= 0 && offset + MemoryLayout<T>.size <= bytes.count
                ? bytes.loadUnaligned(fromByteOffset: offset, as: T.self) : nil
        }
        guard bytes.count >= 64, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[4] == 2,
            let headers = load(0x20, UInt64.self), let size = load(0x36, UInt16.self),
            let count = load(0x38, UInt16.self), size >= 56, headers < UInt64(bytes.count)
        else { return nil }
        for index in 0..<Int(count) {
            let header = Int(headers) + index * Int(size)
            guard let type = load(header, UInt32.self) else { return nil }
            guard type == 4, let offset = load(header + 8, UInt64.self),
                let length = load(header + 32, UInt64.self), offset < UInt64(bytes.count)
            else { continue }
            var at = Int(offset)
            let end = min(bytes.count, at + Int(clamping: length))
            while at + 12 <= end {
                guard let nameSize = load(at, UInt32.self),
                    let descriptionSize = load(at + 4, UInt32.self),
                    let noteType = load(at + 8, UInt32.self)
                else { break }
                let description = at + 12 + (Int(nameSize) + 3) & ~3
                let next = description + (Int(descriptionSize) + 3) & ~3
                guard next <= end else { break }
                if noteType == 3, nameSize == 4, bytes[at + 12] == 0x47, bytes[at + 13] == 0x4E,
                    bytes[at + 14] == 0x55
                {
                    return Array(bytes[description..<description + Int(descriptionSize)])
                }
                at = next
            }
        }
        return nil
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
