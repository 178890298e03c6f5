import Foundation
import HeapCensus
import HeapExport
import Testing

/// A session cache, as a server keeps one: what the saved heap's largest retainer should be.
final class SavedSession: @unchecked Sendable {
    var buffer = [UInt8](repeating: 7, count: 4_096)
}

nonisolated(unsafe) var savedSessions: [SavedSession] = []

/// A census snapshot saved with `GraphFile`, read back, and looked at with the built
/// `retain-graph heap` commands, the way the README says.
@Suite("Graph files: a heap saved in one process, looked at from the command line", .serialized)
struct GraphFileTests {
    static func temporaryFile(_ name: String) -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-graph-\(UUID().uuidString)-\(name)").path
    }

    @Test("A census snapshot reads back the same: nodes, references, roots and retained sizes")
    func roundTrip() throws {
        savedSessions = (0..<20).map { _ in SavedSession() }
        defer { savedSessions = [] }
        let graph = HeapCensus.snapshot().graph
        let path = Self.temporaryFile("heap.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = try GraphFile.write(graph, toFile: path)
        #expect(size > graph.nodeCount)
        let read = try GraphFile.read(fromFile: path)
        #expect(read.nodeCount == graph.nodeCount)
        #expect(read.edgeCount == graph.edgeCount)
        #expect(read.roots.map(\.node) == graph.roots.map(\.node))
        #expect(read.roots.map(\.kind) == graph.roots.map(\.kind))
        for node in stride(from: 0, to: UInt32(graph.nodeCount), by: 97) {
            #expect(read.typeName(of: node) == graph.typeName(of: node))
            #expect(read.size(of: node) == graph.size(of: node))
            #expect(read.address(of: node) == graph.address(of: node))
            #expect(read.outgoing(from: node).map(\.to) == graph.outgoing(from: node).map(\.to))
        }
        let before = graph.dominatorTree()
        let after = read.dominatorTree()
        #expect(after.reachableBytes == before.reachableBytes)
        #expect(after.reachableCount == before.reachableCount)
    }

    @Test("A file that is not a graph file is a clear error, not a crash")
    func badFiles() throws {
        let path = Self.temporaryFile("bad.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"format": "retaingraph.graph", "version": 1, "nodes": {}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        #expect(throws: GraphFileError.self) { try GraphFile.read(fromFile: path) }
        let wrongEdge = #"""
            {"format":"retaingraph.graph","version":1,
             "nodes":{"kind":[0],"type":[0],"label":[0],"address":[0],"size":[8]},
             "edges":{"from":[0],"to":[5],"ownership":[0],"origin":[0],"lowPriority":[0],"role":[0]},
             "roots":[],"roles":[["target",null,null]],"strings":[""]}
            """#
        try Data(wrongEdge.utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try GraphFile.read(fromFile: path)
            Issue.record("read a graph whose edge names node 5 of 1")
        } catch {
            #expect(error.description.contains("names a node that does not exist"))
        }
        #expect(throws: GraphFileError.self) { try GraphFile.read(fromFile: path + ".missing") }
    }

    @Test("retain-graph heap retainers and convert read a saved census snapshot")
    func commandLine() throws {
        savedSessions = (0..<50).map { _ in SavedSession() }
        defer { savedSessions = [] }
        let path = Self.temporaryFile("heap.json")
        let converted = Self.temporaryFile("heap.heapsnapshot")
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: converted)
        }
        try GraphFile.write(HeapCensus.snapshot().graph, toFile: path)

        let retainers = try Self.run(["heap", "retainers", path, "--limit", "40"])
        #expect(retainers.status == 0)
        // The global's array retains the 50 sessions and their buffers (more than 200 KB).
        let line = retainers.output.split(separator: "\n").first {
            $0.contains("HeapExportTests.SavedSession ×")
        }
        #expect(line != nil, "\(retainers.output)")

        let convert = try Self.run(["heap", "convert", path, converted])
        #expect(convert.status == 0, "\(convert.output)")
        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: converted)))
        let snapshot = (json as? [String: Any])?["snapshot"] as? [String: Any]
        #expect((snapshot?["node_count"] as? Int ?? 0) > 50)

        let missing = try Self.run(["heap", "retainers", path + ".missing"])
        #expect(missing.status == 2)
    }

    /// Runs the built `retain-graph` (next to the test bundle).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("retain-graph")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "no \(tool.path)")
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
