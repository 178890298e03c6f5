import Foundation
import Testing

@testable import StackTraces

/// The `llvm-symbolizer` route gives the frames the `Runtime` module gives, on real addresses.
@Suite("Symbolizer route")
struct SymbolizerRouteTests {
    /// The symbolizer the default settings find: the toolchain's, else one on `PATH`.
    static func symbolizer() throws -> String {
        let found = SymbolicationSettings.findSymbolizer(
            toolchainLibrary: try? LoadedCode.imagePath(named: "libswiftCore.so"),
            searchPath: ProcessInfo.processInfo.environment["PATH"])
        return try #require(found, "no llvm-symbolizer: the Swift toolchain ships one in usr/bin")
    }

    /// Symbolicates `addresses` by both routes and describes every address whose frames differ.
    static func compareRoutes(_ addresses: [UInt]) throws -> (
        symbolizer: [[StackFrame]], differences: [String], counts: Symbolicator.RouteCounts
    ) {
        let fast = Symbolicator(
            settings: SymbolicationSettings(route: .symbolizer, symbolizerPath: try symbolizer()))
        let slow = Symbolicator(settings: SymbolicationSettings(route: .runtime))
        let fastFrames = fast.frames(for: addresses)
        let slowFrames = slow.frames(for: addresses)
        #expect(!fast.symbolizerHasFailed)
        #expect(slow.routeCounts.bySymbolizer == 0)
        var differences: [String] = []
        for (address, (fastOne, slowOne)) in zip(addresses, zip(fastFrames, slowFrames))
        where !sameFrames(fastOne, slowOne) {
            let hex = "0x" + String(address, radix: 16)
            differences.append("\(hex): symbolizer \(fastOne) runtime \(slowOne)")
        }
        return (fastFrames, differences, fast.routeCounts)
    }

    /// Equal frames, but for one documented difference: where the debug information names a
    /// file relative to the compilation folder (C files), the symbolizer's path is absolute and
    /// the `Runtime` module's is not.
    static func sameFrames(_ fast: [StackFrame], _ slow: [StackFrame]) -> Bool {
        guard fast.count == slow.count else { return false }
        return zip(fast, slow).allSatisfy { fast, slow in
            var fast = fast
            if let file = fast.file, let relative = slow.file, !relative.hasPrefix("/"),
                file.hasPrefix("/"), file.hasSuffix("/" + relative)
            {
                fast.file = relative
            }
            return fast == slow
        }
    }

    @Test func symbolizerFramesEqualRuntimeFramesInTheTestBundle() throws {
        let addresses = try LoadedCode.functionAddresses(
            count: 200, inImageAt: LoadedCode.executablePath(), symbolizer: Self.symbolizer())
        let (frames, differences, counts) = try Self.compareRoutes(addresses)
        #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(8))")
        // The symbolizer really answered (the Runtime module took only what it could not name).
        #expect(counts.bySymbolizer >= 190, "\(counts)")
        let all = frames.joined()
        #expect(all.filter { $0.function != nil }.count >= 190)
        #expect(all.contains { $0.isInlined && $0.function != nil })
        #expect(all.contains { $0.file?.hasSuffix(".swift") == true && ($0.line ?? 0) > 0 })
        #expect(all.contains { $0.isThunk })
    }

    @Test func symbolizerFramesEqualRuntimeFramesInSystemLibraries() throws {
        var addresses: [UInt] = []
        for name in ["libswiftCore.so", "libFoundationEssentials.so", "libc.so"] {
            let path = try LoadedCode.imagePath(named: name)
            addresses += try LoadedCode.functionAddresses(
                count: 40, inImageAt: path, symbolizer: Self.symbolizer())
        }
        let (frames, differences, _) = try Self.compareRoutes(addresses)
        #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(8))")
        #expect(frames.joined().contains { $0.isSystem && $0.function != nil })
    }

    @Test func framesInsideMacroExpansionsAreTheSameInBothRoutes() throws {
        // This function's own code: its `#expect`s expand to macro code, some of it described
        // by the compiler as inlined `__unknown_macro__` scopes.
        let here = try #require(StackTrace.capture().symbolicated().first { !$0.isInlined })
        let mangled = try #require(here.mangledName)
        let addresses = try LoadedCode.functionBytes(
            named: mangled, inImageAt: LoadedCode.executablePath(), symbolizer: Self.symbolizer(),
            stride: 16)
        #expect(addresses.count > 50)
        let (frames, differences, _) = try Self.compareRoutes(addresses)
        #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(8))")
        #expect(frames.joined().contains { $0.file?.contains("swift-generated-sources") == true })
        #expect(!frames.joined().contains { $0.function == "__unknown_macro__" })
    }

    @Test func aCapturedTraceInABigBatchKeepsItsFunctionAndLine() throws {
        let line = #line + 1
        let trace = StackTrace.capture()
        let code = try LoadedCode.functionAddresses(
            count: 64, inImageAt: LoadedCode.executablePath(), symbolizer: Self.symbolizer(),
            phase: 0.3)
        let fast = Symbolicator(
            settings: SymbolicationSettings(
                route: .automatic, symbolizerPath: try Self.symbolizer())
        )
        let frames = fast.frames(for: trace.addresses + code)
        #expect(fast.routeCounts.bySymbolizer > 0)
        let first = try #require(frames.first?.last)
        #expect(
            first.function?.contains("aCapturedTraceInABigBatchKeepsItsFunctionAndLine") == true)
        #expect(first.mangledName?.hasPrefix("$s") == true)
        #expect((first.offsetInFunction ?? 0) > 0)
        #expect(first.offsetInImage != nil)
        #if DEBUG
        #expect(first.file?.hasSuffix("SymbolizerRouteTests.swift") == true)
        #expect(first.line == line)
        #endif
    }
}
