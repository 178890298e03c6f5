import Foundation
import HeapGrowth
import Testing

/// A Swift Testing trait that runs a test's body as a ``/HeapGrowth/HeapGrowth`` measurement and records an
/// issue, with the growth report, when the heap grows with the repetitions.
///
/// The body is the work: it runs once to warm up, then three times `repetitions` times (a
/// discovery round and two measured ones), so keep it to what one request, session or screen
/// does, and make it repeatable. The issue is recorded at the test's line, with the report's
/// text as its comment and its JSON attached, with the heap before and after the measurement as
/// two `.heapsnapshot` files numbered alike (`heap-growth-start`, `heap-growth-end`: load both
/// in Chrome DevTools' Memory panel and pick Comparison). In a parallel run the measurement counts what
/// the body made (see ``/HeapGrowth/HeapGrowth``); when other work changed the heap meanwhile and nothing
/// grew with the body, a warning says so (the test still passes).
///
/// ```swift
/// @Test(.heapMustNotGrow(repeating: 50))
/// func openingAndClosingASessionLeavesNothing() async throws {
///     try await server.openAndCloseSession()
/// }
/// ```
public struct HeapGrowthTrait: TestTrait, TestScoping {
    /// Repetitions per round.
    public var repetitions: Int

    /// Creates the trait.
    ///
    /// - Parameter repetitions: Repetitions per round (at least 10).
    public init(repetitions: Int) { self.repetitions = repetitions }

    /// Runs the body as the measured work and records an issue if a type grew.
    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let (report, snapshots) = try await HeapGrowth.measure(
            repeating: repetitions, warmUp: 1, keepingSnapshots: true,
            settle: { await HeapGrowth.defaultSettle() }, { try await function() })
        guard !report.isEmpty || !report.interference.isEmpty else { return }
        let location = test.sourceLocation
        if let json = try? report.jsonData() {
            Attachment.record(Array(json), named: "heap-growth.json", sourceLocation: location)
        }
        // The heap before and after, numbered alike for DevTools' Comparison view.
        if !report.isEmpty, let snapshots {
            let files = HeapSnapshotFiles.growth(snapshots)
            Attachment.record(
                files.start, named: "heap-growth-start.heapsnapshot", sourceLocation: location)
            Attachment.record(
                files.end, named: "heap-growth-end.heapsnapshot", sourceLocation: location)
        }
        Issue.record(
            Comment(rawValue: report.text), severity: report.isEmpty ? .warning : .error,
            sourceLocation: location)
    }
}

extension Trait where Self == HeapGrowthTrait {
    /// Fails the test when repeating its body grows the heap.
    ///
    /// - Parameter repetitions: Repetitions per round (at least 10).
    /// - Returns: The trait.
    public static func heapMustNotGrow(repeating repetitions: Int = 20) -> Self {
        HeapGrowthTrait(repetitions: repetitions)
    }
}
