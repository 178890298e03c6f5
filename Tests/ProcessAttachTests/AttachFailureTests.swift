import Foundation
import ProcessAttach
import Testing

/// Bad input gets a clear error, and whatever happens the target runs on, untraced.
@Suite("Attach fails clearly and lets the target go", .timeLimit(.minutes(10)))
struct AttachFailureTests {
    /// The error `body` throws, if it is an ``AttachError``.
    private func attachError(_ body: () throws(AttachError) -> Void) -> AttachError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("A process id nobody has: noSuchProcess")
    func noSuchProcess() throws {
        // A child that has exited and been reaped: its id is free.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let error = attachError { () throws(AttachError) in
            _ = try HeapSnapshot.capture(processID: child.processIdentifier)
        }
        #expect(error == .noSuchProcess(processID: child.processIdentifier))
        #expect(error?.description == "process \(child.processIdentifier) does not exist")
    }

    @Test("A program that is not Swift (sleep): notSwift, and it is never stopped")
    func notSwift() throws {
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["600"]
        try sleeper.run()
        defer {
            // SIGKILL: a child of a test process inherits a signal mask that blocks SIGTERM.
            kill(sleeper.processIdentifier, SIGKILL)
            sleeper.waitUntilExit()
        }
        let error = attachError { () throws(AttachError) in
            _ = try HeapSnapshot.capture(processID: sleeper.processIdentifier)
        }
        #expect(error == .notSwift(processID: sleeper.processIdentifier, command: "sleep"))
        #expect(error?.description.contains("is not a Swift program") == true)
        let status = try String(
            contentsOfFile: "/proc/\(sleeper.processIdentifier)/status", encoding: .utf8)
        #expect(status.contains("TracerPid:\t0"))
        #expect(sleeper.isRunning)
    }

    @Test("A process killed while it is stopped and read: processExited, nothing reported")
    func killedWhileRead() throws {
        let target = try AttachTargets.start("attach-global-cache")
        let process = try StoppedProcess(processID: target.pid)
        #expect(process.threads.contains { $0.id == target.pid })
        // Only SIGKILL gets through a ptrace stop: what an OOM killer or a supervisor does.
        kill(target.pid, SIGKILL)
        target.process.waitUntilExit()
        let error = attachError { () throws(AttachError) in _ = try process.captureMemory() }
        #expect(error == .processExited(processID: target.pid, during: "its memory was read"))
        process.resume()
    }

    @Test("A process that exits on its own while attaches run: each attach succeeds or says so")
    func exitsDuringAttaches() throws {
        let target = try AttachTargets.start("attach-exiting", ["40"])
        var outcomes: [String] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            do {
                let heap = try HeapSnapshot.capture(processID: target.pid)
                outcomes.append("read \(heap.objectCount)")
            } catch .noSuchProcess, .processExited {
                outcomes.append("gone")
                break
            } catch .notSwift {
                outcomes.append("gone")  // exiting: its mappings were already torn down
                break
            } catch {
                Issue.record("unexpected: \(error)")
                break
            }
        }
        #expect(outcomes.last == "gone")
        target.process.waitUntilExit()
        #expect(target.process.terminationStatus == 0)  // it exited on its own, unharmed
    }

    @Test("A cancelled attach lets every thread go at once")
    func cancelled() throws {
        let target = try AttachTargets.start("attach-task-loop")
        var options = AttachOptions()
        options.isCancelled = { true }
        let error = attachError { () throws(AttachError) in
            _ = try HeapSnapshot.capture(processID: target.pid, options: options)
        }
        #expect(error == .cancelled(processID: target.pid))
        #expect(target.isRunningUntraced)
    }

    @Test("A stopped process dropped without resume() is let go by its deinit")
    func droppedStopIsResumed() throws {
        let target = try AttachTargets.start("attach-task-loop")
        do {
            let process = try StoppedProcess(processID: target.pid)
            #expect(process.threads.count >= 2)
            #expect(!target.isRunningUntraced)
        }
        #expect(target.isRunningUntraced)
    }

    @Test(
        "Without permission (another user): permissionDenied, the target untouched",
        .enabled(if: geteuid() == 0, "needs root to run the tool as another user"))
    func withoutPermission() throws {
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        let target = try AttachTargets.start("attach-task-loop")
        // The tool must be readable by `nobody`: run a copy from /tmp.
        let copy = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("retain-graph-\(getpid())")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: tool, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        let result = try AttachCommandTests.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", copy.path, "attach",
                "\(target.pid)",
            ])
        #expect(result.status == 3)
        #expect(result.error.contains("not permitted to attach to process \(target.pid)"))
        #expect(result.error.contains("uid 65534"))
        #expect(target.isRunningUntraced)
    }
}
