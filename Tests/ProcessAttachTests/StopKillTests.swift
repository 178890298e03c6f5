import Foundation
import Testing

/// Issue 32: whatever happens to the tool during a stop, the target runs on. The tool is
/// killed (SIGKILL) or crashed at numbered points of its stop (`RETAINGRAPH_STOP_POINTS`:
/// after the seize of each thread, its interrupt, its stop, its register read, each batch of
/// memory copied and each detach), and each time every thread of the target must be out of its
/// stop within 100 ms of the tool's end, untraced, and the target must go on counting.
///
/// The 100 ms is a bound polled with a deadline, not a measurement: the kernel detaches a dead
/// tracer's threads before its death can be reaped, and a woken thread leaves the `t` state
/// at once, whether or not a busy machine runs it soon.
@Suite(
    "The target is never left stopped: the tool killed or crashed", .serialized,
    .timeLimit(.minutes(10)),
    .enabled(
        if: AttachTargets.toolCanAttach,
        "kernel.yama.ptrace_scope lets only a parent trace its children, and this process lacks CAP_SYS_PTRACE"
    ))
struct StopKillTests {
    /// The issue's bound from the tool's end to every thread running again.
    static let bound = Duration.milliseconds(100)

    @Test(
        "SIGKILLed at each of at least 50 points of its stop, the tool leaves every thread running")
    func killedAtEveryPoint() throws {
        let target = try StopTarget()
        var killed: [String] = []
        var killedWhileStopped = 0
        for point in 1...120 {
            let run = try ToolRun(attachingTo: target.pid, stopPoints: "\(point):pause")
            guard let label = try run.waitForPause() else {
                run.waitForExit()  // the stop has fewer points: it ran to its end
                break
            }
            if killAndCheck(run, at: "point \(point) (\(label))", of: target) {
                killedWhileStopped += 1
            }
            killed.append(label)
        }
        #expect(killed.count >= 50, "killed at only \(killed.count) points: \(killed)")
        // Most kills must have caught threads in their ptrace stop, or the test proves little.
        #expect(
            killedWhileStopped * 3 >= killed.count * 2, "\(killedWhileStopped) of \(killed.count)")
        // The copy and the detaches come after four points per thread: a target whose thread
        // that makes short-lived threads made many during the seize (a busy machine) pushes
        // them past the numbered points. Such points are then reached by stepping to them.
        let unreached = ["copied a batch", "detached thread"].filter { kind in
            !killed.contains { $0.hasPrefix(kind) }
        }
        for kind in unreached {
            let run = try ToolRun(attachingTo: target.pid, stopPoints: "1:pause")
            let first = try #require(try run.waitForPause(), "the stop has no point")
            let label = try #require(
                first.hasPrefix(kind) ? first : try run.step { $0.hasPrefix(kind) },
                "no point \(kind) in the stop")
            _ = killAndCheck(run, at: "the first point \(kind) (\(label))", of: target)
            killed.append(label)
        }
    }

    /// Kills the paused tool and checks that every thread of the target runs again within the
    /// bound and that it goes on counting; whether threads were in their ptrace stop when the
    /// tool was killed.
    private func killAndCheck(_ run: ToolRun, at point: String, of target: StopTarget) -> Bool {
        let wasStopped = StopTarget.threadStates(of: target.pid).values.contains("t")
        run.kill()
        let after = StopTarget.waitUntil(target.pid, within: Self.bound)
        #expect(after.held, "killed at \(point): threads \(after.states)")
        #expect(StopTarget.advances(target.counterPath), "killed at \(point): the counter stopped")
        return wasStopped
    }

    @Test(
        "A tool that crashes during the stop (SIGSEGV, SIGABRT) lets the target go before it dies",
        arguments: ["10:segv", "30:segv", "35:abort", "45:abort"])
    func crashLetsGo(stopPoints: String) throws {
        let target = try StopTarget()
        let run = try ToolRun(attachingTo: target.pid, stopPoints: stopPoints)
        let crash = try run.waitForLine { $0.hasPrefix("crashing") || $0 == ToolRun.endOfOutput }
        try #require(crash.hasPrefix("crashing"), "the stop ended before point \(stopPoints)")
        // From the crash on, while the tool may still be writing its crash report: the stop
        // guard detaches the threads before the Swift backtracer runs.
        let after = StopTarget.waitUntil(target.pid, within: Self.bound)
        #expect(after.held, "crashed at \(run.lastPoint): threads \(after.states)")
        // The crash report written, the tool dies of its signal. A Swift backtracer it started
        // that is still there once the tool is gone (it can wait forever on a socket to a
        // process that has ended, on a busy machine) is ended here.
        var helpers = Set<Int32>()
        let code = run.waitForExit { helpers.formUnion(run.children()) }
        for helper in helpers
        where (try? String(contentsOfFile: "/proc/\(helper)/comm", encoding: .utf8))?
            .hasPrefix("swift-backtrace") == true
        {
            kill(helper, SIGKILL)
        }
        #expect(code == 128 + SIGSEGV || code == 128 + SIGABRT, "exit code \(code)")
        #expect(StopTarget.advances(target.counterPath))
    }

    @Test("The tool killed while it is the target's parent leaves it running too")
    func killedAsParent() throws {
        let tool = try #require(AttachCommandTests.toolURL(), "retain-graph not built")
        let targets = try AttachTargets.products.get()
        let folder = NSTemporaryDirectory() + "retain-graph-parent-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for point in [3, 12, 24, 36, 48] {
            let counter = folder + "/counter-\(point)"
            let ready = folder + "/ready-\(point)"
            // The shell starts the target, then becomes the tool: the tool is its parent.
            let script = """
                "$1" "$2" > "$3" < /dev/null & while ! grep -q ready "$3"; do sleep 0.01; done
                exec "$4" attach --max-stop 120s $!
                """
            let run = try ToolRun(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c", script, "sh", targets.appendingPathComponent("attach-stop-target").path,
                    counter, ready, tool.path,
                ], stopPoints: "\(point):pause")
            let label = try run.waitForPause()
            let words =
                (try? String(contentsOfFile: ready, encoding: .utf8))?
                .split(whereSeparator: \.isWhitespace) ?? []
            let pid = try #require(words.count >= 2 ? Int32(words[1]) : nil, "\(words)")
            defer { kill(pid, SIGKILL) }
            #expect(StopTarget.tracers(of: pid).contains(run.pid))
            run.kill()
            let after = StopTarget.waitUntil(pid, within: Self.bound)
            #expect(after.held, "killed at point \(point) (\(label ?? "?")): \(after.states)")
            #expect(StopTarget.advances(counter))
        }
    }
}
