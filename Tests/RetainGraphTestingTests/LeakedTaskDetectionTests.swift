import Foundation
import ProcessAttach
import RetainGraphTesting
import Testing

/// The line of this file whose text contains `marker` (the `// wait:` comments below).
func line(of marker: String, in file: String = #filePath) throws -> Int {
    let lines = try String(contentsOfFile: file, encoding: .utf8).split(
        separator: "\n", omittingEmptySubsequences: false)
    return try #require(lines.firstIndex { $0.contains(marker) }) + 1
}

/// Parks the calling task until the test resumes it.
func parkUntilResumed(_ parked: ParkedContinuations) async {
    await withCheckedContinuation { parked.park($0) }  // wait: parked
}

/// Sleeps in a loop until cancelled; counts itself in `started` first.
func sleepUntilCancelled(_ started: ParkedContinuations? = nil) async {
    started?.markStarted()
    while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(3600))  // wait: sleeping
    }
}

@Suite("Tasks a test leaves alive", .timeLimit(.minutes(10)))
struct LeakedTaskDetectionTests {
    /// The test function's part of a demangled name (the tests of this suite run in parallel:
    /// each check takes only its own test's tasks).
    static func function(_ name: String = #function) -> String {
        ".LeakedTaskDetectionTests.\(name.prefix { $0 != "(" })("
    }

    @Test("A task suspended on a continuation never resumed is reported where it waits")
    func neverResumedContinuation() async throws {
        let parked = ParkedContinuations()
        var startLine = 0
        let leaked = try await withLeakedTaskDetection(
            grace: .milliseconds(50), startedIn: #filePath, function: Self.function()
        ) {
            startLine = #line + 1
            Task { await parkUntilResumed(parked) }
            await parked.waitUntilParked(1)
        }
        defer { parked.resumeAll() }
        try #require(leaked.count == 1, "\(leaked.map(\.failureMessage))")
        let task = try #require(
            leaked[0].task, "\(TaskInspection.thisProcessUnavailableReason ?? "")")
        #expect(task.state == .suspended)
        let waiting = try #require(task.waitingFrame)
        #expect(waiting.function?.contains("parkUntilResumed") == true)
        #expect(waiting.line == (try line(of: "// wait: parked")))
        #expect(task.awaiting == "withCheckedContinuation(isolation:function:_:)")
        #expect(leaked[0].createdAt?.line == startLine)
        #expect(
            leaked[0].failureMessage.contains(
                "parkUntilResumed(_:) at LeakedTaskDetectionTests.swift:"))
    }

    @Test("A sleep loop never cancelled is reported, awaiting Task.sleep")
    func neverCancelledLoop() async throws {
        var handle: Task<Void, Never>?
        let started = ParkedContinuations()
        let leaked = try await withLeakedTaskDetection(
            grace: .milliseconds(50), startedIn: #filePath, function: Self.function()
        ) {
            handle = Task { await sleepUntilCancelled(started) }
            await started.waitUntilCounted(1)
        }
        defer { handle?.cancel() }
        try #require(leaked.count == 1, "\(leaked.map(\.failureMessage))")
        let task = try #require(leaked[0].task)
        #expect(task.state == .suspended)
        #expect(task.waitingFrame?.line == (try line(of: "// wait: sleeping")))
        #expect(task.awaiting == "Task.sleep(for:tolerance:clock:)")
    }

    @Test("A loop the test cancels passes")
    func cancelledLoop() async throws {
        let leaked = try await withLeakedTaskDetection(
            grace: .seconds(10), startedIn: #filePath, function: Self.function()
        ) {
            let handle = Task { await sleepUntilCancelled() }
            handle.cancel()
        }
        #expect(leaked.isEmpty, "\(leaked.map(\.failureMessage))")
    }

    @Test("A task that finishes within the grace period passes; one whose handle is kept too")
    func finishingTask() async throws {
        var kept: Task<Int, Never>?
        let leaked = try await withLeakedTaskDetection(
            grace: .seconds(10), startedIn: #filePath, function: Self.function()
        ) {
            Task {
                try? await Task.sleep(for: .milliseconds(20))
            }
            kept = Task { 42 }
        }
        #expect(leaked.isEmpty, "\(leaked.map(\.failureMessage))")
        #expect(await kept?.value == 42)
    }

    @Test("A task another file starts on another thread is not the test's")
    func notTheTestsTask() async throws {
        let parked = ParkedContinuations()
        let leaked = try await withLeakedTaskDetection(
            grace: .milliseconds(20), startedIn: #filePath, function: Self.function()
        ) {
            startTaskFromAnotherThread(parked)
            await parked.waitUntilParked(1)
        }
        parked.resumeAll()
        #expect(leaked.isEmpty, "\(leaked.map(\.failureMessage))")
    }

    @Test("A thrown error skips the check and is rethrown")
    func thrownError() async throws {
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            _ = try await withLeakedTaskDetection(grace: .milliseconds(10)) { throw Stop() }
        }
    }
}
