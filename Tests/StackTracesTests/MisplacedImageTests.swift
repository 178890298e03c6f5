import Foundation
import Testing

@testable import StackTraces

/// A library whose file is mapped a second time below it (as the `Runtime` module and the census
/// do to read ELF files) still gets its own names, image and offsets.
@Suite("Misplaced images")
struct MisplacedImageTests {
    /// The highest free gap of at least `size` bytes below `limit`, from `/proc/self/maps`.
    static func freeGap(of size: UInt, below limit: UInt) throws -> UInt? {
        let ranges = try LoadedCode.contents(ofFile: "/proc/self/maps").split(separator: "\n")
            .compactMap { line -> (UInt, UInt)? in
                let range = line.prefix { $0 != " " }.split(separator: "-")
                guard range.count == 2, let start = UInt(range[0], radix: 16),
                    let end = UInt(range[1], radix: 16)
                else { return nil }
                return (start, end)
            }
            .filter { $0.1 <= limit }.sorted { $0.0 < $1.0 }
        var top = limit
        for (start, end) in ranges.reversed() {
            if top - end >= size + (1 << 20) { return top - size - (1 << 16) }
            top = min(top, start)
        }
        return nil
    }

    @Test func aLibraryMappedAgainBelowItselfIsNamedFromTheLoadersPlace() throws {
        let symbolizer = try SymbolizerRouteTests.symbolizer()
        let path = try LoadedCode.imagePath(named: "libFoundationEssentials.so")
        let functions = try LoadedCode.functions(
            count: 3, inImageAt: path, symbolizer: symbolizer, phase: 0.4)
        let image = try #require(LoadedImage.containing(functions[0].address - 1))

        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var information = stat()
        try #require(fstat(descriptor, &information) == 0)
        let size = (UInt(information.st_size) + 0xFFFF) & ~UInt(0xFFFF)
        let hint = try #require(try Self.freeGap(of: size, below: image.base))
        let copy = mmap(
            UnsafeMutableRawPointer(bitPattern: hint), Int(size), PROT_READ, MAP_PRIVATE,
            descriptor, 0)
        try #require(copy != MAP_FAILED)
        defer { munmap(copy, Int(size)) }
        try #require(UInt(bitPattern: copy) < image.base, "the copy did not land below")

        // Three addresses of a library without DWARF, which the automatic route keeps with the
        // Runtime module, yet they go to the symbolizer: its image list now starts the library
        // at the copy.
        let symbolicator = Symbolicator(
            settings: SymbolicationSettings(route: .automatic, symbolizerPath: symbolizer))
        let frames = symbolicator.frames(for: functions.map(\.address))
        #expect(symbolicator.routeCounts.bySymbolizer == 3)
        for (function, frames) in zip(functions, frames) {
            let real = try #require(frames.last)
            #expect(function.names.contains(real.mangledName ?? "-"), "\(real)")
            #expect(real.imagePath == image.path)
            #expect(real.imageName == "libFoundationEssentials.so")
            #expect(real.offsetInImage == function.address - image.base)
        }
    }
}
