import Foundation
import HeapCensus
import HeapExport
import RetainGraph
import Testing

/// An owner a sleeping task keeps alive: the leak the census finds.
final class TaskHeldOwner: @unchecked Sendable {
    var task: Task<Void, Never>?
    var payload = [UInt8](repeating: 7, count: 200)
    func start() {
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(3600))
                self.tick()
            }
        }
    }
    func tick() {}
}

/// What each request leaves behind in the growth check.
final class LeftoverEntry: @unchecked Sendable {
    let key: Int
    init(key: Int) { self.key = key }
}

/// A global cache, as apps keep them.
nonisolated(unsafe) var leftoverEntries: [LeftoverEntry] = []

@inline(never)
func startTaskHeldOwner() -> (address: UInt, task: Task<Void, Never>?) {
    let owner = TaskHeldOwner()
    owner.start()
    return (UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque()), owner.task)
}

/// A real Swift heap (a census snapshot of this process) opened in Chrome DevTools.
@Suite("Census snapshots in Chrome DevTools", .serialized)
struct CensusInDevToolsTests {
    /// How many retainers DevTools is asked for.
    static let depth = 12

    init() { HeapCensus.start() }

    @Test("A task-held owner: Summary count, Retainers up to (Tasks), retained sizes are ours")
    func taskHeldOwner() throws {
        let (address, task) = startTaskHeldOwner()
        defer { task?.cancel() }
        let heap = HeapCensus.snapshot()
        let owner = try #require(heap.object(at: address))
        let path = try #require(heap.retentionPath(to: owner))
        #expect(path.holder == .task)

        var numbering = ObjectNumbering()
        let folder = try DevToolsDriver.folder("census-task")
        let file = folder.appendingPathComponent("task.heapsnapshot")
        let bytes = try heap.write(toFile: file.path, numbering: &numbering)
        #expect(bytes > 0)
        let tree = heap.graph.dominatorTree()
        func devToolsID(_ id: HeapObjectID) -> Int {
            let number = numbering.number(forAddress: heap[id].address, typeName: heap[id].typeName)
            return Int(V8HeapSnapshot.objectID(number))
        }
        // The owner, then each object on its path from the task.
        let chosen = [owner] + path.objects.map(\.id).filter { $0 != owner }
        let queries: [[String: Any]] =
            [["kind": "summary", "snapshot": 0]]
            + chosen.map {
                ["kind": "inspect", "snapshot": 0, "id": devToolsID($0), "depth": Self.depth]
            }
        let run = try DevToolsDriver.run(snapshots: [file], queries: queries, folder: folder)

        let summary = try run.value(0, as: [DevToolsDriver.SummaryRow].self)
        let ownerType = heap[owner].typeName
        #expect(ownerType == "HeapExportTests.TaskHeldOwner")
        #expect(
            summary.first { $0.name == ownerType }?.count == heap.objects(ofType: ownerType).count)
        #expect(summary.first { $0.name == "Task" } != nil)

        let inspection = try run.value(1, as: DevToolsDriver.Inspection.self)
        #expect(inspection.object.name == ownerType)
        // Retainers, nearest first: the closure context's capture, the task, the group.
        #expect(inspection.path.first?.edge == path.references.last?.label)
        #expect(inspection.path.contains { $0.name == "Task" })
        // Up to the tasks' root, unless DevTools' chain ran out of depth first: in a test
        // process, other tasks' memory can hold stale words to this task (read
        // conservatively), and DevTools may follow them before the root.
        #expect(
            inspection.path.last?.name == "(Tasks)" || inspection.path.count >= Self.depth,
            "\(inspection.path.map(\.name))")
        for (number, id) in chosen.enumerated() {
            let object = try run.value(1 + number, as: DevToolsDriver.Inspection.self).object
            #expect(
                UInt64(object.retainedSize) == tree.retainedSize(of: UInt32(id.rawValue)),
                "\(heap[id].typeName)")
            #expect(Int(object.shallowSize) == heap.size(of: id))
        }
    }

    @Test("A growth check's two snapshots: Comparison shows the grown type with +N")
    func growthComparison() throws {
        var numbering = ObjectNumbering()
        let folder = try DevToolsDriver.folder("census-growth")
        let before = folder.appendingPathComponent("before.heapsnapshot")
        let after = folder.appendingPathComponent("after.heapsnapshot")
        leftoverEntries = (0..<3).map { LeftoverEntry(key: $0) }
        defer { leftoverEntries.removeAll() }
        try HeapCensus.snapshot().write(toFile: before.path, numbering: &numbering)
        leftoverEntries.append(contentsOf: (3..<8).map { LeftoverEntry(key: $0) })
        let heap = HeapCensus.snapshot()
        try heap.write(toFile: after.path, numbering: &numbering)
        #expect(heap.objects(ofType: "HeapExportTests.LeftoverEntry").count == 8)

        let run = try DevToolsDriver.run(
            snapshots: [before, after],
            queries: [["kind": "comparison", "snapshot": 1, "base": 0]], folder: folder)
        let rows = try run.value(0, as: [DevToolsDriver.ComparisonRow].self)
        let grown = try #require(rows.first { $0.name == "HeapExportTests.LeftoverEntry" })
        #expect(grown.addedCount == 5)
        #expect(grown.removedCount == 0)
        #expect(grown.countDelta == 5)
    }
}
