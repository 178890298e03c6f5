import Foundation
import HeapCensus
import LeakTracking
import RetainGraphTesting
import Testing

/// The README's census test without `session.close()`: the report starts from the `Task`,
/// named by where it waits.
@Suite("README: a session never closed fails the test with the path from its Task")
struct ForgottenCloseTests {
    @Test("The report's path runs from the Task to the capture of the session")
    func reportShowsThePathFromTheTask() async throws {
        HeapCensus.start()
        let kept = KeptSessions()
        let test = try #require(Test.current)
        try await withKnownIssue("a session that is never closed leaks") {
            try await LeakDetectionTrait.detectsLeaks.provideScope(
                for: test, testCase: Test.Case.current
            ) {
                let session = Session()
                session.start()
                kept.keep(session)
                LeakWatcher.current.expectDeallocation(of: session, reason: "session closed")
            }
        } matching: { issue in
            kept.record(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return issue.comments.contains { $0.rawValue.hasPrefix("LEAK: ReadmeTests.Session") }
        }
        kept.closeAll()
        let text = try #require(kept.text)
        // The task is named by where it is (suspended in its sleep, or not yet started: in
        // the closure either way).
        let root = text.split(separator: "\n").first { $0.contains("GC root: a Task ") }
        #expect(root?.contains(" in closure #1 in Session.start()") == true, "\(text)")
        #expect(text.contains("↓ strong · captures Session (found in the heap)"))
        #expect(text.contains("Hint: the Task's closure captures Session strongly"))
    }
}

/// Sessions kept past the trait's scope (weakly) and the issue text.
final class KeptSessions: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [() -> Session?] = []
    private(set) var text: String?

    func keep(_ session: Session) {
        lock.withLock { sessions.append { [weak session] in session } }
    }
    func record(_ text: String) { lock.withLock { self.text = self.text ?? text } }
    func closeAll() {
        lock.withLock {
            for session in sessions { session()?.close() }
        }
    }
}
