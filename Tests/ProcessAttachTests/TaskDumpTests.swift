import Foundation
import HeapExport
import ProcessAttach
import Testing

/// Attaches to `attach-tasks` (Tests/Fixtures/AttachTargets, no RetainGraph code in it), whose
/// tasks wait in known places, each marked `// wait: <name>` in its source.
@Suite("Every task: where it waits, what it awaits, what it keeps", .timeLimit(.minutes(10)))
struct TaskDumpTests {
    /// The fixture's source.
    static let source = AttachTargets.repository.appendingPathComponent(
        "Tests/Fixtures/AttachTargets/Sources/attach-tasks/main.swift")

    /// The line marked `// wait: name` in the fixture.
    static func line(_ name: String) throws -> Int {
        let lines = try String(contentsOf: source, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        return try #require(lines.firstIndex { $0.hasSuffix("// wait: " + name) }) + 1
    }

    /// Attaches until every task but the runtime's has suspended (the fixture says it is
    /// ready once its continuations are parked; its sleep loop and group child get there a
    /// moment later), at most 60 s.
    static func settledDump(of target: RunningTarget) throws -> (HeapSnapshot, TaskDump) {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let (heap, tasks) = try HeapSnapshot.captureWithTasks(processID: target.pid)
            let settled = tasks.tasks.allSatisfy { $0.state == .suspended || $0.isRuntimeTask }
            if settled || ContinuousClock.now > deadline { return (heap, tasks) }
        }
    }

    /// The tasks waiting at the line marked `name`: `count` of them.
    static func tasks(waitingAt name: String, count: Int = 1, in dump: TaskDump) throws
        -> [AsyncTaskInfo]
    {
        let line = try line(name)
        let found = dump.tasks.filter { $0.waitingFrame?.line == line }
        try #require(found.count == count, "\(name): \(dump.text())")
        return found
    }

    /// The one task waiting at the line marked `name`.
    static func task(waitingAt name: String, in dump: TaskDump) throws -> AsyncTaskInfo {
        try tasks(waitingAt: name, in: dump)[0]
    }

    @Test("Each task is named by its function and the line it waits at, with what it awaits")
    func eachTaskNamed() throws {
        let target = try AttachTargets.start("attach-tasks")
        let (_, dump) = try Self.settledDump(of: target)
        let expected: [(marker: String, function: String, awaiting: String)] = [
            ("sleep-loop", "refreshForever(_:)", "Task.sleep(for:tolerance:clock:)"),
            ("continuation", "waitForSignal()", "withCheckedContinuation(isolation:function:_:)"),
            ("stream", "consumeUpdates()", "AsyncStream.Iterator.next(isolation:)"),
            ("group-parent", "runGroup()", "withTaskGroup(of:returning:isolation:body:)"),
            ("group-child", "closure #1 in closure #2 in runGroup()", "Task.value"),
            ("actor", "Mailbox.awaitDelivery()", "withCheckedContinuation(isolation:function:_:)"),
        ]
        for (marker, function, awaiting) in expected {
            // Two tasks wait for a signal: one of their own, and the task group's blocker.
            let count = marker == "continuation" ? 2 : 1
            for task in try Self.tasks(waitingAt: marker, count: count, in: dump) {
                #expect(task.state == .suspended, "\(marker): \(task.summary)")
                let waiting = try #require(task.waitingFrame)
                #expect(AsyncTaskInfo.shortName(of: waiting) == function, "\(marker)")
                #expect(waiting.file?.hasSuffix("attach-tasks/main.swift") == true)
                #expect(task.awaiting == awaiting, "\(marker): \(task.summary)")
            }
        }
        #expect(target.isRunningUntraced)
    }

    @Test("The task tree, the actor, and what a task alone keeps alive")
    func treeActorAndRetained() throws {
        let target = try AttachTargets.start("attach-tasks")
        let (heap, dump) = try Self.settledDump(of: target)
        let parent = try Self.task(waitingAt: "group-parent", in: dump)
        let child = try Self.task(waitingAt: "group-child", in: dump)
        #expect(parent.children == [child.address])
        #expect(child.parent == parent.address)
        #expect(child.relation == .groupChild)
        #expect(parent.relation == .unstructured)

        let isolated = try Self.task(waitingAt: "actor", in: dump)
        let actor = try #require(isolated.actor, "\(isolated.summary)")
        #expect(actor.typeName == "attach_tasks.Mailbox")
        #expect(actor.relation == .isolated)
        #expect(heap.object(at: actor.address).map { heap[$0].typeName } == actor.typeName)

        // The sleep loop's Refresher lives only in its suspended frame (a slab of the task's
        // allocator): the task keeps it, and the heap read with the frames says so.
        let sleeper = try Self.task(waitingAt: "sleep-loop", in: dump)
        let retained = try #require(sleeper.retained)
        #expect(retained.types.contains { $0.typeName == "attach_tasks.Refresher" })
        #expect(retained.bytes >= 4096)
        let refresher = try #require(heap.objects(ofType: "attach_tasks.Refresher").first)
        let path = try #require(heap.retentionPath(to: refresher))
        #expect(path.objects.first?.address == sleeper.address)
    }

    @Test("Thousands of identical tasks are one group, with their count")
    func identicalTasksGrouped() throws {
        let target = try AttachTargets.start("attach-tasks", ["3000"])
        let (_, dump) = try Self.settledDump(of: target)
        let largest = try #require(dump.groups.first)
        #expect(largest.count == 3000)
        #expect(largest.waitingFrame?.line == (try Self.line("many")))
        #expect(largest.title.hasPrefix("3000 tasks suspended in parkOne() at main.swift:"))
        #expect(
            largest.title.hasSuffix(", awaiting withCheckedContinuation(isolation:function:_:)"))
        #expect(dump.text().contains(largest.title))
    }

    @Test("retain-graph attach --tasks prints the groups; --output names each task's node")
    func commandLine() throws {
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        let target = try AttachTargets.start("attach-tasks", ["500"])
        _ = try Self.settledDump(of: target)
        let run = try AttachCommandTests.run(tool, ["attach", "\(target.pid)", "--tasks"])
        #expect(run.status == 0, "\(run.error)")
        let many = try Self.line("many")
        #expect(run.output.contains("500 tasks suspended in parkOne() at main.swift:\(many)"))
        let sleep = try Self.line("sleep-loop")
        #expect(
            run.output.contains(
                "1 task suspended in refreshForever(_:) at main.swift:\(sleep), awaiting "
                    + "Task.sleep(for:tolerance:clock:)"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "retaingraph-tasks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let v8 = folder.appendingPathComponent("heap.heapsnapshot").path
        let graph = folder.appendingPathComponent("heap.json").path
        for file in [v8, graph] {
            let written = try AttachCommandTests.run(
                tool, ["attach", "\(target.pid)", "--tasks", "--output", file])
            #expect(written.status == 0, "\(written.error)")
        }
        let snapshot = try String(contentsOfFile: v8, encoding: .utf8)
        #expect(snapshot.contains("\"Task · parkOne() at main.swift:\(many)\""))
        let read = try HeapSnapshot(contentsOfFile: graph)
        let labels = read.objects(ofType: "Task").compactMap {
            read.graph.label(of: UInt32($0.rawValue))
        }
        #expect(labels.filter { $0.contains("parkOne() at main.swift:\(many)") }.count == 500)
        #expect(labels.contains { $0.contains("refreshForever(_:) at main.swift:\(sleep)") })
    }

    @Test("Who holds an object a task keeps: the task, by where it waits, as a user asks")
    func whoHoldsNamesTheTask() throws {
        let target = try AttachTargets.start("attach-tasks")
        _ = try Self.settledDump(of: target)
        let sleep = try Self.line("sleep-loop")
        let place =
            "held by a Task suspended in refreshForever(_:) at main.swift:\(sleep), awaiting "
            + "Task.sleep(for:tolerance:clock:)"

        // The API: tasks read in the same stop, named as holders.
        let (heap, tasks) = try HeapSnapshot.captureWithTasks(processID: target.pid)
        let named = heap.namingTaskHolders(tasks)
        let refreshers = named.objects(ofType: "attach_tasks.Refresher")
        let groups = named.holdingGroups(of: refreshers)
        #expect(groups.count == 1)
        #expect(groups.first?.summary(in: named) == place)
        // Naming changes the graph only: every object keeps the counts the attach read (its
        // retain count, its references from outside the heap), which the test of stale words
        // in leaked cycles reads.
        let objects = (0..<Int32(heap.objectCount)).map(HeapObjectID.init(rawValue:))
        #expect(objects.contains { heap[$0].retainCount != nil })
        for id in objects {
            #expect(named[id].retainCount == heap[id].retainCount)
            #expect(named[id].outsideReferences == heap[id].outsideReferences)
        }

        // The command line, as the README shows it.
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        let run = try AttachCommandTests.run(
            tool, ["attach", "\(target.pid)", "--who-holds", "attach_tasks.Refresher"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("1 " + place + "; e.g. attach_tasks.Refresher at 0x"))
    }
}
