// What tracking adds to a timer's life: create + schedule + invalidate, for the library's
// timers with tracking switched off, tracked, and tracked with creation stack traces, against
// bare Foundation `Timer` and `DispatchSourceTimer` (and FrameTimer off and tracked).
// Scripts/lifecycle-count.sh counts the same lifecycles' instructions and allocations.
//
//   swift package --package-path Benchmarks --scratch-path .build-bench-dispatch \
//       benchmark --target TimerTracking
//
// Each benchmark iteration creates, schedules and invalidates 1,000 timers (`scalingFactor:
// .kilo`); every timer's action is a `[weak target]` closure calling `Ticker.tick()`. Tracked
// timers record into a private `LiveGraph`, pruned after each iteration outside the
// measurement. Foundation's `Timer` is never freed on Linux (see LINUX-NOTES), so the bare
// run-loop baseline leaks its timers, as every app using it does.
import Benchmark
import BenchmarkSupport
import Dispatch
import Foundation
import RetainGraph
import TrackedTimers

/// How a library timer records into the graph.
enum Tracking: String, CaseIterable {
    case off = "tracking off"
    case tracked = "tracked"
    case trackedWithTraces = "tracked + creation traces"

    /// A fresh graph for one benchmark, and the trace switch set accordingly.
    func makeGraph() -> LiveGraph {
        TimerTracking.capturesCreationTraces = self == .trackedWithTraces
        return LiveGraph(isEnabled: self != .off)
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 2,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 100
    )

    // Two bare baselines: `Timer(fire:interval:repeats:block:)` is what RunLoopTimer builds on;
    // `Timer(timeInterval:repeats:block:)` is first due at once when added (LINUX-NOTES).
    Benchmark("RunLoop bare Foundation.Timer(fire:)", configuration: configuration) { benchmark in
        let ticker = Ticker()
        let runLoop = RunLoop.current
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let timer = Timer(fire: Date(timeIntervalSinceNow: 1), interval: 1, repeats: true) {
                [weak ticker] _ in ticker?.tick()
            }
            runLoop.add(timer, forMode: .default)
            timer.invalidate()
        }
        benchmark.stopMeasurement()
        blackHole(ticker)
    }

    Benchmark("RunLoop bare Foundation.Timer(timeInterval:)", configuration: configuration) {
        benchmark in
        let ticker = Ticker()
        let runLoop = RunLoop.current
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let timer = Timer(timeInterval: 1, repeats: true) { [weak ticker] _ in ticker?.tick() }
            runLoop.add(timer, forMode: .default)
            timer.invalidate()
        }
        benchmark.stopMeasurement()
        blackHole(ticker)
    }

    for tracking in Tracking.allCases {
        Benchmark("RunLoop RunLoopTimer \(tracking.rawValue)", configuration: configuration) {
            benchmark in
            let ticker = Ticker()
            let graph = tracking.makeGraph()
            let runLoop = RunLoop.current
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                do {
                    let timer = try RunLoopTimer(
                        interval: 1, repeats: true, capturing: ticker, as: .weak, graph: graph
                    ) { [weak ticker] _ in ticker?.tick() }
                    try timer.add(to: runLoop, forMode: .default)
                    timer.invalidate()
                } catch {
                    fatalError("unexpected \(error)")
                }
            }
            benchmark.stopMeasurement()
            blackHole(graph.counts())  // prunes the dead timers
            TimerTracking.capturesCreationTraces = true
        }
    }

    // The display-link analogue: a Foundation timer on the refresh grid, like RunLoopTimer.
    for tracking in [Tracking.off, .tracked] {
        Benchmark("RunLoop FrameTimer \(tracking.rawValue)", configuration: configuration) {
            benchmark in
            let ticker = Ticker()
            let graph = tracking.makeGraph()
            let runLoop = RunLoop.current
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                do {
                    let timer = try FrameTimer(capturing: ticker, as: .weak, graph: graph) {
                        [weak ticker] _ in ticker?.tick()
                    }
                    try timer.add(to: runLoop, forMode: .default)
                    timer.invalidate()
                } catch {
                    fatalError("unexpected \(error)")
                }
            }
            benchmark.stopMeasurement()
            blackHole(graph.counts())
            TimerTracking.capturesCreationTraces = true
        }
    }

    let queue = DispatchQueue(label: "TimerTracking")
    Benchmark("Dispatch bare DispatchSourceTimer", configuration: configuration) { benchmark in
        let ticker = Ticker()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + 1, repeating: 1)
            source.setEventHandler { [weak ticker] in ticker?.tick() }
            source.activate()
            source.cancel()
        }
        benchmark.stopMeasurement()
        blackHole(ticker)
    }

    for tracking in Tracking.allCases {
        Benchmark("Dispatch DispatchTimer \(tracking.rawValue)", configuration: configuration) {
            benchmark in
            let ticker = Ticker()
            let graph = tracking.makeGraph()
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                do {
                    let timer = try DispatchTimer(
                        interval: 1, repeats: true, queue: queue, graph: graph
                    ) { [weak ticker] _ in ticker?.tick() }
                    blackHole(timer.schedule())
                    timer.invalidate()
                } catch {
                    fatalError("unexpected \(error)")
                }
            }
            benchmark.stopMeasurement()
            blackHole(graph.counts())
            TimerTracking.capturesCreationTraces = true
        }
    }
}
