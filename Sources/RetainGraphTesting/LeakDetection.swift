import Foundation
import LeakTracking
import ReferenceReflection
import RetainGraph

/// How a test's leak check runs: the grace period, the graph, the accepted leaks.
///
/// Shared by the Swift Testing trait (``LeakDetectionTrait``) and the XCTest helpers.
public struct LeakDetectionOptions: Sendable {
    /// The grace period of watches that give none. Short, so tests stay fast.
    public var grace: Duration
    /// The graph that explains leaks; ``/RetainGraph/LiveGraph/shared`` by default.
    public var graph: LiveGraph
    /// Leaks that are reported but do not fail the test.
    public var knownLeaks: [KnownLeak]
    /// How long the check may wait for watched objects to die (beyond their grace, for
    /// pending one-shot timers).
    public var timeout: Duration
    /// The discoverers that find references nobody declared: reflection (the watched objects'
    /// stored properties and closure captures) plus whatever `DiscoveryRegistry`
    /// holds, unless given.
    public var discovery: ReferenceDiscovery
    /// Where the test's leak and zombie reports go, besides the issue it records: these, the
    /// sinks of ``/LeakTracking/LeakWatcher/shared``, the directory that `RETAINGRAPH_REPORTS`
    /// names (``/LeakTracking/DirectorySink/fromEnvironment``), and any sink the test adds to
    /// ``/LeakTracking/LeakWatcher/current``.
    public var sinks: [any LeakReportSink]

    /// Creates options.
    ///
    /// - Parameters:
    ///   - grace: The default grace period; 100 ms unless given.
    ///   - graph: The graph; ``/RetainGraph/LiveGraph/shared`` unless given.
    ///   - knownLeaks: Leaks to accept, each with its reason.
    ///   - timeout: The longest the check waits; 10 s unless given.
    ///   - discovery: The discoverers; reflection plus the registered ones unless given
    ///     (`.registered` for the registered ones only, `.none` for declared edges only).
    ///   - sinks: More places for the reports (see ``sinks``).
    public init(
        grace: Duration = .milliseconds(100), graph: LiveGraph = .shared,
        knownLeaks: [KnownLeak] = [], timeout: Duration = .seconds(10),
        discovery: ReferenceDiscovery = .reflection, sinks: [any LeakReportSink] = []
    ) {
        self.grace = grace
        self.graph = graph
        self.knownLeaks = knownLeaks
        self.timeout = timeout
        self.discovery = discovery
        self.sinks = sinks
    }

    /// A fresh watcher for one test, sending its reports to ``sinks``, the shared watcher's
    /// sinks and the `RETAINGRAPH_REPORTS` directory.
    public func makeWatcher() -> LeakWatcher {
        LeakWatcher(
            graph: graph, defaultGrace: grace, knownLeaks: knownLeaks,
            sinks: sinks + LeakWatcher.shared.sinks
                + (DirectorySink.fromEnvironment.map { [$0] } ?? []),
            discovery: discovery)
    }
}

/// Runs `body` with a fresh ``/LeakTracking/LeakWatcher`` as ``/LeakTracking/LeakWatcher/current``,
/// then waits for the objects it was told to expect dead, sends the leak and zombie reports to
/// the sinks (``LeakDetectionOptions/sinks``), and returns the leaks and zombies no known leak
/// allows.
///
/// This is the check behind `@Test(.detectsLeaks)`, for code that wants the verdicts itself.
/// The watcher exists only for the call, so watches never outlive it, whether `body` returns,
/// throws or records issues.
///
/// ```swift
/// let leaks = try await withLeakDetection {
///     let screen = Screen()
///     screen.close()
///     LeakWatcher.current.expectDeallocation(of: screen, reason: "closed")
/// }
/// #expect(leaks.isEmpty)
/// ```
///
/// - Parameters:
///   - options: Grace, graph, accepted leaks and timeout.
///   - body: The code under test.
/// - Returns: The unexpected ``/LeakTracking/Verdict/leak`` and ``/LeakTracking/Verdict/zombie``
///   verdicts, each with its report. Empty when `body` throws (its error is rethrown).
/// - Throws: What `body` throws.
public func withLeakDetection(
    _ options: LeakDetectionOptions = LeakDetectionOptions(),
    _ body: () async throws -> Void
) async throws -> [WatchVerdict] {
    let watcher = options.makeWatcher()
    defer { watcher.removeAll() }
    try await LeakWatcher.$current.withValue(watcher) {
        try await body()
    }
    let verdicts = await watcher.settled(timeout: options.timeout)
    watcher.deliver(verdicts)
    return TaskHolderNames.naming(verdicts.filter(\.isUnexpectedProblem))
}

extension WatchVerdict {
    /// The text a failing test shows for this verdict: the full report (or the summary), then
    /// where the watch was made, such as `Watched at MyAppTests/ScreenTests.swift:12:9`.
    ///
    /// The last line matters where a failure carries no location of its own: `swift test
    /// --xunit-output` writes the text into the failure's `message` but no file or line.
    public var failureMessage: String {
        if let report, report.watchLocation != nil { return report.text }
        let text = report?.text ?? "\(verdict.rawValue): \(typeName) — \(summary) (\(reason))"
        return text + "\nWatched at \(location)"
    }
}
