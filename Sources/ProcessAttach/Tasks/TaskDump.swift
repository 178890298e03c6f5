import HeapGraph
import ObjectGraph
import StackTraces

/// Every task of a process at one moment, what each waits for and what it keeps alive, grouped
/// by async backtrace as Go's goroutine dump groups goroutines by stack.
///
/// Made from a heap (``TaskInspection/dump(of:)``; `retain-graph attach PID --tasks`): every
/// object of type `Task` the heap read found, and their children, read through the remote
/// mirror; each task's retained size and the objects only it keeps alive come from the heap's
/// dominator tree (``/ObjectGraph/CompactGraph/dominatorTree()``). Tasks with the same state
/// and the same async backtrace form one ``TaskBacktraceGroup``: ten thousand tasks parked at
/// one line are one group of 10,000.
///
/// ```swift
/// let (heap, tasks) = try HeapSnapshot.captureWithTasks(processID: pid)
/// print(tasks.text())
/// // 1000 tasks suspended in parkOne() at main.swift:75, awaiting withCheckedContinuation(…)
/// ```
public struct TaskDump: Sendable {
    /// Every task read, by id.
    public let tasks: [AsyncTaskInfo]
    /// The tasks grouped by state and async backtrace, the largest group first (then by the
    /// lowest id).
    public let groups: [TaskBacktraceGroup]
    /// What could not be read (a task the mirror could not read, a missing symbolizer).
    public let limitations: [String]

    /// A dump of no task.
    public static let empty = TaskDump(tasks: [], limitations: [])

    /// A dump of `tasks`, grouped.
    init(tasks: [AsyncTaskInfo], limitations: [String]) {
        self.tasks = tasks.sorted { $0.id < $1.id }
        var byKey: [TaskBacktraceGroup.Key: [AsyncTaskInfo]] = [:]
        for task in self.tasks {
            byKey[TaskBacktraceGroup.Key(task), default: []].append(task)
        }
        groups = byKey.values.map(TaskBacktraceGroup.init(tasks:)).sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.tasks[0].id < $1.tasks[0].id
        }
        self.limitations = limitations
    }

    /// The dump of the tasks that satisfy `isIncluded`, grouped again.
    ///
    /// ```swift
    /// let stuck = dump.filtered { $0.state == .suspended && !$0.isRuntimeTask }
    /// ```
    public func filtered(_ isIncluded: (AsyncTaskInfo) -> Bool) -> TaskDump {
        TaskDump(tasks: tasks.filter(isIncluded), limitations: limitations)
    }

    /// The task at `address`, if the dump holds one there.
    public func task(at address: UInt) -> AsyncTaskInfo? {
        tasks.first { $0.address == address }
    }

    /// The tasks whose state is `state`.
    public func tasks(in state: TaskState) -> [AsyncTaskInfo] {
        tasks.filter { $0.state == state }
    }
}

/// Tasks with the same state and the same async backtrace: one line of a task dump, with its
/// count.
public struct TaskBacktraceGroup: Hashable, Sendable {
    struct Key: Hashable {
        var state: TaskState
        var isCancelled: Bool
        var addresses: [UInt]

        init(_ task: AsyncTaskInfo) {
            state = task.state
            isCancelled = task.isCancelled
            addresses = task.resumeAddresses
        }
    }

    /// The group's tasks, by id.
    public let tasks: [AsyncTaskInfo]

    /// The number of tasks.
    public var count: Int { tasks.count }
    /// Their state.
    public var state: TaskState { tasks[0].state }
    /// Their async backtrace, innermost first.
    public var frames: [StackFrame] { tasks[0].frames }
    /// Where they wait: the innermost frame of the program's own code.
    public var waitingFrame: StackFrame? { tasks[0].waitingFrame }
    /// The call they wait in.
    public var awaiting: String? { tasks[0].awaiting }
    /// The bytes they retain together (each task's retained size, summed).
    public var retainedBytes: UInt64 { tasks.reduce(0) { $0 + ($1.retained?.bytes ?? 0) } }

    /// `1000 tasks suspended in parkOne() at main.swift:75, awaiting withCheckedContinuation(…)`.
    public var title: String {
        let first = tasks[0]
        var text = count == 1 ? "1 task" : "\(count) tasks"
        text += " \(state)\(first.isCancelled ? " (cancelled)" : "")"
        if let waiting = waitingFrame {
            text += " in " + AsyncFunctionNames.short(waiting)
            if let location = AsyncFunctionNames.location(of: waiting) { text += " at " + location }
        } else if first.isRuntimeTask, let top = frames.first {
            text += " in the runtime's " + AsyncFunctionNames.short(top)
        }
        if let awaiting, waitingFrame != nil { text += ", awaiting " + awaiting }
        return text
    }

    init(tasks: [AsyncTaskInfo]) {
        self.tasks = tasks
    }
}

/// What a task keeps alive: itself and every object only it holds (the objects it dominates
/// in the heap's graph).
public struct TaskRetention: Hashable, Sendable {
    /// The bytes of the task and of every object only it keeps alive.
    public let bytes: UInt64
    /// The number of objects only it keeps alive (the task itself not counted).
    public let objects: Int
    /// Those objects' types, the most numerous first (at most 5).
    public let types: [HeapTypeCount]
}
