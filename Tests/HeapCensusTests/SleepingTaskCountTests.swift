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
    static let wakeUpTask = "wake-up task of a Task.sleep (runtime)"
    static let wakeUpClosure = "wake-up closure of a Task.sleep (runtime)"

    init() { HeapCensus.start() }

    /// Runs many short tasks whose frames point at live closure contexts across a suspension,
    /// then lets them end: the blocks of the tasks made next (the sleeps' wake-ups among them,
    /// as large as these) come from memory full of such stale words, as in a long-running
    /// process.
    private func churnTaskMemory(_ closures: [@Sendable () -> Int]) async {
        for round in 0..<8 {
            let tasks = (0..<50).map { index in
                let closure = closures[(round + index) % closures.count]
                return Task.detached {
                    let kept = closure
                    await Task.yield()
                    _ = kept()
                }
            }
            for task in tasks { await task.value }
        }
    }

    @Test func tenSleepingTasksAreTenTasksEachWithItsRuntimeWakeUp() async throws {
        let count = 10
        let closures: [@Sendable () -> Int] = (0..<50).map { index in
            let sleeper = CountedSleeper()
            return { withExtendedLifetime(sleeper) { index } }
        }
        await churnTaskMemory(closures)
        // Wake-ups outlive a cancelled sleep (until their deadline): earlier tests' are here.
        let before = HeapCensus.counts().addresses(ofType: Self.wakeUpClosure)
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

        // Drive until every task is asleep: its wake-up's closure exists (the census's counts
        // name closures by their layout; other tests' sleeps may add more, never fewer).
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let wakeUps = HeapCensus.counts().addresses(ofType: Self.wakeUpClosure)
                .subtracting(before).count
            if asleep.value.load(ordering: .sequentiallyConsistent) == count, wakeUps >= count {
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let heap = HeapCensus.snapshot()

        // Each of the ten tasks holds its sleeper, and no sleeper is held by a wake-up: every
        // path from a task starts at a `Task`. (Other tasks may hold the churn's sleepers too:
        // this test's own task keeps `closures` in its frame, which its allocator may place
        // in the memory the census reads, depending on the tests that ran before.)
        let ours = Set(tasks.map { unsafeBitCast($0, to: UInt.self) })
        let held = heap.objects(ofType: "HeapCensusTests.CountedSleeper")
            .compactMap { heap.retentionPath(to: $0) }.filter { $0.holder == .task }
        let holders = Set(held.compactMap { $0.objects.first?.address })
        #expect(ours.isSubset(of: holders), "\(held.map(\.description))")
        for path in held {
            #expect(path.objects.first?.typeName == "Task", "\(path.description)")
        }
        // Every sleep's wake-up is named as the runtime's, whatever stale words its memory
        // holds, and runs the runtime's closure.
        let wakeUps = heap.objects(ofType: Self.wakeUpTask)
        #expect(wakeUps.count >= count, "\(heap.topText(limit: 30))")
        for wakeUp in wakeUps {
            let runs = heap.references(from: wakeUp).map { heap[$0.to].typeName }
            #expect(runs.contains(Self.wakeUpClosure), "\(runs)")
        }
        withExtendedLifetime(closures) {}
    }
}
