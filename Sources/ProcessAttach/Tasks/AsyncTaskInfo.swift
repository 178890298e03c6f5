import StackTraces

/// One `Task` of a process, as the concurrency runtime keeps it: its id, its state, its place
/// in the task tree, and where it is suspended.
///
/// Read by ``TaskInspection`` (a stopped process's copy, or this process) through the
/// toolchain's libswiftRemoteMirror, as `swift-inspect dump-concurrency` reads tasks on Apple
/// platforms. A suspended task's ``frames`` are its async backtrace: the function each of its
/// async frames resumes in, innermost first, with the file and line of the `await` it resumes
/// after. ``waitingFrame`` is the innermost frame of the program's own code (where it waits),
/// ``awaiting`` the call it waits in (`Task.sleep(for:tolerance:clock:)`,
/// `withCheckedContinuation(isolation:function:_:)`, `AsyncStream.Iterator.next(isolation:)`).
///
/// ```swift
/// let task = try TaskInspection(memory: memory).task(at: address)
/// print(task?.summary ?? "not a task")
/// // Task 7 (suspended) in refreshForever(_:) at main.swift:25, awaiting Task.sleep(for:tolerance:clock:)
/// ```
///
/// Every word it was read from is untrusted (a copy of another process, or this process's
/// tasks read while they run): its names are escaped, and its addresses are never followed in
/// this process.
public struct AsyncTaskInfo: Hashable, Sendable {
    /// Where the task object lies in the process it was read from.
    public let address: UInt
    /// The task's id (ids count up from 1 in a process).
    public let id: UInt64
    /// Whether it runs, waits in a queue, is suspended, or has ended.
    public let state: TaskState
    /// The priority it was enqueued with (`TaskPriority`'s raw value: 25 for `.medium`).
    public let priority: Int
    /// Whether it was cancelled.
    public let isCancelled: Bool
    /// How it relates to the task that started it.
    public let relation: TaskRelation
    /// Its parent task (for a task-group child or an `async let`), when the parent was read.
    public internal(set) var parent: UInt?
    /// Its child tasks (a task group's, an `async let`'s), in the runtime's order.
    public let children: [UInt]
    /// Its async backtrace, innermost first: each suspended frame's resume function, with the
    /// line it resumes at (a frame the compiler inlined comes before the one it was inlined
    /// into). Empty while it runs (a running task's frames are on a thread's stack).
    public let frames: [StackFrame]
    /// The resume addresses ``frames`` were made from, innermost first: what identical tasks
    /// share.
    public let resumeAddresses: [UInt]
    /// The actor it is on, when known (see ``TaskActor``).
    public internal(set) var actor: TaskActor?
    /// What it keeps alive, when it was read with its heap (``TaskInspection/dump(of:)``).
    public internal(set) var retained: TaskRetention?

    /// The innermost frame of the program's own code: where the task waits (nil when every
    /// frame is the runtime's or has no line, as for a task not started).
    public var waitingFrame: StackFrame? {
        frames.first(where: Self.isProgramFrame)
    }

    /// The call the task waits in: the frame just inside ``waitingFrame`` (the library call the
    /// program's code awaits), shortened (`Task.sleep(for:tolerance:clock:)`); nil when the
    /// program's own code suspends directly.
    public var awaiting: String? {
        guard let waiting = frames.firstIndex(where: Self.isProgramFrame) else {
            return frames.first.map(AsyncFunctionNames.short)
        }
        return frames[..<waiting].last { !$0.isThunk }.map(AsyncFunctionNames.short)
    }

    /// Whether every frame is in the Swift runtime's own libraries: a task the runtime made
    /// for itself (the timer of a `Task.sleep`). A task of the program's that has not started
    /// is not one: its entry point is in the program.
    public var isRuntimeTask: Bool {
        let own = frames.filter { !TaskInspection.isCompletion($0) }
        return !own.isEmpty && own.allSatisfy { $0.imageName?.hasPrefix("libswift") == true }
    }

    /// The frames a person reads: ``frames`` without compiler-generated thunks and without the
    /// runtime's task completion (every task's outermost frame).
    public var backtrace: [StackFrame] {
        frames.filter { !$0.isThunk && !TaskInspection.isCompletion($0) }
    }

    /// One line: `Task 7 (suspended) in refreshForever(_:) at main.swift:25, awaiting
    /// Task.sleep(for:tolerance:clock:)`.
    public var summary: String {
        var text = "Task \(id) (\(state)\(isCancelled ? ", cancelled" : ""))"
        if let waiting = waitingFrame {
            text += " in " + AsyncFunctionNames.short(waiting)
            if let location = AsyncFunctionNames.location(of: waiting) { text += " at " + location }
        }
        if let awaiting { text += ", awaiting " + awaiting }
        if let actor { text += ", " + actor.description }
        return text
    }

    /// The short name reports give a frame's function (`Task.sleep(for:tolerance:clock:)`,
    /// `closure #1 in Poller.start()`), escaped; its image and offset when it has no name.
    public static func shortName(of frame: StackFrame) -> String {
        AsyncFunctionNames.short(frame)
    }

    /// The frame's file name and line (`Poller.swift:40`), escaped; nil without a line.
    public static func location(of frame: StackFrame) -> String? {
        AsyncFunctionNames.location(of: frame)
    }

    /// Whether `frame` is the program's own code, with a line: not a thunk, not the runtime's,
    /// not compiler-generated.
    static func isProgramFrame(_ frame: StackFrame) -> Bool {
        !frame.isSystem && !frame.isThunk && frame.file != nil && frame.function != nil
    }

    init(
        address: UInt, info: MirrorTaskInfo, state: TaskState, frames: [StackFrame],
        resumeAddresses: [UInt]
    ) {
        self.address = address
        id = info.id
        self.state = state
        priority = info.enqueuePriority
        isCancelled = info.isCancelled
        relation =
            info.isAsyncLetTask
            ? .asyncLet
            : info.isGroupChildTask ? .groupChild : info.isChildTask ? .child : .unstructured
        children = info.children
        self.frames = frames
        self.resumeAddresses = resumeAddresses
    }
}

/// What a task is doing.
public enum TaskState: String, Hashable, Sendable, CustomStringConvertible {
    /// A thread runs it.
    case running
    /// It waits in an executor's queue (a thread pool's, an actor's) to run.
    case enqueued
    /// It waits for something to resume it (a continuation, a sleep's timer, a child task).
    case suspended
    /// It was created and has not run yet.
    case notStarted = "not started"
    /// It has ended; something still holds its handle (its result stays until released).
    case completed

    /// The state's name: `suspended`, `not started`.
    public var description: String { rawValue }
}

/// How a task relates to the task that started it.
public enum TaskRelation: String, Hashable, Sendable {
    /// `Task { }` or `Task.detached { }`: no parent.
    case unstructured
    /// A child of a task group (`addTask`).
    case groupChild = "task-group child"
    /// An `async let`'s task.
    case asyncLet = "async let"
    /// Another structured child.
    case child
}

/// The actor a task is on.
public struct TaskActor: Hashable, Sendable, CustomStringConvertible {
    /// How the task is on it.
    public enum Relation: String, Hashable, Sendable {
        /// The task waits in the actor's queue to run on it.
        case queued = "queued on"
        /// The task is suspended in one of the actor's isolated methods, and holds the actor.
        case isolated = "isolated to"
    }

    /// The actor object's address.
    public let address: UInt
    /// The actor's type (`App.Mailbox`).
    public let typeName: String
    /// How the task is on it.
    public let relation: Relation

    /// `isolated to actor App.Mailbox at 0x7f…`.
    public var description: String {
        "\(relation.rawValue) actor \(typeName) at 0x\(String(address, radix: 16))"
    }
}
