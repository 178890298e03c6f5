import LeakTracking
import ReferenceReflection
import RetainGraph
import Testing

/// A Swift Testing trait that fails a test whose objects, expected to die, did not.
///
/// Apply it to a test or a suite (it applies to every test of the suite). Inside the test,
/// ``/LeakTracking/LeakWatcher/current`` is a watcher of the test's own; after the test body
/// returns, the trait waits for the watched objects (their grace period, driven
/// deterministically by polling, never a blind sleep), and records one issue per leak or
/// zombie at the line of the `expectDeallocation` call, with the text report as the issue's
/// comment and the report's JSON and DOT attached (and, when a heap census is recording, the
/// heap the report was built from as a `.heapsnapshot` file for Chrome DevTools). The watcher is dropped afterwards,
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

    /// Runs the test with a fresh watcher and records an issue per unexpected leak, with the
    /// attachments the type's discussion lists (`swift test --attachments-path DIR` saves them).
    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let leaks = try await withLeakDetection(options) { try await function() }
        for leak in leaks {
            let location = leak.sourceLocation ?? test.sourceLocation
            if let report = leak.report {
                let name = report.attachmentBaseName
                if let json = try? report.jsonData() {
                    Attachment.record(Array(json), named: name + ".json", sourceLocation: location)
                }
                Attachment.record(report.dot, named: name + ".dot", sourceLocation: location)
                // The whole heap the report was built from, when the census was recording.
                if let heap = HeapSnapshotFiles.leak(leak) {
                    Attachment.record(
                        heap, named: name + ".heapsnapshot", sourceLocation: location)
                }
            }
            Issue.record(Comment(rawValue: leak.failureMessage), sourceLocation: location)
        }
    }
}

extension WatchVerdict {
    /// Where the watch was made, as Swift Testing locates issues; `nil` when the recorded
    /// location could not be one (a hand-written, empty or non-positive location).
    var sourceLocation: SourceLocation? {
        let site = location
        guard site.line > 0, site.column > 0, site.fileID.contains("/"), !site.filePath.isEmpty
        else { return nil }
        return SourceLocation(
            fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column)
    }
}

extension LeakReport {
    /// A file name for the report's attachments: the verdict, the leaked type and the
    /// fingerprint, such as `LEAK-ClockScreen-606ec871872e4140`.
    var attachmentBaseName: String {
        let type = subject.shortName.isEmpty ? "object" : subject.shortName
        let safe = type.map { $0.isLetter || $0.isNumber ? $0 : "_" }
        return "\(verdict.rawValue)-\(String(safe))-\(fingerprint)"
    }
}

extension Trait where Self == LeakDetectionTrait {
    /// Fails the test if an object it expected to die is still alive after a 100 ms grace
    /// period, or died while a timer keeps firing at it; the report explains it with the
    /// references reflection discovers from the watched objects.
    public static var detectsLeaks: Self { LeakDetectionTrait() }

    /// Fails the test on leaks, with options.
    ///
    /// The parameters are those of
    /// ``LeakDetectionOptions/init(grace:graph:knownLeaks:timeout:discovery:sinks:)``, with
    /// `allowing` for its `knownLeaks`: leaks to accept, each with its reason (like
    /// LeakCanary's `@SkipLeakDetection`).
    ///
    /// - Returns: The trait.
    public static func detectsLeaks(
        grace: Duration = .milliseconds(100), graph: LiveGraph = .shared,
        allowing knownLeaks: [KnownLeak] = [], timeout: Duration = .seconds(10),
        discovery: ReferenceDiscovery = .reflection, sinks: [any LeakReportSink] = []
    ) -> Self {
        LeakDetectionTrait(
            options: LeakDetectionOptions(
                grace: grace, graph: graph, knownLeaks: knownLeaks, timeout: timeout,
                discovery: discovery, sinks: sinks))
    }
}
