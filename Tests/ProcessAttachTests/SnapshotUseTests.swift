import Foundation
import ProcessAttach
import RetainGraph
import Testing

/// What a tool does with snapshots: compare two, save one and read it back, walk its graph.
@Suite("Snapshots: growth, files, graph", .timeLimit(.minutes(3)))
struct SnapshotUseTests {
    @Test(
        "Growth between two attaches: the cached type grew by exactly the work done, with its path")
    func growthBetweenAttaches() throws {
        let target = try AttachTargets.start("attach-global-cache", ["10"])
        let before = try RemoteHeapSnapshot.capture(processID: target.pid)
        target.send("add 7")
        _ = try target.waitForLine { $0 == "added 17" }
        let after = try RemoteHeapSnapshot.capture(processID: target.pid)
        let growth = RemoteHeapGrowth(from: before, to: after)
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

    @Test("A snapshot written as JSON reads back with the same objects, holders and paths")
    func jsonRoundTrip() throws {
        let target = try AttachTargets.start("attach-task-loop")
        let heap = try RemoteHeapSnapshot.capture(processID: target.pid)
        let data = try heap.jsonData()
        let read = try RemoteHeapSnapshot(jsonData: data)
        #expect(read.objectCount == heap.objectCount)
        #expect(read.referenceCount == heap.referenceCount)
        #expect(read.countsByType() == heap.countsByType())
        #expect(read.processID == heap.processID)
        let name = "attach_task_loop.TaskRefresher"
        #expect(read.whoHoldsText(name) == heap.whoHoldsText(name))
        #expect(read.whoHoldsText(name).contains("held by: a Task"))
    }

    @Test("Data that is not a snapshot: unreadableSnapshot")
    func unreadableFile() {
        #expect(throws: AttachError.self) { try RemoteHeapSnapshot(jsonData: Data("{}".utf8)) }
        #expect(throws: AttachError.self) {
            try RemoteHeapSnapshot(jsonData: Data(#"{"kind": "heapGrowth"}"#.utf8))
        }
    }

    @Test("The snapshot's graph: one node per object, the holders as roots, paths from them")
    func graph() throws {
        let target = try AttachTargets.start("attach-global-cache", ["5"])
        let heap = try RemoteHeapSnapshot.capture(processID: target.pid)
        #expect(heap.graph.nodeCount == heap.objectCount)
        #expect(heap.graph.edgeCount == heap.referenceCount)
        let session = try #require(heap.objects(ofType: "attach_global_cache.CachedSession").first)
        let node = CompactGraph.NodeID(session.rawValue)
        #expect(heap.graph.typeName(of: node) == "attach_global_cache.CachedSession")
        #expect(heap.graph.address(of: node) == heap[session].address)
        let steps = try #require(heap.graph.strongPathFromRoot(to: node))
        let root = try #require(steps.first?.from)
        #expect(heap.graph.rootName(of: root)?.hasPrefix("global variable") == true)
    }

    @Test("Counts by type add up to the object count and the bytes")
    func counts() throws {
        let target = try AttachTargets.start("attach-stale", ["300"])
        let heap = try RemoteHeapSnapshot.capture(processID: target.pid)
        let counts = heap.countsByType()
        #expect(counts.reduce(0) { $0 + $1.count } == heap.objectCount)
        #expect(counts.reduce(0) { $0 + $1.bytes } == heap.totalBytes)
        #expect(counts.first?.typeName == "attach_stale.KeptObject")
        #expect(counts.first?.count == 300)
        #expect(heap.stopDuration.map { $0 < .seconds(5) } == true)
    }
}
