import ProcessAttach
import Testing

/// A Swift Testing trait that fails a test which leaves a task it started alive: suspended on
/// a continuation nobody resumes, in a loop nobody cancels, or still running when the test
/// ends.
///
/// Apply it to a test or a suite (it applies to every test of the suite). After the test body
/// returns, the trait drives the tasks the test started (created by the test's function while
/// it ran, as the heap census saw them) until they end or the grace period is over, then
/// records one issue per task left, at the line that started it, naming the function and line
/// where it waits, what it awaits (`Task.sleep`, `withCheckedContinuation`, an `AsyncStream`
/// iterator…) and its async backtrace (see
/// ``withLeakedTaskDetection(grace:startedIn:function:isolation:_:)``).
///
/// ```swift
/// @Test(.detectsLeakedTasks)
/// func stoppingThePollerEndsItsTask() async {
///     let poller = Poller()
///     poller.start()
///     poller.stop()         // forget it, and the test fails at poller.start()'s Task
/// }
/// ```
///
/// When the test body throws, its error is rethrown and tasks are not checked.
public struct TaskLeakDetectionTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long the test's tasks may take to end after its body returns.
    public var grace: Duration

    /// Creates the trait.
    ///
    /// - Parameter grace: How long the tasks may take to end after the body returns.
    public init(grace: Duration = .seconds(1)) {
        self.grace = grace
    }

    /// Applied to each test of a suite, not once around the whole suite.
    public var isRecursive: Bool { true }

    /// Runs the test, then records an issue per task it left alive.
    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let file = test.sourceLocation.filePath
        let leaked = try await withLeakedTaskDetection(
            grace: grace, startedIn: file, function: Self.functionName(of: test)
        ) {
            try await function()
        }
        for task in leaked {
            Issue.record(
                Comment(rawValue: task.failureMessage),
                sourceLocation: task.sourceLocation(in: test.sourceLocation))
        }
    }
}

extension TaskLeakDetectionTrait {
    /// The part of a demangled name that names the test's function: `.Suite.test(` (its
    /// enclosing types and base name), so that a closure in it matches too.
    static func functionName(of test: Test) -> String {
        let base = test.name.prefix { $0 != "(" }
        let types = test.id.nameComponents.dropLast()
        return "." + (types + [String(base)]).joined(separator: ".") + "("
    }
}

extension LeakedTask {
    /// Where the task was started, when that is in the test's file; else the test's location.
    func sourceLocation(in test: SourceLocation) -> SourceLocation {
        guard let frame = createdAt, let file = frame.file, file == test.filePath,
            let line = frame.line, line > 0
        else { return test }
        return SourceLocation(
            fileID: test.fileID, filePath: file, line: line, column: max(frame.column ?? 1, 1))
    }
}

extension Trait where Self == TaskLeakDetectionTrait {
    /// Fails the test if a task it started is still alive one second after it ends.
    public static var detectsLeakedTasks: Self { TaskLeakDetectionTrait() }

    /// Fails the test if a task it started is still alive `grace` after it ends.
    ///
    /// - Parameter grace: How long the tasks may take to end.
    /// - Returns: The trait.
    public static func detectsLeakedTasks(grace: Duration) -> Self {
        TaskLeakDetectionTrait(grace: grace)
    }
}
