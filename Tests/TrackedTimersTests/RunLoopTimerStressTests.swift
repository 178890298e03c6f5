import Foundation
import RetainGraph
import Synchronization
import Testing
import TrackedTimers
import _TestSupport

/// Counts living instances, so a stress test can tell that no closure capture survived.
final class CountedCapture: @unchecked Sendable {
    static let live = Atomic<Int>(0)
    init() { Self.live.add(1, ordering: .relaxed) }
    deinit { Self.live.subtract(1, ordering: .relaxed) }
}

/// A thread-safe counter an escaping closure can capture.
final class StressCounter: Sendable {
    let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Weak references to a sample of the captures, filled from several threads.
final class CaptureSamples: @unchecked Sendable {
    private let lock = NSLock()
    private var boxes: [WeakBox<CountedCapture>] = []
    func add(_ capture: CountedCapture) { lock.withLock { boxes.append(WeakBox(capture)) } }
    var allDead: Bool { lock.withLock { boxes.allSatisfy { $0.value == nil } } }
    var count: Int { lock.withLock { boxes.count } }
}

/// A target for the stress test's target-based timers.
final class StressTarget: @unchecked Sendable {
    let capture = CountedCapture()
    func tick() {}
}

extension TimerStressTests {
    @Suite("RunLoopTimer and FrameTimer Stress")
    struct RunLoopTimerStressTests {
        static let batch = 50
        /// The hang guard: far above the 85 s measured at 10,000 per thread under ThreadSanitizer
        /// on 2 loaded cores.
        static let deadline: TimeInterval = 600

        @Test("Stress: 8 threads create, fire, invalidate (from two threads) and release timers")
        func stress() throws {
            let perThread = TimerStressTests.perThread
            let graph = LiveGraph()
            let samples = CaptureSamples()
            let offThread = DispatchQueue(label: "stress.invalidator", attributes: .concurrent)
            let finished = DispatchGroup()
            let failures = StressCounter()
            let stop = StressStop()
            let started = Date()
            for index in 0..<TimerStressTests.threads {
                finished.enter()
                let thread = Thread {
                    defer { finished.leave() }
                    for start in stride(from: 0, to: perThread, by: Self.batch) {
                        if stop.isRequested { return }
                        let count = min(Self.batch, perThread - start)
                        if !Self.runBatch(
                            count: count, graph: graph, samples: samples, offThread: offThread)
                        {
                            failures.increment()
                        }
                    }
                }
                thread.name = "stress \(index)"
                thread.start()
            }
            let inTime = finished.wait(timeout: .now() + Self.deadline) == .success
            if !inTime {
                // Stop the threads before the next test runs; what they made dies with them.
                stop.request()
                _ = finished.wait(timeout: .now() + 120)
            }
            try #require(inTime, "not finished within \(Int(Self.deadline)) s")
            print(
                "RunLoopTimer stress: \(TimerStressTests.threads) threads × \(perThread) timers of",
                "each kind in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
            #expect(failures.count == 0)
            #expect(waitUntil { CountedCapture.live.load(ordering: .relaxed) == 0 })
            let batches = (perThread + Self.batch - 1) / Self.batch
            #expect(samples.count == TimerStressTests.threads * batches)
            #expect(samples.allDead)
            let leftovers = graph.snapshot().nodes.filter {
                $0.kind == .timer || $0.kind == .proxy || $0.kind == .closure
            }
            #expect(leftovers.count == 0)
        }

        /// One batch on the current thread: `count` run-loop timers (four kinds of action) and
        /// `count` frame timers, all fired on this thread's run loop, then invalidated, half of
        /// them from another thread, then released.
        static func runBatch(
            count: Int, graph: LiveGraph, samples: CaptureSamples,
            offThread: DispatchQueue
        ) -> Bool {
            let fired = StressCounter()
            var timers: [RunLoopTimer] = []
            var links: [FrameTimer] = []
            var targets: [StressTarget] = []
            for i in 0..<count {
                let capture = CountedCapture()
                if i == 0 { samples.add(capture) }
                let target = StressTarget()
                targets.append(target)
                let timer: RunLoopTimer?
                switch i % 4 {
                case 0:
                    timer = try? RunLoopTimer(
                        interval: 0, repeats: false, capturing: capture, graph: graph
                    ) {
                        _ in withExtendedLifetime(capture) { fired.increment() }
                    }
                case 1:
                    timer = try? RunLoopTimer(
                        interval: 0.001, repeats: true, target: target, graph: graph
                    ) {
                        target, _ in
                        target.tick()
                        fired.increment()
                    }
                case 2:
                    timer = try? RunLoopTimer(
                        interval: 0.001, repeats: true, weakTarget: target, graph: graph
                    ) {
                        target, _ in
                        target.tick()
                        fired.increment()
                    }
                default:
                    let proxy = WeakProxy(target, graph: graph)
                    timer = try? RunLoopTimer(
                        interval: 0.001, repeats: true, proxy: proxy, graph: graph
                    ) {
                        target, _ in
                        target.tick()
                        fired.increment()
                    }
                }
                guard let timer, (try? timer.add(to: .current, forMode: .default)) != nil else {
                    return false
                }
                timer.held(by: target, as: "timer", ownership: .weak)
                timers.append(timer)
                guard
                    let link = try? FrameTimer(
                        refreshRate: 1000, capturing: capture, graph: graph,
                        action: {
                            _ in withExtendedLifetime(capture) { fired.increment() }
                        }), (try? link.add(to: .current, forMode: .common)) != nil
                else { return false }
                links.append(link)
            }
            // Each timer and link fires at least once (timers may fire more than once).
            let fireAll = runRunLoop(
                until: {
                    timers.allSatisfy { $0.fireCount >= 1 }
                        && links.allSatisfy { $0.frameCount >= 1 }
                }, timeout: 60, slice: 0.002)
            // Invalidate: odd ones from another thread, concurrently with this thread's loop.
            let group = DispatchGroup()
            for (i, timer) in timers.enumerated() {
                if i % 2 == 1 {
                    offThread.async(group: group) { timer.invalidate() }
                } else {
                    timer.invalidate()
                }
            }
            for (i, link) in links.enumerated() {
                if i % 2 == 0 {
                    offThread.async(group: group) { link.invalidate() }
                } else {
                    link.invalidate()
                }
            }
            // Keep this thread's loop running (firing what is still valid) while the other thread
            // invalidates; with no valid timer left the loop returns at once, so this ends quickly.
            let done = runRunLoop(
                until: { group.wait(timeout: .now()) == .success }, timeout: 60, slice: 0.002)
            timers.removeAll()
            links.removeAll()
            targets.removeAll()
            return fireAll && done && fired.count >= 2 * count
        }
    }
}
