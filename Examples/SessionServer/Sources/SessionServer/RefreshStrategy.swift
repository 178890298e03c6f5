/// How a session keeps its credentials fresh, and whether it stops when the session ends.
///
/// Each session starts a repeating refresh when it opens. Three of the six strategies are the
/// leaks this example exists for: the refresh captures the session strongly and nothing cancels
/// it, so every ended session stays alive, held by its event loop's scheduled task or by its
/// `Task`. The other three are the usual fixes. The strategy is chosen by configuration
/// (``SessionServerConfiguration/refresh``), never by editing code:
///
/// ```sh
/// swift run session-server --refresh repeated-task-leaking
/// SESSION_SERVER_REFRESH=task-loop-cancelled swift run session-server
/// ```
public enum RefreshStrategy: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `eventLoop.scheduleRepeatedTask` with a closure that captures the session strongly,
    /// never cancelled: the event loop keeps every ended session. The leak.
    case repeatedTaskLeaking = "repeated-task-leaking"
    /// The same repeated task, cancelled when the session ends. A fix.
    case repeatedTaskCancelled = "repeated-task-cancelled"
    /// The same repeated task, capturing the session weakly and cancelling itself once the
    /// session is gone. A fix.
    case repeatedTaskWeak = "repeated-task-weak"
    /// A `Task` whose `Task.sleep` loop captures the session strongly, never cancelled: the
    /// task keeps every ended session. The leak.
    case taskLoopLeaking = "task-loop-leaking"
    /// The same `Task`, cancelled when the session ends. A fix.
    case taskLoopCancelled = "task-loop-cancelled"
    /// The same `Task`, capturing the session weakly and returning once it is gone. A fix.
    case taskLoopWeak = "task-loop-weak"

    /// The timer primitive a strategy refreshes with.
    public enum Mechanism: String, Sendable {
        /// `EventLoop.scheduleRepeatedTask(initialDelay:delay:_:)` on the connection's loop.
        case repeatedTask = "repeated task"
        /// `Task { while !Task.isCancelled { try await Task.sleep(for:); … } }`.
        case taskLoop = "Task sleep loop"
    }

    /// The timer primitive this strategy refreshes with.
    public var mechanism: Mechanism {
        switch self {
        case .repeatedTaskLeaking, .repeatedTaskCancelled, .repeatedTaskWeak: return .repeatedTask
        case .taskLoopLeaking, .taskLoopCancelled, .taskLoopWeak: return .taskLoop
        }
    }

    /// Whether ended sessions stay alive under this strategy (the refresh captures the session
    /// strongly and is never cancelled).
    public var leaksEndedSessions: Bool {
        self == .repeatedTaskLeaking || self == .taskLoopLeaking
    }

    /// Whether the refresh is cancelled when the session ends.
    var cancelsOnEnd: Bool {
        self == .repeatedTaskCancelled || self == .taskLoopCancelled
    }

    /// Whether the refresh captures the session weakly.
    var capturesWeakly: Bool {
        self == .repeatedTaskWeak || self == .taskLoopWeak
    }

    /// The strategy's configuration name, such as `repeated-task-leaking`.
    public var description: String { rawValue }

    /// The strategies whose ended sessions stay alive.
    public static var leaking: [RefreshStrategy] { allCases.filter(\.leaksEndedSessions) }

    /// The strategies whose ended sessions die.
    public static var fixed: [RefreshStrategy] { allCases.filter { !$0.leaksEndedSessions } }
}
