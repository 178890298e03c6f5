import Foundation
import HeapExport
import ObjectGraph
import ProcessAttach
import Testing

/// What a tool does with snapshots: compare two, save one and read it back, walk its graph.
@Suite("Snapshots: growth, files, graph", .timeLimit(.minutes(10)))
struct SnapshotUseTests {
    @Test(
        "Growth between two attaches: the cached type grew by exactly the work done, with its path")
    func growthBetweenAttaches() throws {
        let target = try AttachTargets.start("attach-global-cache", ["10"])
        let before = try HeapSnapshot.capture(processID: target.pid)
        target.send("add 7")
        _ = try target.waitForLine { $0 == "added 17" }
        let after = try HeapSnapshot.capture(processID: target.pid)
        let growth = HeapComparison(from: before, to: after)
        let sessions = try #require(
            growth.grown.first { $0.typeName == "attach_global_cache.CachedSession" })
        #expect(sessions.before == 10)
        #expect(sessions.after == 17)
        #expect(sessions.growth == 7)
        guard case .globalVariable(let name)? = sessions.samplePath?.holder else {
            Issue.record("sample held by \(String(describing: sessions.samplePath?.holder))")
            return
        }
        #expect(name.hasPrefix("attach_global_cache.sessionCache"))
        #expect(growth.text.contains("attach_global_cache.CachedSession: +7 (10 → 17)"))
        #expect(target.isRunningUntraced)
    }

    @Test("A snapshot written as a graph file reads back with the same objects, holders and paths")
    func graphFileRoundTrip() throws {
        let target = try AttachTargets.start("attach-task-loop")
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let file = temporaryFile("attach-\(target.pid).json")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try heap.write(toFile: file)
        let read = try HeapSnapshot(contentsOfFile: file)
        #expect(read.objectCount == heap.objectCount)
        #expect(read.referenceCount == heap.referenceCount)
        #expect(read.countsByType() == heap.countsByType())
        #expect(read.process.processID == heap.process.processID)
        #expect(read.process.command == heap.process.command)
        #expect(read.process.threads == heap.process.threads)
        #expect(read.limitations == heap.limitations)
        #expect(read.statistics.copiedBytes == heap.statistics.copiedBytes)
        #expect(
            Int(read.process.capturedAt.timeIntervalSince1970)
                == Int(heap.process.capturedAt.timeIntervalSince1970)
        )
        let name = "attach_task_loop.TaskRefresher"
        #expect(read.whoHoldsText(name) == heap.whoHoldsText(name))
        #expect(read.whoHoldsText(name).contains("held by a Task"))
        // The file is RetainGraph's one graph file: HeapExport reads it, with the facts.
        let contents = try GraphFile.contents(ofFile: file)
        #expect(contents.graph.nodeCount == heap.graph.nodeCount)
        #expect(contents.attributes["attach.processID"] == "\(target.pid)")
    }

    @Test("A .heapsnapshot for DevTools: every object a node, the holders in root groups")
    func heapSnapshotFile() throws {
        let target = try AttachTargets.start("attach-global-cache", ["3"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let file = temporaryFile("attach-\(target.pid).heapsnapshot")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let size = try heap.write(toFile: file)
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(data.count == size)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let meta = try #require((json["snapshot"] as? [String: Any])?["meta"] as? [String: Any])
        let nodeFields = try #require(meta["node_fields"] as? [String])
        let nodes = try #require(json["nodes"] as? [Int])
        let strings = try #require(json["strings"] as? [String])
        // Objects plus the synthetic root and one group per kind of holder.
        #expect(nodes.count / nodeFields.count > heap.objectCount)
        #expect(strings.contains("attach_global_cache.CachedSession"))
        #expect(strings.contains("(globals)"))
    }

    @Test("Files that are not graph files: a GraphFileError, saying why")
    func unreadableFile() throws {
        let file = temporaryFile("not-a-graph-\(getpid()).json")
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: GraphFileError.self) { try HeapSnapshot(contentsOfFile: file) }
        do {
            _ = try HeapSnapshot(contentsOfFile: file + ".missing")
            Issue.record("a missing file was read")
        } catch {
            #expect(error.description.hasPrefix("cannot read \(file).missing: "))
        }
    }

    @Test("The snapshot's graph: objects first, then the holders as roots, paths from them")
    func graph() throws {
        let target = try AttachTargets.start("attach-global-cache", ["5"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let graph = heap.graph
        #expect(graph.nodeCount > heap.objectCount)
        for node in 0..<UInt32(graph.nodeCount) {
            #expect((graph.kind(of: node) == .root) == (Int(node) >= heap.objectCount))
            #expect(graph.isRoot(node) == (Int(node) >= heap.objectCount))
        }
        let session = try #require(heap.objects(ofType: "attach_global_cache.CachedSession").first)
        let node = CompactGraph.NodeID(session.rawValue)
        #expect(graph.typeName(of: node) == "attach_global_cache.CachedSession")
        #expect(graph.address(of: node) == heap[session].address)
        #expect(graph.size(of: node) == heap[session].size)
        let steps = try #require(graph.pathFromRoot(to: node))
        let root = try #require(steps.first?.from)
        guard case .heapHolder(.globalVariable)? = graph.rootKind(of: root) else {
            Issue.record("rooted at \(String(describing: graph.rootKind(of: root)))")
            return
        }
        #expect(graph.label(of: root)?.hasPrefix("attach_global_cache.sessionCache") == true)
        #expect(graph.role(ofEdge: steps[0].edge) == .heldBy(.globalVariable))
        // The holders of the array storage, as the graph's root kinds say.
        let storage = HeapObjectID(rawValue: Int32(steps[0].to))
        #expect(heap.holders(of: storage).contains { $0.description.hasPrefix("global variable") })
    }

    @Test("Counts by type add up to the object count and the bytes")
    func counts() throws {
        let target = try AttachTargets.start("attach-stale", ["300"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let counts = heap.countsByType()
        #expect(counts.reduce(0) { $0 + $1.count } == heap.objectCount)
        #expect(counts.reduce(0) { $0 + $1.bytes } == heap.totalBytes)
        #expect(counts.first?.typeName == "attach_stale.KeptObject")
        #expect(counts.first?.count == 300)
        // The stop is recorded (its length is a benchmark's figure, not a unit test's).
        #expect(heap.process.stopDuration.map { $0 > .zero } == true)
    }

    private func temporaryFile(_ name: String) -> String {
        URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(name).path
    }
}
