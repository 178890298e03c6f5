import Testing

@testable import StackTraces

/// Reading what `llvm-symbolizer --output-style=JSON` prints, without Foundation.
@Suite("Symbolizer output")
struct SymbolizerOutputTests {
    @Test func jsonValuesOfEveryKindAreRead() throws {
        let text = #"{"a": [1, -2.5e2, true, false, null], "b": "x\"\\\/\n\t\u00e9\ud83d\ude00"}"#
        let values = try JSONReader.values(in: Array(text.utf8))
        #expect(
            values == [
                .object([
                    "a": .array([.number(1), .number(-250), .bool(true), .bool(false), .null]),
                    "b": .string("x\"\\/\n\té😀"),
                ])
            ])
        let lines = try JSONReader.values(in: Array("{}\n[]\n  \"s\"\n".utf8))
        #expect(lines == [.object([:]), .array([]), .string("s")])
    }

    @Test func malformedJSONThrowsAndNeverTraps() {
        let samples = [
            "{", "[1,]", "{\"a\" 1}", "\"open", "nul", "{\"a\":1,}", "\"tab\tinside\"",
            "\"\\x\"", "\"\\u12\"", "--obj=/bin/ls", "1e999",
            String(repeating: "[", count: 10_000),
        ]
        for sample in samples {
            #expect(throws: JSONReader.Malformed.self, "\(sample.prefix(20))") {
                try JSONReader.values(in: Array(sample.utf8))
            }
        }
    }

    @Test func anArrayOfAnswersGivesOneEntryPerAddress() throws {
        let output = """
            [{"Address":"0x1a61e2","ModuleName":"/x","Symbol":[{"Column":1,"Discriminator":0,\
            "FileName":"/src/a.c","FunctionName":"inner","Line":144,"StartAddress":"",\
            "StartFileName":"","StartLine":0},{"Column":0,"FileName":"/src/a.c",\
            "FunctionName":"outer","Line":12,"StartAddress":"0x1a6000"}]},\
            {"Address":"0x20","ModuleName":"/x","Symbol":[{"FileName":"","FunctionName":"",\
            "Line":0,"StartAddress":""}]}]
            """
        let entries = try SymbolizerOutput.entries(in: Array(output.utf8))
        #expect(entries.count == 2)
        #expect(entries[0].address == 0x1a_61e2)
        #expect(
            entries[0].frames == [
                .init(function: "inner", file: "/src/a.c", line: 144, column: 1, start: nil),
                .init(function: "outer", file: "/src/a.c", line: 12, column: 0, start: 0x1a_6000),
            ])
        #expect(entries[1].frames == [.init(function: "", file: "", line: 0, column: 0)])
    }

    @Test func anUnreadableImageIsAnErrorEntry() throws {
        let output = #"{"Address":"0x0","Error":{"Message":"No such file"},"ModuleName":"/gone"}"#
        let entries = try SymbolizerOutput.entries(in: Array(output.utf8))
        #expect(entries == [.init(address: 0, error: "No such file", frames: [])])
    }

    @Test func outputThatIsNotTheSymbolizersIsRefused() {
        for output in [#"{"Address":"12"}"#, #"{"Address":"0x1","Symbol":3}"#, "[1]", "-x"] {
            #expect(throws: SymbolizerOutput.Unreadable.self, "\(output)") {
                try SymbolizerOutput.entries(in: Array(output.utf8))
            }
        }
    }

    @Test func macroPlaceholdersGiveTheirLineToTheFunctionThatHoldsThem() throws {
        // Recorded from the test bundle (names shortened): a nested macro expansion inside a
        // test function, described as an inlined `__unknown_macro__` call with no call line.
        let output = """
            {"Address":"0x9b8ad5","Symbol":[{"Column":1,"FileName":"/tmp/gen/expansion.swift",\
            "FunctionName":"$s5Tests9expansionfMf_","Line":1,"StartAddress":"0x9b8ad5"},\
            {"Column":190,"FileName":"/src/Tests/Scenario.swift","FunctionName":\
            "__unknown_macro__","Line":4,"StartAddress":"0x9b8ad5"},{"Column":0,"FileName":\
            "/src/Tests/Scenario.swift","FunctionName":"$s5Tests8ScenarioV3runyyF","Line":0,\
            "StartAddress":"0x9b8ab0"}]}
            """
        let entries = try SymbolizerOutput.entries(in: Array(output.utf8))
        let frames = ExternalSymbolication.withoutMacroPlaceholders(entries[0].frames)
        #expect(frames.map(\.function) == ["$s5Tests9expansionfMf_", "$s5Tests8ScenarioV3runyyF"])
        #expect(frames[1].file == "/src/Tests/Scenario.swift")
        #expect(frames[1].line == 4)
        #expect(frames[1].column == 190)
        #expect(frames[1].start == 0x9b_8ab0)
    }
}
