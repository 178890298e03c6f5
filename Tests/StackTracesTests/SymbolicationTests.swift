import StackTraces
import Testing

@Suite("Symbolication")
struct SymbolicationTests {
    @Test func capturedTraceNamesTheCallingFunctionDemangled() throws {
        let trace = StackTrace.capture()
        let frames = trace.symbolicated()
        for (index, frame) in frames.enumerated() { print(frame.formatted(index: index), frame.module ?? "-", frame.isSystem, frame.isThunk) }
        let first = try #require(frames.first)
        let function = try #require(first.function)
        #expect(function.contains("capturedTraceNamesTheCallingFunctionDemangled"))
        #expect(!function.hasPrefix("$s"))
        #expect(first.module == "StackTracesTests")
    }
}
