import LeakTracking
import RetainGraphTesting
import Testing

/// Runs `body` under `.detectsLeaks` and expects the leak it records: the forgot-to-stop
/// variants are known issues, so the suite passes while their reports still name the holder,
/// the reference to cut and the fix.
///
/// The trait records its issue after the body returns, so the expectation wraps the trait's
/// scope (its public `provideScope`), not the body.
func expectingLeak(
    _ comment: Comment, _ body: @escaping @Sendable () async throws -> Void
) async throws {
    let test = try #require(Test.current)
    try await withKnownIssue(comment) {
        try await LeakDetectionTrait.detectsLeaks.provideScope(
            for: test, testCase: Test.Case.current, performing: body)
    } matching: { issue in
        issue.comments.contains { $0.rawValue.hasPrefix("LEAK: ") }
    }
}
