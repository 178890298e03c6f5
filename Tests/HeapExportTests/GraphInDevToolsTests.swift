import Foundation
import HeapExport
import RetainGraph
import Testing

/// A compact graph exported and opened in Chrome DevTools' Memory panel (headless Chromium):
/// what DevTools shows must be what the graph says, and its retained sizes must be ours.
@Suite("Compact graph in Chrome DevTools", .serialized)
struct GraphInDevToolsTests {
    /// A server's heap: a run loop holds the server and a timer whose closure captures it; the
    /// server holds three request handlers (which hold it back weakly); a work queue's cache
    /// shares the last handler; a session and its closure, held by nothing, point into a handler.
    static func serverGraph() -> CompactGraph {
        var builder = CompactGraph.Builder()
        let names = [
            "RunLoop", "App.Server", "App.RequestHandler", "App.RequestHandler",
            "App.RequestHandler", "Foundation.Timer", "(captures Server)", "App.Session",
            "(captures Session)", "DispatchQueue", "App.Cache",
        ]
        let sizes = [64, 48, 64, 64, 64, 96, 32, 80, 32, 64, 40]
        for (index, (name, size)) in zip(names, sizes).enumerated() {
            builder.addNode(
                kind: index == 6 || index == 8 ? .closure : .object, typeName: name, size: size)
        }
        builder.addRoot(0, name: "main run loop")
        builder.addRoot(9, name: "dispatch queue \"work\"")
        let strong: [(UInt32, UInt32, String)] = [
            (0, 1, "server"), (1, 2, "handlers[0]"), (1, 3, "handlers[1]"), (1, 4, "handlers[2]"),
            (0, 5, "timers[0]"), (5, 6, "_fire"), (6, 1, "captures Server"), (7, 8, "onClose"),
            (8, 7, "captures self"), (8, 3, "captures handler"), (9, 10, "cache"),
            (10, 4, "entries[0]"), (10, 10, "self"),
        ]
        for (from, to, label) in strong {
            builder.addEdge(from: from, to: to, ownership: .strong, role: .declared(label))
        }
        for handler in 2...4 as ClosedRange<UInt32> {
            builder.addEdge(from: handler, to: 1, ownership: .weak, role: .declared("server"))
        }
        return builder.build(numberingForLocality: false)
    }

    @Test("Summary, Retainers and retained sizes of a server's graph are the graph's")
    func serverGraphInDevTools() throws {
        let graph = Self.serverGraph()
        let tree = graph.dominatorTree()
        let folder = try DevToolsDriver.folder("server-graph")
        let file = folder.appendingPathComponent("server.heapsnapshot")
        var numbering = ObjectNumbering()
        try V8HeapSnapshot(graph: graph, numbering: &numbering).write(toFile: file.path)
        // Nodes without addresses are numbered in node order: 1, 2, …
        let objectIDs = (1...graph.nodeCount).map { Int(V8HeapSnapshot.objectID(UInt64($0))) }
        var queries: [[String: Any]] = [["kind": "summary", "snapshot": 0]]
        for id in objectIDs {
            queries.append(["kind": "inspect", "snapshot": 0, "id": id, "depth": 4])
        }
        let run = try DevToolsDriver.run(snapshots: [file], queries: queries, folder: folder)

        let summary = try run.value(0, as: [DevToolsDriver.SummaryRow].self)
        let counts = Dictionary(summary.map { ($0.name, $0.count) }, uniquingKeysWith: +)
        #expect(counts["App.RequestHandler"] == 3)
        #expect(counts["App.Server"] == 1)
        #expect(counts["closure context (captures Server)"] == 1)
        #expect(counts["App.Session"] == 1)
        #expect(counts["Function"] == nil)

        // Retainers of the server: the run loop's `server`, then the run loop's group.
        let server = try run.value(2, as: DevToolsDriver.Inspection.self)
        #expect(server.object.name == "App.Server")
        #expect(server.path.map(\.edge) == ["server", "main run loop"])
        #expect(server.path.map(\.name) == ["RunLoop", "(main run loop)"])
        #expect(Set(server.retainers.compactMap(\.edge)) == ["server", "captures Server"])

        // Every reachable object's retained size is the dominator tree's.
        for node in 0..<UInt32(graph.nodeCount) where tree.isReachable(node) {
            let inspection = try run.value(1 + Int(node), as: DevToolsDriver.Inspection.self)
            #expect(
                UInt64(inspection.object.retainedSize) == tree.retainedSize(of: node),
                "\(graph.typeName(of: node)) @\(objectIDs[Int(node)])")
        }
    }

    @Test("Root groups by shortcut or element edges: an unheld cycle does not split dominators")
    func unheldObjectsDoNotSplitDominators() throws {
        // The unheld session's closure points into handler 3. Our tree ignores objects no root
        // reaches, so the server retains handler 3. HeapSnapshot.ts ignores edges from objects
        // no root shortcut reaches into objects one reaches; Chromium 156 gives our figure
        // whether the groups hang from the root by shortcut or by element edges.
        let graph = Self.serverGraph()
        let tree = graph.dominatorTree()
        let folder = try DevToolsDriver.folder("root-edges")
        let shortcut = folder.appendingPathComponent("shortcut.heapsnapshot")
        let element = folder.appendingPathComponent("element.heapsnapshot")
        var numbering = ObjectNumbering()
        try V8HeapSnapshot(graph: graph, numbering: &numbering).write(toFile: shortcut.path)
        numbering = ObjectNumbering()
        try V8HeapSnapshot(graph: graph, numbering: &numbering, groupEdge: .element)
            .write(toFile: element.path)
        let serverID = Int(V8HeapSnapshot.objectID(2))
        let run = try DevToolsDriver.run(
            snapshots: [shortcut, element],
            queries: [
                ["kind": "inspect", "snapshot": 0, "id": serverID, "depth": 1],
                ["kind": "inspect", "snapshot": 1, "id": serverID, "depth": 1],
            ], folder: folder)
        let underShortcuts = try run.value(0, as: DevToolsDriver.Inspection.self)
        let underElements = try run.value(1, as: DevToolsDriver.Inspection.self)
        #expect(tree.retainedSize(of: 1) == 48 + 64 + 64)
        #expect(UInt64(underShortcuts.object.retainedSize) == tree.retainedSize(of: 1))
        #expect(UInt64(underElements.object.retainedSize) == tree.retainedSize(of: 1))
    }

    @Test("A random graph: DevTools' retained size per type is our largest retainers'")
    func randomGraphPerType() throws {
        var random = SplitMixRandom(seed: 25)
        var builder = CompactGraph.Builder()
        let count = 400
        for node in 0..<count {
            builder.addNode(
                kind: .object, typeName: "Bench.T\(node % 9)", size: 16 + Int(random.next() % 300))
        }
        for root in 0..<4 { builder.addRoot(UInt32(root * 100), name: "root \(root)") }
        for node in 0..<count {
            // Each object is held by an earlier one (so every object is reachable), plus
            // random strong and weak references, cycles included.
            if node % 100 != 0 {
                let holder = UInt32(node - 1 - Int(random.next() % UInt64(min(node, 7))))
                builder.addEdge(
                    from: holder, to: UInt32(node), ownership: .strong, role: .declared("child"))
            }
            let other = UInt32(random.next() % UInt64(count))
            let ownership: Ownership = random.next() % 3 == 0 ? .weak : .strong
            builder.addEdge(
                from: UInt32(node), to: other, ownership: ownership, role: .declared("link"))
        }
        // Words of a task's memory (last-resort references), retaining only what nothing else
        // reaches: sixty into objects held otherwise, and the only references to twenty more.
        for _ in 0..<20 { builder.addNode(kind: .object, typeName: "Bench.Stray", size: 40) }
        for word in 0..<80 {
            let target = word < 60 ? random.next() % UInt64(count) : UInt64(count + word - 60)
            builder.addEdge(
                from: UInt32(random.next() % UInt64(count)), to: UInt32(target),
                ownership: .conservative, role: .runs)
            builder.edgeFlags[builder.edgeFlags.count - 1] = CompactGraph.lastResort(
                builder.edgeFlags[builder.edgeFlags.count - 1])
        }
        let graph = builder.build()
        let tree = graph.dominatorTree()
        let redundant = graph.redundantLastResortEdges()
        #expect(redundant.count == 60)
        #expect(tree.reachableCount == count + 20)
        let folder = try DevToolsDriver.folder("random-graph")
        let file = folder.appendingPathComponent("random.heapsnapshot")
        var numbering = ObjectNumbering()
        try V8HeapSnapshot(graph: graph, numbering: &numbering).write(toFile: file.path)
        // An object a redundant word points to, and a stray only a word holds (numbered in
        // node order: nodes without an address are numbered from 1).
        let held = graph.target(of: try #require(redundant.first))
        let stray = try #require(
            (0..<UInt32(graph.nodeCount)).first { graph.typeName(of: $0) == "Bench.Stray" })
        let run = try DevToolsDriver.run(
            snapshots: [file],
            queries: [
                ["kind": "summary", "snapshot": 0],
                ["kind": "inspect", "snapshot": 0, "id": Self.devToolsID(held), "depth": 1],
                ["kind": "inspect", "snapshot": 0, "id": Self.devToolsID(stray), "depth": 1],
            ], folder: folder)
        let summary = try run.value(0, as: [DevToolsDriver.SummaryRow].self)
        let ours = tree.largestRetainers(in: graph, limit: 100)
        #expect(summary.count == 10)
        for group in ours {
            let row = summary.first { $0.name == group.typeName }
            #expect(row?.count == group.instanceCount, "\(group.typeName)")
            #expect(row.map { UInt64($0.retainedSize) } == group.retainedBytes, "\(group.typeName)")
        }
        // DevTools lists no redundant word among the Retainers; a stray's word is its retainer.
        let heldRetainers = try run.value(1, as: DevToolsDriver.Inspection.self).retainers
        #expect(!heldRetainers.isEmpty)
        #expect(!heldRetainers.contains { $0.edge == "runs (conservative)" })
        let strayRetainers = try run.value(2, as: DevToolsDriver.Inspection.self).retainers
        #expect(strayRetainers.map(\.edge) == ["runs (conservative)"])
    }

    /// The DevTools id of a node of a graph without addresses, exported with a new numbering.
    static func devToolsID(_ node: CompactGraph.NodeID) -> Int {
        Int(V8HeapSnapshot.objectID(UInt64(node) + 1))
    }
}

/// SplitMix64, so the random graph is the same on every run.
struct SplitMixRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
