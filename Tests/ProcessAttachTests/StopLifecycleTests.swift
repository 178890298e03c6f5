import Foundation
import Testing

/// Issue 32: the target's threads fork, exec or exit during the stop, and it runs on.
@Suite(
    "The target is never left stopped: forks, execs, exits", .serialized,
    .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct StopLifecycleTests {
    /// Pauses a tool where the main thread (which reads the target's commands) is seized but
    /// still runs, sends the target `command`, waits for the target's answer, and lets the tool
    /// finish; its exit status and the answer.
    private func attach(
        _ target: StopTarget, sending command: String, answer: @escaping (String) -> Bool
    ) throws -> (status: Int32, answer: String) {
        let run = try ToolRun(attachingTo: target.pid, stopPoints: "1:pause")
        _ = try #require(try run.waitForPause())
        _ = try #require(try run.step { $0 == "seized thread \(target.pid)" })
        target.running.send(command)
        let line = try target.running.waitForLine(answer)
        return (run.finish(), line)
    }

    @Test("A fork by a seized thread during the stop makes a child that runs, untraced")
    func forkDuringStop() throws {
        let target = try StopTarget()
        let (status, answer) = try attach(target, sending: "fork") { $0.hasPrefix("forked ") }
        let child = try #require(Int32(answer.dropFirst(7)))
        defer { kill(child, SIGKILL) }
        #expect(status == 0)
        #expect(StopTarget.waitUntil(child, within: StopKillTests.bound).held)
        #expect(StopTarget.advances(target.counterPath + ".child"))
        #expect(StopTarget.waitUntil(target.pid, within: StopKillTests.bound).held)
        #expect(StopTarget.advances(target.counterPath))
    }

    @Test(
        "An execve during the stop, by the main thread or another one: the new program runs",
        arguments: ["exec", "exec-thread"])
    func execDuringStop(command: String) throws {
        let target = try StopTarget()
        let (status, _) = try attach(target, sending: command) { $0.hasSuffix(" execd") }
        // The tool read the new program, or said why it could not: never a crash.
        #expect(status == 0 || status == 3, "exit status \(status)")
        #expect(StopTarget.waitUntil(target.pid, within: StopKillTests.bound).held)
        #expect(StopTarget.advances(target.counterPath))
    }

    @Test("A program whose main thread has exited (a zombie): refused untouched, and runs on")
    func mainThreadExited() throws {
        let target = try StopTarget(["--main-exits"])
        let pid = target.pid
        let end = ContinuousClock.now + .seconds(30)
        while StopTarget.threadStates(of: pid)[pid] != "Z", ContinuousClock.now < end {
            usleep(1000)
        }
        try #require(StopTarget.threadStates(of: pid)[pid] == "Z")
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        let result = try AttachCommandTests.run(tool, ["attach", "\(pid)"])
        #expect(result.status == 3)
        #expect(
            result.error.contains("its main thread has exited (pthread_exit)"), "\(result.error)")
        #expect(StopTarget.waitUntil(pid, within: StopKillTests.bound).held)
        #expect(StopTarget.advances(target.counterPath))
    }
}
