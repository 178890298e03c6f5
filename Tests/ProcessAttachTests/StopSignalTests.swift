import Foundation
import Testing

/// Issue 32: signals that arrive during a stop are delivered after it, never lost (even when
/// the tool dies), and a group stop (SIGSTOP) is neither lost nor undone.
@Suite(
    "The target is never left stopped: signals and group stops", .serialized,
    .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct StopSignalTests {
    /// Pauses a tool at its first point, then steps until every thread is stopped (its first
    /// register read).
    private func toolWithEveryThreadStopped(_ pid: Int32) throws -> ToolRun {
        let run = try ToolRun(attachingTo: pid, stopPoints: "1:pause")
        _ = try #require(try run.waitForPause())
        _ = try #require(try run.step { $0.hasPrefix("read the registers") })
        return run
    }

    @Test("A signal sent while the target is stopped is delivered once it runs")
    func signalDuringStop() throws {
        let target = try StopTarget()
        let run = try toolWithEveryThreadStopped(target.pid)
        #expect(kill(target.pid, SIGUSR1) == 0)
        #expect(StopTarget.counter(at: target.counterPath)?.signals == 0)
        #expect(run.finish() == 0)
        #expect(StopTarget.handled(1, at: target.counterPath))
    }

    @Test("A signal caught on a thread's way to its stop is delivered even when the tool is killed")
    func signalOnTheWayThenKilled() throws {
        let target = try StopTarget()
        let pid = target.pid
        let run = try ToolRun(attachingTo: pid, stopPoints: "1:pause")
        _ = try #require(try run.waitForPause())
        // The main thread (blocked reading its input) is seized, not yet interrupted: the
        // signal stops it in a signal-delivery-stop, which the tool then sees.
        _ = try #require(try run.step { $0 == "seized thread \(pid)" })
        #expect(StopTarget.signalThread(pid, pid, SIGUSR1))
        let end = ContinuousClock.now + .seconds(30)
        while StopTarget.threadStates(of: pid)[pid] != "t", ContinuousClock.now < end {
            usleep(500)
        }
        #expect(StopTarget.threadStates(of: pid)[pid] == "t")
        _ = try #require(try run.step { $0 == "thread \(pid) stopped" })
        _ = try #require(try run.step())
        run.kill()
        #expect(StopTarget.waitUntil(pid, within: StopKillTests.bound).held)
        #expect(StopTarget.handled(1, at: target.counterPath), "the signal was lost")
    }

    @Test("A process stopped by SIGSTOP before the attach is read and stays stopped, untraced")
    func alreadyStopped() throws {
        let target = try StopTarget()
        let pid = target.pid
        #expect(kill(pid, SIGSTOP) == 0)
        #expect(StopTarget.waitUntil(pid, groupStopped: true, within: .seconds(30)).held)
        let run = try ToolRun(attachingTo: pid, stopPoints: "report")
        let status = run.finish()
        #expect(status == 0, "\(run.errorLines.filter { !$0.hasPrefix("stop point ") })")
        let after = StopTarget.waitUntil(pid, groupStopped: true, within: .seconds(30))
        #expect(after.held, "\(after.states)")
        #expect(kill(pid, SIGCONT) == 0)
        #expect(StopTarget.waitUntil(pid, within: .seconds(30)).held)
        #expect(StopTarget.advances(target.counterPath))
    }

    @Test(
        "A SIGSTOP sent during the stop is delivered after it, the tool finishing or killed",
        arguments: [false, true])
    func stopSignalDuringStop(killed: Bool) throws {
        let target = try StopTarget()
        let pid = target.pid
        let run = try toolWithEveryThreadStopped(pid)
        #expect(kill(pid, SIGSTOP) == 0)
        if killed {
            run.kill()
        } else {
            #expect(run.finish() == 0)
        }
        let after = StopTarget.waitUntil(pid, groupStopped: true, within: .seconds(30))
        #expect(after.held, "the SIGSTOP was lost or undone: \(after.states)")
        #expect(kill(pid, SIGCONT) == 0)
        #expect(StopTarget.waitUntil(pid, within: .seconds(30)).held)
        #expect(StopTarget.advances(target.counterPath))
    }

    @Test("SIGTSTP sent to the tool during the stop does not keep the target stopped")
    func terminalStopHeldBack() throws {
        let target = try StopTarget()
        let run = try toolWithEveryThreadStopped(target.pid)
        let tool = run.pid
        #expect(kill(tool, SIGTSTP) == 0)
        // Held back until the target is let go; then the tool stops (or, in an orphaned
        // process group, the kernel discards the signal), and the target runs either way.
        run.send("")
        #expect(StopTarget.waitUntil(target.pid, within: .seconds(30)).held)
        #expect(StopTarget.advances(target.counterPath))
        kill(tool, SIGCONT)
        #expect(run.finish() == 0)
    }
}
