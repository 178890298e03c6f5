import HeapCensus
import ProcessAttach
import StackTraces

/// A task a test started that is still alive when the test ends: suspended on a continuation
/// nobody resumes, in a loop nobody cancels, or still running past the grace period.
///
/// Found by ``withLeakedTaskDetection(grace:startedIn:function:isolation:_:)`` (the engine of the
/// ``TaskLeakDetectionTrait`` trait and of `XCTestCase.detectLeakedTasks(within:file:line:)`):
/// the task as the remote mirror reads it (``task``: its state, where it waits, what it
/// awaits) and where the census saw it created (``createdAt``).
public struct LeakedTask: Sendable {
    /// The task, as it was when the grace period ended; nil when this process's tasks cannot
    /// be read (``/ProcessAttach/TaskInspection/thisProcessUnavailableReason`` says why): only its address is
    /// known then.
    public let task: AsyncTaskInfo?
    /// The task object's address.
    public let address: UInt
    /// Where the census saw it created, if it kept the stack.
    public let creationSite: CreationSite?
    /// The frame of the creation stack in the test's own file, else the first frame of the
    /// program's own code: the line that started the task.
    public let createdAt: StackFrame?

    /// The failure's text: `Task 12 started by this test is still suspended when it ends, in
    /// Poller.run() at Poller.swift:40, awaiting Task.sleep(for:tolerance:clock:); created at
    /// PollerTests.swift:17`, with the task's async backtrace below.
    public var failureMessage: String {
        var text = task.map { "Task \($0.id)" } ?? "A task at 0x\(String(address, radix: 16))"
        text += " started by this test is still "
        if let task {
            text += "\(task.state) when it ends"
            if let waiting = task.waitingFrame {
                text += ", in " + Self.name(waiting)
                if let location = Self.location(waiting) { text += " at " + location }
            }
            if let awaiting = task.awaiting { text += ", awaiting " + awaiting }
            if task.isCancelled { text += " (cancelled)" }
        } else {
            text += "alive when it ends"
            if let reason = TaskInspection.thisProcessUnavailableReason {
                text += " (its state cannot be read: \(reason))"
            }
        }
        if let createdAt, let location = Self.location(createdAt) {
            text += "; created at " + location
        }
        if let task, !task.backtrace.isEmpty {
            text += "\n  async backtrace:"
            for frame in task.backtrace {
                text += "\n    " + Self.name(frame)
                if let location = Self.location(frame) { text += " at " + location }
            }
        }
        return text
    }

    static func name(_ frame: StackFrame) -> String { AsyncTaskInfo.shortName(of: frame) }

    static func location(_ frame: StackFrame) -> String? { AsyncTaskInfo.location(of: frame) }
}
