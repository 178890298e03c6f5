import Foundation
import HeapGrowth
import Testing

final class GrowthEntry: @unchecked Sendable {}

/// Kept by every repetition: the growth the rendered report shows.
nonisolated(unsafe) var growthEntries: [GrowthEntry] = []

@Suite("retain-graph renders heap growth reports")
struct GrowthRenderTests {
    @Test("A real growth report renders as text and as DOT")
    func rendersARealGrowthReport() throws {
        defer { growthEntries.removeAll() }
        let report = try HeapGrowth.measure(repeating: 10) { growthEntries.append(GrowthEntry()) }
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-growth-\(UUID().uuidString).json")
        try report.jsonData().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let text = try GitHubAnnotationTests.run(["render", file.path])
        #expect(text.status == 0)
        #expect(text.output.contains("HEAP GROWTH: "))
        #expect(text.output.contains("EndToEndTests.GrowthEntry: +10, +10 (1.0 per repetition)"))
        #expect(text.output.contains("held by: global variable EndToEndTests.growthEntries"))

        let dot = try GitHubAnnotationTests.run(["render", file.path, "--format", "dot"])
        #expect(dot.status == 0)
        #expect(dot.output.hasPrefix("digraph heapGrowth {"))
        #expect(dot.output.contains("EndToEndTests.GrowthEntry +20"))
    }
}
