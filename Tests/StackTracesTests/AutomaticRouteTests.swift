import Foundation
import Testing

@testable import StackTraces

/// The automatic route: the symbolizer for every batch of an image with DWARF (the `Runtime`
/// module would read the image's debug information again for each batch), the `Runtime` module
/// for images without DWARF.
@Suite("Automatic route")
struct AutomaticRouteTests {
    static func automatic() throws -> Symbolicator {
        Symbolicator(
            settings: SymbolicationSettings(
                route: .automatic, symbolizerPath: try SymbolizerRouteTests.symbolizer()))
    }

    @Test func oneAddressOfTheTestBundleGoesToTheSymbolizer() throws {
        let symbolicator = try Self.automatic()
        let addresses = try LoadedCode.functionAddresses(
            count: 1, inImageAt: LoadedCode.executablePath(), phase: 0.15)
        let frames = symbolicator.frames(for: addresses)
        #expect(frames.allSatisfy { $0.contains { $0.function != nil } })
        #expect(symbolicator.routeCounts == .init(bySymbolizer: 1, byRuntime: 0))
    }

    @Test func fourAddressesOfTheTestBundleGoToTheSymbolizer() throws {
        let symbolicator = try Self.automatic()
        let addresses = try LoadedCode.functionAddresses(
            count: 4, inImageAt: LoadedCode.executablePath(), phase: 0.25)
        let frames = symbolicator.frames(for: addresses)
        #expect(frames.allSatisfy { $0.contains { $0.function != nil } })
        #expect(symbolicator.routeCounts == .init(bySymbolizer: 4, byRuntime: 0))
    }

    @Test func aLibraryWithoutDWARFStaysWithTheRuntimeModuleUnlessItIsMisplaced() throws {
        let path = try LoadedCode.imagePath(named: "libswiftCore.so")
        let addresses = try LoadedCode.functionAddresses(count: 20, inImageAt: path, phase: 0.35)
        let image = try #require(LoadedImage.containing(addresses[0] - 1))
        let placedRight = RuntimeSymbolication.placesRight(
            RuntimeSymbolication.captureImages(), addresses[0], image)
        let symbolicator = try Self.automatic()
        let frames = symbolicator.frames(for: addresses)
        #expect(frames.allSatisfy { $0.contains { $0.function != nil } })
        // Other tests' lookups may have mapped libswiftCore.so a second time below itself, and
        // then the Runtime module's image list misplaces it: those go to the symbolizer.
        let expected =
            placedRight
            ? Symbolicator.RouteCounts(bySymbolizer: 0, byRuntime: 20)
            : Symbolicator.RouteCounts(bySymbolizer: 20, byRuntime: 0)
        #expect(symbolicator.routeCounts == expected)
    }

    @Test func lineTablesAreFoundInTheSectionHeaders() throws {
        #expect(ImageDebugInfo.hasLineTable(atPath: try LoadedCode.executablePath()))
        #expect(!ImageDebugInfo.hasLineTable(atPath: try LoadedCode.imagePath(named: "libc.so")))
        #expect(!ImageDebugInfo.hasLineTable(atPath: "/etc/passwd"))
        #expect(!ImageDebugInfo.hasLineTable(atPath: "/nonexistent"))
        // A truncated ELF file: the header promises section headers that are not there.
        let folder = try SymbolizerFallbackTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let executable = try Data(contentsOf: URL(fileURLWithPath: LoadedCode.executablePath()))
        for length in [16, 64, 4_096] {
            let truncated = folder.appendingPathComponent("truncated-\(length)")
            try executable.prefix(length).write(to: truncated)
            #expect(!ImageDebugInfo.hasLineTable(atPath: truncated.path))
        }
    }
}
