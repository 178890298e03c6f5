import Foundation
import HeapCensus
import Synchronization
import Testing

/// What each sleeping task of `SleepingTaskCountTests` captures: one per task.
final class CountedSleeper: Sendable {}

/// How many of the tasks reached their sleep.
final class AsleepCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Tasks counted as tasks (issue 31): each `Task.sleep` makes a second task in the runtime, to
/// wake the sleeper at its deadline; the census names it after what it is, so that `Task`
/// counts the program's tasks.
@Suite(.serialized) struct SleepingTaskCountTests {
    init() { HeapCensus.start() }

    @Test func tenSleepingTasksAreTenTasksEachWithItsRuntimeWakeUp() throws {
        let count = 10
        let asleep = AsleepCount()
        let tasks = (0..<count).map { _ in
            let sleeper = CountedSleeper()
            return Task.detached {
                asleep.value.add(1, ordering: .sequentiallyConsistent)
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(3600))
                    _ = sleeper
                }
            }
        }
        defer { for task in tasks { task.cancel() } }

        // Drive until every task is asleep: its wake-up task exists (other tests' sleeping
        // tasks may add more wake-ups, never fewer).
        let deadline = ContinuousClock.now + .seconds(60)
        var heap = HeapCensus.snapshot()
        while ContinuousClock.now < deadline {
            heap = HeapCensus.snapshot()
            let wakeUps = heap.objects(ofType: "wake-up task of a Task.sleep (runtime)").count
            if asleep.value.load(ordering: .sequentiallyConsistent) == count, wakeUps >= count {
                break
            }
            Thread.sleep(forTimeInterval: 0.005)
        }

        // Each sleeper is held by a task named `Task`, and by no wake-up: ten tasks.
        let sleepers = heap.objects(ofType: "HeapCensusTests.CountedSleeper")
        #expect(sleepers.count == count)
        let holders = Set(
            sleepers.compactMap { heap.retentionPath(to: $0)?.objects.first?.address })
        #expect(holders.count == count)
        for sleeper in sleepers {
            let path = heap.retentionPath(to: sleeper)
            #expect(path?.holder == .task, "\(path?.description ?? "no path")")
            #expect(path?.objects.first?.typeName == "Task", "\(path?.description ?? "no path")")
        }
        // Every wake-up runs the runtime's wake-up closure and nothing of the program's.
        let wakeUps = heap.objects(ofType: "wake-up task of a Task.sleep (runtime)")
        #expect(wakeUps.count >= count, "\(heap.topText(limit: 30))")
        for wakeUp in wakeUps {
            let runs = heap.references(from: wakeUp).map { heap[$0.to].typeName }
            // (A task is read conservatively: a stale word may point at any object.)
            #expect(runs.contains("wake-up closure of a Task.sleep (runtime)"), "\(runs)")
            #expect(
                !runs.contains { $0.hasPrefix("closure context") || $0.hasPrefix("thunk of") },
                "\(runs)")
        }
        // A task named `Task` never runs the wake-up closure.
        for task in heap.objects(ofType: "Task") {
            let runs = heap.references(from: task).map { heap[$0.to].typeName }
            #expect(!runs.contains("wake-up closure of a Task.sleep (runtime)"), "\(runs)")
        }
    }
}
