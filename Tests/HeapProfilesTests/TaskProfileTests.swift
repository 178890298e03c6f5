import Foundation
import HeapCensus
import HeapProfiles
import ProcessAttach
import Testing

/// Continuations the parked tasks wait on, resumed when the test ends.
final class TaskParking: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [CheckedContinuation<Void, Never>] = []

    var count: Int { lock.withLock { continuations.count } }

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        lock.withLock { continuations.append(continuation) }
    }

    func resumeAll() {
        let parked = lock.withLock {
            defer { continuations.removeAll() }
            return continuations
        }
        for continuation in parked { continuation.resume() }
    }
}

/// Parks the calling task until the test resumes it.
func waitInProfiledPile(_ parking: TaskParking) async {
    await withCheckedContinuation { parking.park($0) }  // wait: profiled-pile
}

@Suite(
    "A pprof profile of tasks by async backtrace",
    .enabled(if: PprofTool.go != nil, "go tool pprof is not installed"), .timeLimit(.minutes(10)))
struct TaskProfileTests {
    @Test(
        "go tool pprof reads the task profile: the pile of parked tasks first, with its count and line"
    )
    func goToolPprofReadsTheTaskProfile() async throws {
        try #require(TaskProfileEndpoint().enableCensus())
        let parking = TaskParking()
        for _ in 0..<300 {
            Task { await waitInProfiledPile(parking) }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while parking.count < 300, ContinuousClock.now < deadline { await Task.yield() }
        defer { parking.resumeAll() }

        let answer = try #require(DebugProfiles.response(forPath: "/debug/pprof/tasks?debug=0"))
        #expect(answer.status == 200)
        #expect(answer.body.starts(with: [0x1f, 0x8b]), "gzip")
        let path = try PprofTool.file(answer.body, named: "tasks")
        let pile = "-focus=waitInProfiledPile"
        let traces = try PprofTool.run(["-traces", pile, path])
        // The 300 tasks are one sample: one backtrace, counted 300 times.
        #expect(traces.contains("300"), "\(traces)")
        #expect(traces.contains("waitInProfiledPile"), "\(traces)")
        #expect(traces.contains("withCheckedContinuation"), "\(traces)")
        let lines = try PprofTool.run(["-top", "-lines", pile, path])
        let source = try String(contentsOfFile: #filePath, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(source.firstIndex { $0.hasSuffix("// wait: profiled-pile") }) + 1
        #expect(lines.contains("TaskProfileTests.swift:\(line)"), "\(lines)")
        let tags = try PprofTool.run(["-tags", pile, path])
        #expect(tags.contains("suspended"), "\(tags)")
        #expect(tags.contains("withCheckedContinuation(isolation:function:_:)"), "\(tags)")
        #expect(DebugProfiles.response(forPath: "/debug/pprof/other") == nil)
    }
}
