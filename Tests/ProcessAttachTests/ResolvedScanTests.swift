import ObjectGraph
import RuntimeLayouts
import Testing

@testable import ProcessAttach

/// An attach's build in two halves (``ResolvedScan``): the scan read out and resolved, then the
/// graph built. When the mirror fails while the dynamic values are decoded, the attach decodes
/// them again from the same scan instead of building twice: the graph must then be the one a
/// single decoding makes.
@Suite("An attach's scan resolved, then built", .timeLimit(.minutes(10)))
struct ResolvedScanTests {
    @Test("Decoding the dynamic values again leaves the graph as one decoding made it")
    func decodingAgainChangesNothing() throws {
        let target = try AttachTargets.start("attach-tasks", ["50"])
        defer { target.stop() }
        let stopped = try StoppedProcess(
            processID: target.pid, options: AttachOptions(maximumStop: .seconds(60)))
        let memory = try stopped.captureMemory()
        _ = stopped.resume()
        let heap = GlibcHeap(memory)
        let mirror = try RemoteMirror(library: try MirrorLibrary.load(path: nil), memory: memory)
        let table = LayoutTable(source: MirrorMetadata(mirror: mirror, memory: memory))
        var scanner = ProcessScan(memory: memory, table: table, budget: .unlimited)
        let scan = scanner.scan(blocks: heap.blocks, sizes: heap.sizes)
        // The fixture leaves dynamic values to decode: what this test is about.
        #expect(scan.columns.dynamicCount > 0)
        let process = HeapProcess(processID: memory.processID, command: memory.command)
        let once = HeapSnapshot(
            scan: scan, roots: ProcessRoots(memory: memory), process: process, limitations: [],
            statistics: HeapReadStatistics())
        // The scan is still held here: its columns stay whole for the second reading.
        var resolved = ResolvedScan(scan)
        resolved.decodeDynamicValuesAgain()
        let twice = HeapSnapshot(
            resolved: resolved, roots: ProcessRoots(memory: memory), process: process,
            limitations: [], statistics: HeapReadStatistics())
        #expect(mirror.failure == nil)
        #expect(once.objectCount > 50)
        #expect(twice.objectCount == once.objectCount)
        #expect(twice.referenceCount == once.referenceCount)
        #expect(twice.graph.nodeCount == once.graph.nodeCount)
        #expect(twice.graph.outStart == once.graph.outStart)
        #expect(twice.graph.targets == once.graph.targets)
        #expect(twice.graph.edgeFlags == once.graph.edgeFlags)
        #expect(
            twice.graph.edgeRoles.map { twice.graph.roles[$0].description }
                == once.graph.edgeRoles.map { once.graph.roles[$0].description })
        #expect(
            twice.graph.typeNames.map { twice.graph.strings[$0] }
                == once.graph.typeNames.map { once.graph.strings[$0] })
    }

    @Test("A heap's graph keeps no column of keys, and no label column for its objects")
    func heapGraphHasNoKeyColumn() throws {
        let target = try AttachTargets.start("attach-many", ["2000"])
        defer { target.stop() }
        let heap = try HeapSnapshot.capture(
            processID: target.pid, options: AttachOptions(maximumStop: .seconds(60)))
        #expect(heap.objects(ofType: "attach_many.Node").count == 2000)
        // 8 bytes an object: 40 MB of an attach of five million objects. (Its holders have
        // labels, the names of global variables and threads: that column stays.)
        #expect(heap.graph.keys.isEmpty)
        let node = CompactGraph.NodeID(heap.objects(ofType: "attach_many.Node")[0].rawValue)
        #expect(heap.graph.label(of: node) == nil)
        #expect(heap.graph.key(of: node) == 0)
        // Nor a label column: it starts at the first labelled holder, after the objects.
        #expect(heap.graph.labelStart >= heap.objectCount)
        #expect(heap.graph.labels.count <= heap.graph.nodeCount - heap.objectCount)
        let holders = (heap.objectCount..<heap.graph.nodeCount).map { CompactGraph.NodeID($0) }
        #expect(holders.contains { heap.graph.label(of: $0) != nil })
        // The attach lets its address index go before the graph is built: the first lookup
        // makes it again, from the graph.
        for id in heap.objects(ofType: "attach_many.Node").prefix(100) {
            #expect(heap.object(at: heap[id].address) == id)
            #expect(heap.object(at: heap[id].address + 8) == nil)
        }
        #expect(heap.object(at: 0) == nil)
    }
}
