// PRIVATE SWIFT RUNTIME DETAILS (Swift 6.3's concurrency library): the task every `Task.sleep`
// makes to wake the task that sleeps.
//
// stdlib/public/Concurrency/TaskSleep.swift (`sleep(nanoseconds:)`) and TaskSleepDuration.swift
// (`_sleep(until:tolerance:clock:)`, behind `sleep(for:)`, `sleep(until:)` and `Clock.sleep`)
// both suspend the sleeping task on a continuation, then:
//
//     let (sleepTask, _) = Builtin.createAsyncTask(sleepTaskFlags) {
//       unsafe onSleepWake(token)
//     }
//     … executor.enqueue(ExecutorJob(context: Builtin.convertTaskToJob(sleepTask)), at: …)
//
// So each sleep has a second, real `AsyncTask` (same `taskHeapMetadata`, a future, never started
// until its deadline: `enqueueJob: false`), held by the executor's timer, running a closure
// whose context the runtime's own image emits with one capture, `token`, of type
// `Task<Never, Never>.UnsafeSleepStateToken` (a pointer to a word holding the sleeping task's
// continuation). Nothing in the task's header tells it from the program's tasks (its job flags
// are a plain future's: TaskCreateFlags' `copyTaskLocals`/`inheritContext` are not kept), so
// the readers tell it by that closure: the closure context is named by its capture's type (a
// fact of its metadata), and a task whose first closure context (the one in the
// `FutureAsyncContextPrefix` of its first async context: IndirectResult, AsyncEntryPoint,
// ClosureContext, ErrorResult, in RemoteInspection's RuntimeInternals.h) is such a context is
// named after it (HeapGraph's builder, `EdgeColumns.sleepWakeUpTasks`).

/// The names the readers give the objects the concurrency runtime makes for itself, so that a
/// count of `Task` is a count of the program's tasks.
package enum RuntimeTasks {
    /// The type name of the task a `Task.sleep` makes to wake the sleeping task at its
    /// deadline (one per sleeping task, held by the executor's timer).
    package static let sleepWakeUpTask = "wake-up task of a Task.sleep (runtime)"

    /// The type name of the closure context that task runs (it captures the sleep's state
    /// word, which holds the sleeping task's continuation).
    package static let sleepWakeUpClosure = "wake-up closure of a Task.sleep (runtime)"

    /// The type names a task is given: the program's, and the runtime's own.
    package static let taskTypeNames = [HeapObjectKind.task.genericName, sleepWakeUpTask]

    /// Whether a closure context whose capture descriptor lists captures of these types
    /// (qualified names, as the metadata sources spell them) is a `Task.sleep`'s wake-up
    /// closure: exactly one capture, of the standard library's
    /// `Task<Never, Never>.UnsafeSleepStateToken`. The type is nested in a constrained
    /// extension, which readers spell differently (`Swift.Task<Swift.Never,
    /// Swift.Never>.UnsafeSleepStateToken`, `(extension in Swift):…`, or `Swift.…` when only
    /// its module and name are known): the rule asks for its name and its module.
    ///
    /// - Parameter captureTypeNames: The qualified names of the capture types, in order.
    /// - Returns: Whether the context is the runtime's wake-up closure.
    package static func isSleepWakeUpClosure(captureTypeNames: [String]) -> Bool {
        guard captureTypeNames.count == 1, let name = captureTypeNames.first,
            name.hasSuffix(".UnsafeSleepStateToken")
        else { return false }
        let modules = [
            "Swift.", "_Concurrency.", "(extension in Swift):", "(extension in _Concurrency):",
        ]
        return modules.contains { name.hasPrefix($0) }
    }
}
