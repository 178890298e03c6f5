import Locking

/// An ELF image mapped in the target (its executable, a shared library), located from its file.
///
/// The file gives what memory does not keep: section headers (where the Swift type list and
/// reflection sections are), the relocated-then-protected range (`PT_GNU_RELRO`, which differs
/// from the file and must be copied) and the symbol tables that name global variables.
package final class LoadedImage: @unchecked Sendable {
    /// The path in the target's file system.
    package let path: String
    package let file: ELFFile
    /// Target address minus file address.
    package let bias: UInt
    /// The addresses of the image's mappings.
    package let range: Range<UInt>
    /// Where its writable segments lie in the target (`.data`, `.bss`: global variables).
    package let writableRanges: [Range<UInt>]
    /// Where its relocated read-only data lies in the target, if it has any.
    package let relocatedReadOnly: Range<UInt>?
    /// Built on first use (reading a symbol table costs milliseconds), under `lock`.
    private var symbolIndex: SymbolIndex?
    private let lock = PthreadLock()

    /// Locates the image whose file is `file`, mapped by `mappings` (all with its path).
    package init?(path: String, file: ELFFile, mappings: [Mapping]) {
        guard let first = mappings.first(where: { $0.offset == 0 }),
            let firstLoad = file.segments.first(where: {
                $0.type == ELFFile.loadSegment && $0.offset == 0
            })
        else { return nil }
        self.path = path
        self.file = file
        bias = first.range.lowerBound &- (firstLoad.virtualAddress & ~0xFFF)
        let low = mappings.map(\.range.lowerBound).min() ?? first.range.lowerBound
        let high = mappings.map(\.range.upperBound).max() ?? first.range.upperBound
        range = low..<high
        let bias = self.bias
        writableRanges = file.segments.filter { $0.type == ELFFile.loadSegment && $0.isWritable }
            .map { (bias &+ $0.virtualAddress)..<(bias &+ $0.virtualAddress &+ $0.memorySize) }
        relocatedReadOnly = file.segments.first { $0.type == ELFFile.relroSegment }.map {
            (bias &+ $0.virtualAddress)..<(bias &+ $0.virtualAddress &+ $0.memorySize)
        }
    }

    /// Whether `address` lies in the image's mappings or its writable segments (a `.bss`
    /// continues past the file's last page, in anonymous memory).
    package func contains(_ address: UInt) -> Bool {
        range.contains(address) || writableRanges.contains { $0.contains(address) }
    }

    /// The target addresses of section `name`, if the image has it.
    package func section(named name: String) -> Range<UInt>? {
        file.section(named: name).map { (bias &+ $0.address)..<(bias &+ $0.address &+ $0.size) }
    }

    /// The bytes of section `name` as in the file, and its target address.
    package func sectionContents(named name: String) -> (
        bytes: UnsafeRawBufferPointer, address: UInt
    )? {
        guard let section = file.section(named: name), let bytes = file.contents(of: section)
        else { return nil }
        return (bytes, bias &+ section.address)
    }

    /// Whether the image carries Swift reflection metadata.
    package var hasSwiftMetadata: Bool { file.section(named: "swift5_fieldmd") != nil }

    /// The global variable whose storage holds target address `address`, by its symbol.
    package func symbol(containing address: UInt) -> ELFSymbol? {
        let index = lock.withLock {
            if symbolIndex == nil { symbolIndex = SymbolIndex(file) }
            return symbolIndex
        }
        return index?.symbol(containing: address &- bias)
    }

    /// The target address of the exported symbol called `name`, if the image defines it.
    package func address(ofSymbol name: String) -> UInt? {
        file.exportedSymbol(named: name).map { bias &+ $0 }
    }

    /// The target address of the symbol called `name`, exported or local (`.symtab`, absent
    /// from stripped files). Reads the whole symbol table: for rare lookups.
    package func address(ofAnySymbol name: String) -> UInt? {
        address(ofSymbol: name) ?? file.symbol(named: name).map { bias &+ $0 }
    }
}

/// The images mapped in the target, by address.
package struct ImageTable: Sendable {
    package let images: [LoadedImage]

    /// The images `images`, opened by the caller (a core file's, from its notes).
    package init(images: [LoadedImage]) { self.images = images }

    /// Opens the file of every mapped image (through `/proc/PID/root`, so a target in another
    /// mount namespace is read right).
    package init(mappings: [Mapping], processID: Int32) {
        var byPath: [String: [Mapping]] = [:]
        var order: [String] = []
        for mapping in mappings where mapping.isFile {
            if byPath[mapping.path] == nil { order.append(mapping.path) }
            byPath[mapping.path, default: []].append(mapping)
        }
        images = order.compactMap { path in
            guard let file = ELFFile(path: "/proc/\(processID)/root" + path),
                let mappings = byPath[path].map(Self.loadedMappings)
            else { return nil }
            return LoadedImage(path: path, file: file, mappings: mappings)
        }
    }

    /// The mappings the dynamic loader made of one file, without other mappings of it.
    ///
    /// A program may map a library's file again itself: Swift's `Runtime` symbolication (a
    /// heap profile's, a backtrace's) maps `libswiftCore.so` and `libc.so.6` whole, read-only,
    /// to read their symbols and DWARF. Taking that view's first page for the image's moved
    /// every address computed from the file (issue 31: after one heap profile the attach lost
    /// every `String`, `[UInt8]` and `Dictionary` storage, whose metadata lies in
    /// libswiftCore, and found no glibc arena, whose `main_arena` it looks for in libc's data).
    /// Each mapping at file offset 0 starts a run; the loader's run is the one with executable
    /// or writable mappings (a view has neither), the first such when several are alike.
    package static func loadedMappings(_ mappings: [Mapping]) -> [Mapping] {
        var runs: [[Mapping]] = []
        for mapping in mappings {
            if mapping.offset == 0 || runs.isEmpty {
                runs.append([mapping])
            } else {
                runs[runs.count - 1].append(mapping)
            }
        }
        func score(_ run: [Mapping]) -> Int {
            run.filter { $0.isExecutable || $0.isWritable }.count
        }
        return runs.max { score($0) < score($1) } ?? mappings
    }

    /// The image whose mappings contain `address`, or whose writable segments do (a `.bss`
    /// continues past the file's last page, in anonymous memory).
    package func image(containing address: UInt) -> LoadedImage? {
        images.first { $0.range.contains(address) }
            ?? images.first { $0.writableRanges.contains { $0.contains(address) } }
    }

    /// The image whose file is called `name` (`libc.so.6`), if mapped.
    package func image(named name: String) -> LoadedImage? {
        images.first { $0.path.hasSuffix("/" + name) }
    }
}
