import Foundation
import HeapExport
import ObjectGraph
import Testing

/// Facts written beside a graph (an attached process's id and threads, say) read back as they
/// were; files without them read as before.
@Suite("Graph files: attributes beside the graph")
struct GraphFileAttributeTests {
    private func smallGraph() -> CompactGraph {
        var builder = CompactGraph.Builder()
        let owner = builder.addNode(kind: .object, typeName: "App.Owner", address: 0x1000, size: 48)
        let holder = builder.addNode(kind: .root, typeName: "thread stacks", label: "thread 7")
        builder.addRoot(holder, kind: .heapHolder(.threadStack(threadID: 7, name: "worker")))
        builder.addEdge(
            from: holder, to: owner, ownership: .conservative, role: .heldBy(.threadStack),
            origin: .heap)
        return builder.build(numberingForLocality: false)
    }

    @Test("Attributes round-trip, whatever characters their names and values hold")
    func roundTrip() throws {
        let path = GraphFileTests.temporaryFile("attributes.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let attributes = [
            "attach.processID": "4242",
            "attach.threads": "4242\tmain \"one\"\n4243\tworker\\two",
            "émoji ✓": "",
        ]
        try GraphFile.write(smallGraph(), attributes: attributes, toFile: path)
        let (graph, read) = try GraphFile.contents(ofFile: path)
        #expect(read == attributes)
        #expect(graph.nodeCount == 2)
        #expect(graph.rootKind(of: 1) == .heapHolder(.threadStack(threadID: 7, name: "worker")))
        #expect(graph.role(ofEdge: 0) == .heldBy(.threadStack))
        #expect(graph.ownership(ofEdge: 0) == .conservative)
        // Reading the graph alone still works.
        #expect(try GraphFile.read(fromFile: path).nodeCount == 2)
    }

    @Test("A file written without attributes reads with none")
    func noAttributes() throws {
        let path = GraphFileTests.temporaryFile("plain.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try GraphFile.write(smallGraph(), toFile: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("\"attributes\""))
        #expect(try GraphFile.contents(ofFile: path).attributes.isEmpty)
    }
}
