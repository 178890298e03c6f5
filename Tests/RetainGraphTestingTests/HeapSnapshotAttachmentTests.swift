import Foundation
import Testing

/// A `.heapsnapshot` file read back as V8's heap snapshot JSON: the objects' names and ids.
///
/// Framework-neutral (Swift Testing and XCTest tests both read files with it): a file that is
/// not laid out as DevTools expects throws.
struct V8File {
    /// Why a file is not a heap snapshot DevTools reads.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// The node fields DevTools reads, in order.
    static let nodeFields = [
        "type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness",
    ]

    /// Each node's name (a Swift type name for an object) and id.
    let nodes: [(name: String, id: Int)]

    /// Reads `url`, checking the layout DevTools expects: `snapshot.meta`'s `node_fields`,
    /// `snapshot.node_count`, flat `nodes` and `strings`.
    init(_ url: URL) throws {
        let data = try Data(contentsOf: url)
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let snapshot = root["snapshot"] as? [String: Any],
            let meta = snapshot["meta"] as? [String: Any],
            let fields = meta["node_fields"] as? [String],
            let flat = root["nodes"] as? [Int], let strings = root["strings"] as? [String]
        else { throw Malformed(description: "not V8 heap snapshot JSON: \(url.path)") }
        guard fields == Self.nodeFields, flat.count % fields.count == 0,
            snapshot["node_count"] as? Int == flat.count / fields.count
        else { throw Malformed(description: "unexpected node layout \(fields): \(url.path)") }
        nodes = stride(from: 0, to: flat.count, by: fields.count).map { start in
            let name = flat[start + 1]
            return (strings.indices.contains(name) ? strings[name] : "?", flat[start + 2])
        }
    }

    /// The ids of the nodes named `name`.
    func ids(named name: String) -> Set<Int> {
        Set(nodes.filter { $0.name == name }.map(\.id))
    }
}

/// What a failing check attaches for Chrome DevTools, read from a child run of this bundle
/// (`--attachments-path`): the census records in a test process, so the heap is at hand.
@Suite(
    "Failing checks attach .heapsnapshot files",
    .enabled(if: !isPlantedLeakChild && !isPlantedGrowthChild))
struct HeapSnapshotAttachmentTests {
    @Test("A failing .detectsLeaks test attaches the heap, in V8's format, with the leaked type")
    func aFailingLeakTestAttachesTheHeap() throws {
        let run = try TestReportingTests.runChild()
        defer { try? FileManager.default.removeItem(at: run.attachments) }
        #expect(run.status != 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: run.attachments.path)
        let name = try #require(files.first { $0.hasSuffix(".heapsnapshot") }, "\(files)")
        #expect(name.hasPrefix("LEAK-TickingScreen-"))
        let heap = try V8File(run.attachments.appendingPathComponent(name))
        #expect(heap.ids(named: "RetainGraphTestingTests.TickingScreen").count >= 1)
    }

    @Test("A failing growth check attaches its start and end heaps, survivors with one id")
    func aFailingGrowthCheckAttachesTwoHeapsNumberedAlike() throws {
        let run = try TestReportingTests.runChild(
            "PlantedGrowthChild/plantedGrowth", enabledBy: "RETAINGRAPH_PLANTED_GROWTH_CHILD")
        defer { try? FileManager.default.removeItem(at: run.attachments) }
        #expect(run.status != 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: run.attachments.path)
        let startName = try #require(files.first { $0.hasSuffix("heap-growth-start.heapsnapshot") })
        let endName = try #require(files.first { $0.hasSuffix("heap-growth-end.heapsnapshot") })
        let start = try V8File(run.attachments.appendingPathComponent(startName))
        let end = try V8File(run.attachments.appendingPathComponent(endName))
        let type = "RetainGraphTestingTests.PlantedGrowthEntry"
        let before = start.ids(named: type)
        let after = end.ids(named: type)
        // The warm-up's entry is in both, with one id; the discovery round and the two measured
        // rounds (10 repetitions each) added 30: DevTools' Comparison shows +30.
        #expect(before.count == 1)
        #expect(before.isSubset(of: after))
        #expect(after.count - before.count == 30)
    }
}
