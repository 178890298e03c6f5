import Foundation
import ProcessAttach
import Testing

/// Names and counts a user takes literally (issue 31), read from outside the fixture
/// `attach-literal-names`: N tasks asleep in `Task.sleep`, an `AsyncStream`'s continuation kept
/// by a watcher, a global dictionary whose keys are heap strings, and a thread named before
/// `start()`.
@Suite("Names and counts taken literally", .timeLimit(.minutes(10)))
struct LiteralNamesTests {
    static let tasks = 12

    /// Attaches until every task of the fixture is asleep (each sleep's wake-up task exists:
    /// the fixture says it is ready once its tasks reach their sleep), at most 60 s.
    static func asleep(_ target: RunningTarget) throws -> HeapSnapshot {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let heap = try HeapSnapshot.capture(processID: target.pid)
            let wakeUps = heap.objects(ofType: "wake-up task of a Task.sleep (runtime)").count
            if wakeUps >= tasks || ContinuousClock.now > deadline { return heap }
        }
    }

    @Test("N sleeping tasks are N objects named Task, each sleep's wake-up named as the runtime's")
    func sleepingTasksAreCountedAsTasks() throws {
        let target = try AttachTargets.start("attach-literal-names", ["\(Self.tasks)"])
        let heap = try Self.asleep(target)
        let top = heap.topText(limit: 40)
        #expect(heap.objects(ofType: "Task").count == Self.tasks, "\(top)")
        #expect(heap.objects(ofType: "wake-up task of a Task.sleep (runtime)").count == Self.tasks)
        #expect(
            heap.objects(ofType: "wake-up closure of a Task.sleep (runtime)").count == Self.tasks)
        // Each task's closure, and the generic thunk `Task.init` wraps it in, named after it.
        #expect(
            heap.objects(ofType: "closure context (captures Actor, Sleeper)").count
                == Self.tasks, "\(top)")
        #expect(
            heap.objects(ofType: "thunk of closure context (captures Actor, Sleeper)").count
                == Self.tasks, "\(top)")
        #expect(heap.objects(ofType: "closure context").isEmpty, "\(top)")
        // Each sleeper is held by its own task, named `Task`.
        let sleepers = heap.objects(ofType: "attach_literal_names.Sleeper")
        #expect(sleepers.count == Self.tasks)
        var holders = Set<UInt>()
        for sleeper in sleepers {
            let path = heap.retentionPath(to: sleeper)
            #expect(path?.holder == .task, "\(path?.description ?? "no path")")
            #expect(path?.objects.first?.typeName == "Task", "\(path?.description ?? "no path")")
            if let task = path?.objects.first?.address { holders.insert(task) }
        }
        #expect(holders.count == Self.tasks)
        // A wake-up runs the runtime's closure.
        for wakeUp in heap.objects(ofType: "wake-up task of a Task.sleep (runtime)") {
            let runs = heap.references(from: wakeUp).map { heap[$0.to].typeName }
            #expect(runs.contains("wake-up closure of a Task.sleep (runtime)"), "\(runs)")
        }
        #expect(!heap.limitations.contains { $0.hasPrefix("wake-up closure of a Task.sleep") })
    }

    @Test("A global dictionary's heap string keys are held by the global, not from outside")
    func stringKeysAreHeldByTheGlobal() throws {
        let target = try AttachTargets.start("attach-literal-names", ["\(Self.tasks)"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let paths = heap.objects(ofType: "String storage").compactMap { heap.retentionPath(to: $0) }
        let keys = paths.filter {
            guard case .globalVariable(let name) = $0.holder else { return false }
            return name.hasPrefix("attach_literal_names.sessionsByName")
        }
        #expect(keys.count == 8, "\(paths.map(\.description))")
        #expect(keys.allSatisfy { $0.references.last?.label == "key of [String: Session]" })
        #expect(
            !paths.contains { $0.holder.kind == .outside },
            "\(paths.filter { $0.holder.kind == .outside }.map(\.description))")
    }

    @Test("A thread named before start() is an unnamed thread, with the advice to name it inside")
    func threadNamedBeforeStartIsUnnamed() throws {
        let target = try AttachTargets.start("attach-literal-names", ["\(Self.tasks)"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let owner = try #require(heap.objects(ofType: "attach_literal_names.ThreadOwner").first)
        let path = try #require(heap.retentionPath(to: owner))
        #expect(path.holder == .thread(name: nil), "\(path.description)")
        #expect(path.holder.description.contains("Thread.name set before start() is dropped"))
        #expect(
            heap.whoHoldsText("attach_literal_names.ThreadOwner").contains(
                "held by a running Thread with no name of its own"))
    }

    @Test("AsyncStream's types keep their generic arguments, with no empty <>")
    func asyncStreamTypesKeepTheirArguments() throws {
        let target = try AttachTargets.start("attach-literal-names", ["\(Self.tasks)"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let names = heap.countsByType().map(\.typeName)
        let streams = names.filter { $0.contains("AsyncStream") }
        #expect(!streams.isEmpty, "\(names)")
        #expect(!names.contains { $0.contains("<>") }, "\(names.filter { $0.contains("<>") })")
        #expect(
            streams.allSatisfy { $0.contains("AsyncStream<attach_literal_names.ConfigChange>") },
            "\(streams)")
        #expect(streams.contains("Swift.AsyncStream<attach_literal_names.ConfigChange>._Storage"))
    }

    @Test("retain-graph attach's top list counts the sleeping tasks as tasks")
    func topListCountsTasks() throws {
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        let target = try AttachTargets.start("attach-literal-names", ["\(Self.tasks)"])
        _ = try Self.asleep(target)
        let run = try AttachCommandTests.run(tool, ["attach", "\(target.pid)", "--top", "40"])
        #expect(run.status == 0, "\(run.error)")
        // `      12     3.0 KiB  Task`: columns apart by two spaces or more.
        let rows = run.output.split(separator: "\n").map {
            $0.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
        }
        let counts = Dictionary(
            rows.compactMap { $0.count == 3 ? ($0[2], $0[0]) : nil },
            uniquingKeysWith: { first, _ in first })
        #expect(counts["Task"] == "\(Self.tasks)", "\(run.output)")
        #expect(
            counts["wake-up task of a Task.sleep (runtime)"] == "\(Self.tasks)", "\(run.output)")
    }
}
