import Foundation
import RetainGraphTesting
import Testing

/// Whether this process is the child run that ``TaskLeakTraitTests`` starts: only then do the
/// planted task leaks below run (and fail, on purpose).
let isPlantedTaskLeakChild =
    ProcessInfo.processInfo.environment["RETAINGRAPH_PLANTED_TASK_LEAK_CHILD"] == "1"

/// Tests that leave a task behind on purpose, run only in a child process so that their
/// failures can be read from what Swift Testing writes.
@Suite("Planted task leaks (run only in TaskLeakTraitTests' child process)")
struct PlantedTaskLeakChild {
    @Test(
        "A task parked on a continuation nobody resumes",
        .enabled(if: isPlantedTaskLeakChild), .detectsLeakedTasks(grace: .milliseconds(20)))
    func plantedContinuation() async {
        let parked = ParkedContinuations()
        // planted-task: TaskLeakTraitTests expects the issue on the next line.
        Task { await parkUntilResumed(parked) }
        await parked.waitUntilParked(1)
        // The child process exits after the run: the task ends with it.
    }

    @Test(
        "A sleep loop nobody cancels",
        .enabled(if: isPlantedTaskLeakChild), .detectsLeakedTasks(grace: .milliseconds(20)))
    func plantedLoop() async {
        let started = ParkedContinuations()
        // planted-loop: TaskLeakTraitTests expects the issue on the next line.
        Task { await sleepUntilCancelled(started) }
        await started.waitUntilCounted(1)
    }

    @Test(
        "A loop the test cancels, and a task that finishes",
        .enabled(if: isPlantedTaskLeakChild), .detectsLeakedTasks(grace: .seconds(10)))
    func cleanTasks() async {
        let loop = Task { await sleepUntilCancelled() }
        loop.cancel()
        Task { try? await Task.sleep(for: .milliseconds(10)) }
    }
}
