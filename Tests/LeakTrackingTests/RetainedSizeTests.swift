import Foundation
import LeakTracking
import RetainGraph
import Testing

/// What a leak report says the leaked object keeps alive, from the whole heap a discoverer
/// hands to the check (``DiscoveredHeap``): checked against a hand-built heap whose retained
/// figures are known exactly.
@Suite("Retained size and count in leak reports")
struct RetainedSizeTests {
    /// A heap of seven nodes around the watched owner:
    ///
    /// ```
    /// root ⇒ Owner (48 B) ⇒ Buffer (1,000 B) ⇒ Child (32 B)
    ///                      Buffer ⇒ Back (24 B) ⇒ Owner        (a cycle through the owner)
    /// root ⇒ Shared (64 B) ⇐ Owner                            (two holders: not the owner's)
    /// root ⇒ Watched (16 B) ← Owner (weak)                    (weak: not the owner's)
    /// ```
    ///
    /// The owner dominates itself, Buffer, Child and Back: 48 + 1,000 + 32 + 24 = 1,104 bytes
    /// in 4 objects.
    static func heap(withSizes: Bool) -> (graph: CompactGraph, owner: CompactGraph.NodeID) {
        var builder = CompactGraph.Builder()
        func node(_ name: String, _ size: Int) -> CompactGraph.NodeID {
            builder.addNode(kind: .object, typeName: name, size: withSizes ? size : 0)
        }
        let root = builder.addNode(kind: .root, typeName: "globalVariable")
        builder.addRoot(root, name: "global variable cache")
        let owner = node("App.Owner", 48)
        let buffer = node("App.Buffer", 1_000)
        let child = node("App.Child", 32)
        let back = node("App.Back", 24)
        let shared = node("App.Shared", 64)
        let weakly = node("App.Watched", 16)
        builder.addEdge(from: root, to: owner, ownership: .strong)
        builder.addEdge(from: owner, to: buffer, ownership: .strong)
        builder.addEdge(from: buffer, to: child, ownership: .strong)
        builder.addEdge(from: buffer, to: back, ownership: .strong)
        builder.addEdge(from: back, to: owner, ownership: .strong)
        builder.addEdge(from: root, to: shared, ownership: .strong)
        builder.addEdge(from: owner, to: shared, ownership: .strong)
        builder.addEdge(from: root, to: weakly, ownership: .strong)
        builder.addEdge(from: owner, to: weakly, ownership: .weak)
        return (builder.build(numberingForLocality: false), owner)
    }

    /// An S1 leak's report from a watcher whose discoverer hands over the hand-built heap, the
    /// watched owner being the heap's `owner` node (or no heap at all).
    static func report(heap: (graph: CompactGraph, owner: CompactGraph.NodeID)?) throws
        -> LeakReport
    {
        let discovery: ReferenceDiscovery
        if let heap {
            let discoverer = ClosureDiscoverer { additions, request in
                let nodes = Dictionary(
                    uniqueKeysWithValues: request.watched.map { ($0.id, heap.owner) })
                additions.discoveredHeap = DiscoveredHeap(
                    graph: heap.graph, nodes: nodes, snapshot: heap.graph)
            }
            discovery = .none.adding(discoverer, named: "heap", order: .heapCensus)
        } else {
            discovery = .none
        }
        let harness = Harness(discovery: discovery)
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let verdict = try #require(harness.onlyVerdict())
        #expect((verdict.discoveredHeap != nil) == (heap != nil))
        withExtendedLifetime(loop) {}
        return try #require(verdict.report)
    }

    @Test("The report gives the owner's retained bytes and objects, exactly, and says them")
    func retainedFiguresAreExact() throws {
        let report = try Self.report(heap: Self.heap(withSizes: true))
        #expect(report.retainedBytes == 1_104)
        #expect(report.retainedCount == 4)
        let lines = report.text.split(separator: "\n").map(String.init)
        // Under the verdict lines: the verdict, the expectation, what keeps it, then this.
        #expect(lines[3] == "  retains 1.1 KiB in 4 objects (itself and what only it keeps alive)")
    }

    @Test("Without sizes the report gives the count and says the bytes are unknown, never 0")
    func withoutSizesBytesAreUnknown() throws {
        let report = try Self.report(heap: Self.heap(withSizes: false))
        #expect(report.retainedBytes == nil)
        #expect(report.retainedCount == 4)
        #expect(
            report.text.contains(
                "\n  retains 4 objects (itself and what only it keeps alive; bytes unknown)\n"))
    }

    @Test("JSON carries retainedBytes and retainedCount; the fingerprint does not change")
    func jsonCarriesTheFiguresAndFingerprintsStay() throws {
        let report = try Self.report(heap: Self.heap(withSizes: true))
        let plain = try Self.report(heap: nil)
        let json = try report.jsonData()
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["retainedBytes"] as? Int == 1_104)
        #expect(object["retainedCount"] as? Int == 4)
        #expect(object["schemaVersion"] as? Int == 2)
        let decoded = try LeakReport.decode(from: json)
        #expect(decoded.retainedBytes == 1_104 && decoded.retainedCount == 4)

        #expect(plain.fingerprint == report.fingerprint)
        #expect(plain.retainedBytes == nil && plain.retainedCount == nil)
        #expect(!plain.text.contains("retains"))
        let plainJSON = try #require(
            try JSONSerialization.jsonObject(with: plain.jsonData()) as? [String: Any])
        #expect(plainJSON["retainedBytes"] == nil && plainJSON["retainedCount"] == nil)
    }

    @Test("Every report of one check reads the same heap's figures")
    func everyReportOfACheckHasFigures() throws {
        let (graph, owner) = Self.heap(withSizes: true)
        let discoverer = ClosureDiscoverer { additions, request in
            let nodes = Dictionary(uniqueKeysWithValues: request.watched.map { ($0.id, owner) })
            additions.discoveredHeap = DiscoveredHeap(graph: graph, nodes: nodes, snapshot: graph)
        }
        let harness = Harness(discovery: .none.adding(discoverer, named: "heap", order: .custom))
        let loop = harness.mainRunLoop()
        var first: Owner? = harness.makeS1(on: loop)
        var second: Owner? = harness.makeS1(on: loop)
        _ = harness.expectDeath(of: &first)
        _ = harness.expectDeath(of: &second)
        harness.expireGrace()
        let reports = harness.watcher.check().compactMap(\.report)
        #expect(reports.count == 2)
        #expect(reports.allSatisfy { $0.retainedBytes == 1_104 && $0.retainedCount == 4 })
        withExtendedLifetime(loop) {}
    }
}
