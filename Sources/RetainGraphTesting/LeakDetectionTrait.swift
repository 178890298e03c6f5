import LeakTracking
import RetainGraph
import Testing

/// A Swift Testing trait that fails a test whose objects, expected to die, did not.
///
/// Apply it to a test or a suite (it applies to every test of the suite). Inside the test,
/// ``/LeakTracking/LeakWatcher/current`` is a watcher of the test's own; after the test body
/// returns, the trait waits for the watched objects (their grace period, driven
/// deterministically by polling, never a blind sleep), and records one issue per leak or
/// zombie, with the text report as the issue's comment. The watcher is dropped afterwards,
/// even when the test fails, so one test's watches never poison the next.
///
/// ```swift
/// @Test(.detectsLeaks)
/// func closingTheScreenReleasesIt() {
///     let screen = ClockScreen()
///     screen.open()
///     screen.close()
///     LeakWatcher.current.expectDeallocation(of: screen, reason: "screen closed")
/// }
///
/// @Suite(.detectsLeaks(allowing: [.type(LegacyPoller.self, reason: "#42")]))
/// struct PollingTests { … }
/// ```
///
/// When the test body throws, its error is rethrown and leaks are not checked: an aborted
/// test leaves objects alive on purpose.
public struct LeakDetectionTrait: TestTrait, SuiteTrait, TestScoping {
    /// The options of the check.
    public var options: LeakDetectionOptions

    /// Creates the trait.
    ///
    /// - Parameter options: Grace, graph, accepted leaks and timeout.
    public init(options: LeakDetectionOptions = LeakDetectionOptions()) {
        self.options = options
    }

    /// Applied to each test of a suite, not once around the whole suite.
    public var isRecursive: Bool { true }

    /// Runs the test with a fresh watcher and records an issue per unexpected leak.
    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let leaks = try await withLeakDetection(options) { try await function() }
        for leak in leaks {
            Issue.record(
                Comment(rawValue: leak.failureMessage), sourceLocation: test.sourceLocation)
        }
    }
}

extension Trait where Self == LeakDetectionTrait {
    /// Fails the test if an object it expected to die is still alive after a 100 ms grace
    /// period, or died while a timer keeps firing at it.
    public static var detectsLeaks: Self { LeakDetectionTrait() }

    /// Fails the test on leaks, with options.
    ///
    /// - Parameters:
    ///   - grace: The default grace period.
    ///   - graph: The graph that explains leaks.
    ///   - knownLeaks: Leaks to accept, each with its reason (like LeakCanary's
    ///     `@SkipLeakDetection`).
    ///   - timeout: The longest the check waits.
    /// - Returns: The trait.
    public static func detectsLeaks(
        grace: Duration = .milliseconds(100), graph: LiveGraph = .shared,
        allowing knownLeaks: [KnownLeak] = [], timeout: Duration = .seconds(10)
    ) -> Self {
        LeakDetectionTrait(
            options: LeakDetectionOptions(
                grace: grace, graph: graph, knownLeaks: knownLeaks, timeout: timeout))
    }
}
