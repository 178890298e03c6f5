import Foundation
import LeakTracking
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// What a worker thread hands back: the object its timer targets, the timer, its run loop.
final class WorkerBox: @unchecked Sendable {
    var pump: Pump?
    var timer: RunLoopTimer?
    var runLoop: RunLoop?
    init(_ pump: Pump?) { self.pump = pump }
}

final class Pump {
    func tick() {}
}

/// Run-loop roots are named after their thread's real name, show real addresses, and say when
/// their thread has exited. Written as a user would: a `Thread`, a `RunLoopTimer`, a watcher.
@Suite("Run-loop roots' names")
struct RunLoopRootNameTests {
    /// Watches `pump` (dropped by the caller) past its grace and returns the report's root.
    static func rootOfLeak(
        _ box: WorkerBox, graph: LiveGraph
    ) throws -> (root: ReportObject, text: String) {
        let clock = ManualWatchClock()
        let watcher = LeakWatcher(graph: graph, clock: clock)
        let pump = try #require(box.pump)
        box.pump = nil
        watcher.expectDeallocation(of: pump, within: .seconds(1), reason: "pump closed")
        clock.advance(by: .seconds(2))
        let report = try #require(watcher.verdicts().first?.report)
        let first = try #require(report.path.first)
        return (try #require(report.object(first.from)), report.text)
    }

    @Test("A worker's own name is its root's name; once the worker exits, the root says so")
    func namedWorkerThatExited() throws {
        let graph = LiveGraph()
        let box = WorkerBox(Pump())
        let worker = Thread {
            setCurrentPthreadName("io-worker")
            if let pump = box.pump {
                box.timer = try? RunLoopTimer.scheduled(
                    interval: 10, repeats: true, target: pump, graph: graph
                ) { pump, _ in pump.tick() }
            }
        }
        worker.start()
        #expect(waitUntil { worker.isFinished })
        let (root, text) = try Self.rootOfLeak(box, graph: graph)
        #expect(root.root == "run loop of thread \"io-worker\" (its thread has exited)")
        #expect(
            text.contains("│ GC root: run loop of thread \"io-worker\" (its thread has exited)"))
        #expect(
            text.contains(
                "├─ run loop of thread \"io-worker\" (its thread has exited) [root] at 0x"))
        #expect(text.contains("that run loop will never run again, so the timer never fires"))
        box.timer?.invalidate()
    }

    @Test("A worker that never named itself is named by its thread id, not the process's name")
    func unnamedWorker() throws {
        let graph = LiveGraph()
        let box = WorkerBox(Pump())
        let worker = Thread {
            if let pump = box.pump {
                box.timer = try? RunLoopTimer.scheduled(
                    interval: 10, repeats: true, target: pump, graph: graph
                ) { pump, _ in pump.tick() }
            }
        }
        worker.name = "lost-name"  // Foundation on Linux drops a name set before start()
        worker.start()
        #expect(waitUntil { worker.isFinished })
        let (root, _) = try Self.rootOfLeak(box, graph: graph)
        let name = try #require(root.root)
        let process = ProcessInfo.processInfo.processName
        #expect(name.hasPrefix("run loop of thread \"tid "), "\(name)")
        #expect(name.contains(" (unnamed)\""), "\(name)")
        #expect(!name.contains(String(process.prefix(15))), "\(name)")
        box.timer?.invalidate()
    }

    @Test("A timer added from another thread names the worker's run loop by its real address")
    func addedFromAnotherThread() throws {
        let graph = LiveGraph()
        let box = WorkerBox(nil)
        let ready = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let worker = Thread {
            box.runLoop = RunLoop.current
            ready.signal()
            release.wait()
        }
        worker.start()
        ready.wait()
        let runLoop = try #require(box.runLoop)
        box.pump = Pump()
        let pump = try #require(box.pump)
        box.timer = try RunLoopTimer(interval: 10, repeats: true, target: pump, graph: graph) {
            pump, _ in pump.tick()
        }
        try box.timer?.add(to: runLoop, forMode: .default)
        let (root, _) = try Self.rootOfLeak(box, graph: graph)
        let digits = String(
            UInt(bitPattern: Unmanaged.passUnretained(runLoop).toOpaque()), radix: 16)
        let address = "0x" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        #expect(root.root == "run loop of thread \"unknown, run loop at \(address)\"")
        #expect(root.address == address)
        box.timer?.invalidate()
        release.signal()
        #expect(waitUntil { worker.isFinished })
    }

    @Test(
        "A run loop seen on its own thread keeps that thread's name for timers added from outside")
    func knownWorkerNamedFromOutside() throws {
        let graph = LiveGraph()
        let box = WorkerBox(nil)
        let ready = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let worker = Thread {
            setCurrentPthreadName("poller")
            box.runLoop = RunLoop.current
            // A timer of its own, scheduled on its own thread, makes the run loop known.
            let own = try? RunLoopTimer.scheduled(interval: 10, repeats: true, graph: graph) { _ in
            }
            ready.signal()
            release.wait()
            own?.invalidate()
        }
        worker.start()
        ready.wait()
        let runLoop = try #require(box.runLoop)
        box.pump = Pump()
        let pump = try #require(box.pump)
        let other = LiveGraph()
        let timer = try RunLoopTimer(interval: 10, repeats: true, target: pump, graph: other) {
            pump, _ in pump.tick()
        }
        box.timer = timer
        try timer.add(to: runLoop, forMode: .default)
        let (root, _) = try Self.rootOfLeak(box, graph: other)
        #expect(root.root == "run loop of thread \"poller\"")
        timer.invalidate()
        release.signal()
        #expect(waitUntil { worker.isFinished })
    }
}
