import Foundation
import Testing

/// What Swift Testing records of the `.detectsLeakedTasks` trait, read from a child run of this
/// very test bundle that runs only ``PlantedTaskLeakChild``'s tests.
@Suite(
    "What CI sees of a task a test leaves alive", .enabled(if: !isPlantedTaskLeakChild),
    .timeLimit(.minutes(10)))
struct TaskLeakTraitTests {
    /// A child run, handed between threads once made (it is read only).
    struct Run: @unchecked Sendable {
        let run: TestReportingTests.ChildRun
    }

    /// The child run, once for every test of this suite: waited for on a thread of its own,
    /// so that no thread of the cooperative pool blocks while the child runs (the other tests'
    /// tasks need them).
    static let child = Task {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        Run(
                            run: try TestReportingTests.runChild(
                                "PlantedTaskLeakChild",
                                enabledBy: "RETAINGRAPH_PLANTED_TASK_LEAK_CHILD"))
                    })
            }.start()
        }
    }

    /// The issues the child recorded: each one's line and comment.
    static func issues() async throws -> [(line: Int, comment: String)] {
        let run = try await child.value.run
        return TestReportingTests.payloads(run, kind: "issueRecorded").compactMap { payload in
            guard let issue = payload["issue"] as? [String: Any],
                let location = issue["sourceLocation"] as? [String: Any],
                let line = location["line"] as? Int
            else { return nil }
            let comments = (payload["messages"] as? [[String: Any]])?.compactMap {
                $0["text"] as? String
            }
            return (line, comments?.joined(separator: "\n") ?? "")
        }
    }

    /// LeakedTaskDetectionTests.swift, where the planted tasks wait.
    static let testsFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("LeakedTaskDetectionTests.swift").path

    /// The line after `marker` in PlantedTaskLeakChild.swift.
    static func plantedLine(_ marker: String) throws -> Int {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("PlantedTaskLeakChild.swift").path
        return try line(of: marker, in: source) + 1
    }

    @Test(
        "A never-resumed continuation fails at the line that started the task, naming where it waits"
    )
    func continuationFails() async throws {
        #expect(try await Self.child.value.run.status != 0)
        let startLine = try Self.plantedLine("// planted-task")
        let issues = try await Self.issues()
        let ending = try await Self.child.value.run.ending
        let issue = try #require(
            issues.first { $0.line == startLine }, "\(issues); the child: \(ending)")
        let waits = try line(of: "// wait: parked", in: Self.testsFile)
        #expect(issue.comment.contains("suspended when it ends"))
        #expect(
            issue.comment.contains(
                "in parkUntilResumed(_:) at LeakedTaskDetectionTests.swift:\(waits)"))
        #expect(issue.comment.contains("awaiting withCheckedContinuation(isolation:function:_:)"))
        #expect(issue.comment.contains("created at PlantedTaskLeakChild.swift:\(startLine)"))
    }

    @Test("A never-cancelled loop fails, awaiting Task.sleep; clean tests pass")
    func loopFailsCleanPasses() async throws {
        let startLine = try Self.plantedLine("// planted-loop")
        let issues = try await Self.issues()
        let ending = try await Self.child.value.run.ending
        let issue = try #require(
            issues.first { $0.line == startLine }, "\(issues); the child: \(ending)")
        #expect(
            issue.comment.contains("in sleepUntilCancelled(_:) at LeakedTaskDetectionTests.swift:"))
        #expect(issue.comment.contains("awaiting Task.sleep(for:tolerance:clock:)"))
        // Two issues in all: the clean test recorded none.
        #expect(issues.count == 2, "\(issues)")
    }
}
