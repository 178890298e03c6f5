import StackTraces
import Testing

@Suite("Symbolication")
struct SymbolicationTests {
    @Test func capturedTraceNamesTheCallingFunctionDemangled() throws {
        let trace = StackTrace.capture()
        let first = try #require(trace.symbolicated().first)
        let function = try #require(first.function)
        #expect(
            function.contains("SymbolicationTests.capturedTraceNamesTheCallingFunctionDemangled()"))
        #expect(!function.hasPrefix("$s"))
        #expect(first.mangledName?.hasPrefix("$s") == true)
        #expect(first.module == "StackTracesTests")
        #expect(first.imageName != nil)
        #expect(first.offsetInImage != nil)
        #expect((first.offsetInFunction ?? 0) > 0)
    }

    #if DEBUG
    @Test func debugBuildTraceCarriesFileAndLine() throws {
        let line = #line + 1
        let trace = StackTrace.capture()
        let first = try #require(trace.symbolicated().first)
        #expect(first.file?.hasSuffix("SymbolicationTests.swift") == true)
        #expect(first.line == line)
        #expect(first.description.contains("SymbolicationTests.swift:\(line)"))
    }
    #endif

    @Test func aBigBatchOfAddressesComesBackNamedWithFilesAndLines() throws {
        let line = #line + 1
        let trace = StackTrace.capture()
        // Real addresses of a hundred functions of this test bundle, symbolicated in one batch
        // with the trace's: big enough for llvm-symbolizer where it is installed.
        let functions = try LoadedCode.functionAddresses(
            count: 100, inImageAt: LoadedCode.executablePath(), phase: 0.7)
        let frames = StackTrace(addresses: trace.addresses + functions).symbolicated()
        #expect(frames.count >= trace.addresses.count + functions.count)
        #expect(frames.filter { $0.function != nil }.count >= 100)
        let first = try #require(frames.first)
        #expect(
            first.function?.contains("aBigBatchOfAddressesComesBackNamedWithFilesAndLines") == true)
        #if DEBUG
        #expect(first.file?.hasSuffix("SymbolicationTests.swift") == true)
        #expect(first.line == line)
        #expect(frames.contains { $0.file?.hasSuffix(".swift") == true && !$0.isSystem })
        #endif
        // The same frames once more, now from the cache.
        #expect(StackTrace(addresses: trace.addresses + functions).symbolicated() == frames)
    }

    @Test func frameLineShowsIndexFunctionOffsetLocationAndImage() {
        let frame = StackFrame(
            address: 0x1234,
            function: "MyApp.Owner.start()",
            mangledName: "$s5MyApp5OwnerC5startyyF",
            imageName: "MyApp",
            offsetInFunction: 52,
            file: "/src/MyApp/Owner.swift",
            line: 12
        )
        #expect(
            frame.formatted(index: 2)
                == "  #2  MyApp.Owner.start() + 52 at /src/MyApp/Owner.swift:12 (MyApp)")
        #expect(StackFrame(address: 0xabc).description == "0xabc")
    }

    @Test func moduleComesFromTheMangledName() {
        #expect(StackFrame(address: 1, mangledName: "$s5MyApp5OwnerC5startyyF").module == "MyApp")
        #expect(StackFrame(address: 1, mangledName: "$sSa6appendyyxnF").module == "Swift")
        #expect(
            StackFrame(address: 1, mangledName: "$sScTss5NeverORs_rlE4yieldyyYaFZ").module
                == "_Concurrency")
        #expect(StackFrame(address: 1, mangledName: "swift_job_run").module == nil)
        #expect(StackFrame(address: 1, mangledName: "$s").module == nil)
        #expect(StackFrame(address: 1, mangledName: "$s99Short").module == nil)
    }

    @Test func moduleMatchingIsExactAndFallsBackToTheImageForCFrames() {
        let swiftFrame = StackFrame(
            address: 1, mangledName: "$s15RetainGraphDemo5OwnerC5startyyF", imageName: "RetainGraph"
        )
        #expect(!swiftFrame.belongs(toAnyOf: ["RetainGraph"]))
        #expect(swiftFrame.belongs(toAnyOf: ["RetainGraphDemo"]))
        let cFrame = StackFrame(address: 1, mangledName: "foo_start", imageName: "libFoo.so.1")
        #expect(cFrame.belongs(toAnyOf: ["Foo"]))
        #expect(!cFrame.belongs(toAnyOf: ["Fo", "libFoo"]))
        #expect(!StackFrame(address: 1).belongs(toAnyOf: ["Foo"]))
    }

    @Test func excludingTheTestModuleLeavesNoTestFrames() {
        let trace = StackTrace.capture()
        let all = trace.frames(includingSystemFrames: true)
        #expect(all.contains { $0.module == "StackTracesTests" })
        let filtered = trace.frames(excludingModules: ["StackTracesTests"])
        #expect(!filtered.contains { $0.module == "StackTracesTests" })
        #expect(!filtered.contains { $0.isThunk || $0.isSystem })
    }

    @Test func repeatedSymbolicationGivesEqualFrames() {
        let trace = StackTrace.capture()
        #expect(trace.symbolicated() == trace.symbolicated())
    }

    @Test func unmappedAndNullAddressesSymbolicateWithoutNames() {
        let frames = StackTrace(addresses: [0, 1, UInt.max, 0x10]).symbolicated()
        #expect(frames.count == 4)
        #expect(frames.allSatisfy { $0.function == nil })
        #expect(StackTrace.empty.symbolicated().isEmpty)
    }

    @Test func formattedTraceNumbersItsLines() throws {
        let text = StackTrace.capture().formatted()
        let firstLine = try #require(text.split(separator: "\n").first)
        #expect(firstLine.hasPrefix("  #0  "))
        #expect(firstLine.contains("formattedTraceNumbersItsLines"))
    }
}
