import LeakTracking
import RetainGraphTesting
import Testing

/// Your code: a listener whose task waits for a message that never comes, and keeps it.
final class MessageListener: @unchecked Sendable {
    var received = 0

    func listen(on parked: ParkedContinuations) {
        Task {
            await parkUntilResumed(parked)
            self.received += 1
        }
    }
}

@Suite("A leak a task holds names the task by where it waits", .timeLimit(.minutes(10)))
struct TaskHolderReportTests {
    @Test("The report's holder is the task suspended in the function and line that wait")
    func theReportNamesWhereTheTaskWaits() async throws {
        let parked = ParkedContinuations()
        defer { parked.resumeAll() }
        let leaks = try await withLeakDetection(LeakDetectionOptions(grace: .zero)) {
            let listener = MessageListener()
            listener.listen(on: parked)
            await parked.waitUntilParked(1)
            LeakWatcher.current.expectDeallocation(of: listener, reason: "listener dropped")
        }
        let report = try #require(leaks.first?.report, "no leak reported")
        let holder = try #require(report.path.first.flatMap { report.object($0.from) })
        let line = try line(of: "// wait: parked", in: TaskLeakTraitTests.testsFile)
        #expect(
            holder.root
                == "a Task suspended in parkUntilResumed(_:) at LeakedTaskDetectionTests.swift:"
                + "\(line), awaiting withCheckedContinuation(isolation:function:_:)",
            "\(report.text)")
        #expect(
            leaks.first?.failureMessage.contains("a Task suspended in parkUntilResumed") == true)
    }
}
