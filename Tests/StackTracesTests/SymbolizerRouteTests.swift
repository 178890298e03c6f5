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

    /// Equal frames, but for four documented differences: where the debug information names a
    /// file relative to the compilation folder (C files), the symbolizer's path is absolute and
    /// the `Runtime` module's is not; where an image has only a dynamic symbol table (the C
    /// library), the `Runtime` module names no function and the symbolizer names the exported
    /// one; where C code was inlined, the `Runtime` module gives no inlined frames, only the
    /// outer function at the innermost call's line (a CI run met one in the census's frame
    /// walk: `rg_walk_hashing` inlined into `rg_walk_stack`); where optimized Swift was inlined
    /// at a call the compiler gave no line, the `Runtime` module folds the inlined frame into
    /// its caller (``foldingCallsWithoutLine(_:)``).
    static func sameFrames(_ fast: [StackFrame], _ slow: [StackFrame]) -> Bool {
        let fast = foldingCallsWithoutLine(fast)
        if slow.count == 1, fast.count > 1, let inner = fast.first, let outer = fast.last,
            let file = inner.file, file.hasSuffix(".c") || file.hasSuffix(".h"),
            let slowFile = slow[0].file, file.hasSuffix(slowFile)
        {
            return slow[0].function == outer.function && slow[0].line == inner.line
                && slow[0].offsetInImage == outer.offsetInImage
        }
        if slow.count == 1, slow[0].function == nil, fast.count == 1, fast[0].function != nil {
            let named = fast[0]
            return named.imageName == slow[0].imageName && named.imagePath == slow[0].imagePath
                && named.offsetInImage == slow[0].offsetInImage
                && named.isSystem == slow[0].isSystem
                && named.mangledName?.contains("@") == false
        }
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

    /// `frames` (innermost first) as the `Runtime` module gives them where an inlined call has
    /// no line: the heap-reading modules are optimized in debug builds too, and there a witness
    /// or a specialization inlines what it wraps at a call the compiler left without a location.
    /// The symbolizer gives the inlined function and then its caller with no line; the `Runtime`
    /// module gives the caller only, at the inlined function's location (seen in CI on
    /// `SampledHeap.Kind.init(rawValue:)` inlined into its `RawRepresentable` witness, four
    /// frames of `Hashable` inlined into `StopPoints.Action`'s `hashValue` witness, and a
    /// function signature specialization inlined into the generic function it specializes).
    static func foldingCallsWithoutLine(_ frames: [StackFrame]) -> [StackFrame] {
        var folded: [StackFrame] = []
        var location: StackFrame?
        for (position, frame) in frames.enumerated() {
            var frame = frame
            if let inner = location {
                frame.file = inner.file
                frame.line = inner.line
                frame.column = inner.column
                location = nil
            }
            let next = position + 1 < frames.count ? frames[position + 1] : nil
            if frame.isInlined, let next, next.line == nil {
                location = frame
                continue
            }
            folded.append(frame)
        }
        return folded
    }

    @Test func symbolizerFramesEqualRuntimeFramesInTheTestBundle() throws {
        // Functions spread over the whole bundle, and every 16th byte of this function, whose
        // `#expect`s expand to macro code that the compiler describes as inlined calls (some of
        // them the placeholder `__unknown_macro__`).
        let executable = try LoadedCode.executablePath()
        let spread = try LoadedCode.functionAddresses(
            count: 150, inImageAt: executable, symbolizer: Self.symbolizer())
        let here = try #require(StackTrace.capture().symbolicated().first { !$0.isInlined })
        let dense = try LoadedCode.functionBytes(
            named: try #require(here.mangledName), inImageAt: executable,
            symbolizer: Self.symbolizer(), stride: 16)
        #expect(dense.count > 50)
        let (frames, differences, counts) = try Self.compareRoutes(spread + dense)
        #expect(differences.isEmpty, "\(differences.count) differ:\n\(differences.prefix(8))")
        // The symbolizer really answered (the Runtime module took only what it could not name).
        #expect(counts.bySymbolizer >= spread.count + dense.count - 10, "\(counts)")
        let all = frames.joined()
        #expect(all.filter { $0.function != nil }.count >= spread.count + dense.count)
        #expect(all.contains { $0.isInlined && $0.function != nil })
        #expect(all.contains { $0.file?.contains("swift-generated-sources") == true })
        #expect(!all.contains { $0.function == "__unknown_macro__" })
        #expect(all.contains { $0.file?.hasSuffix(".swift") == true && ($0.line ?? 0) > 0 })
        #expect(all.contains { $0.isThunk })
    }

    @Test func symbolizerNamesTheFunctionsOfSystemLibraries() throws {
        var functions: [LoadedCode.Function] = []
        for name in ["libswiftCore.so", "libFoundationEssentials.so", "libc.so"] {
            let path = try LoadedCode.imagePath(named: name)
            functions += try LoadedCode.functions(
                count: 40, inImageAt: path, symbolizer: Self.symbolizer())
        }
        let fast = Symbolicator(
            settings: SymbolicationSettings(
                route: .symbolizer, symbolizerPath: try Self.symbolizer()))
        let slow = Symbolicator(settings: SymbolicationSettings(route: .runtime))
        let addresses = functions.map(\.address)
        let fastFrames = fast.frames(for: addresses)
        let slowFrames = slow.frames(for: addresses)
        #expect(fast.routeCounts.bySymbolizer == functions.count)

        for (function, (fastOne, slowOne)) in zip(functions, zip(fastFrames, slowFrames)) {
            // Each address is named after the symbol it lies in (one of its aliases).
            let real = try #require(fastOne.last)
            let name = try #require(real.mangledName)
            #expect(function.names.contains(name), "\(name) is none of \(function.names)")
            #expect(fastOne.allSatisfy { $0.isSystem })
            // The `Runtime` module names nothing in a library it misplaces (one it mapped a
            // second time to read it), reads neither line tables nor inlined calls from the C
            // library's separate debug file, and only names what is in `.symtab`: compare the
            // function it names where it places the image right.
            guard let slowReal = slowOne.last, slowReal.function != nil,
                let image = LoadedImage.containing(function.address - 1),
                slowReal.offsetInImage == function.address - image.base
            else { continue }

            // Both name the function that starts at the same place: aliases may differ (the C
            // library has several names for many functions, and its debug file more).
            #expect(slowReal.offsetInFunction == real.offsetInFunction)
            #expect(slowReal.imagePath == real.imagePath)
            if real.file == nil { #expect(Self.sameFrames(fastOne, slowOne)) }
        }
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
