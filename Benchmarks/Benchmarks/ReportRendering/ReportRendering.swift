// What rendering a report on an object in a 10,000-reference cycle costs.
//
// The graph: 10,000 objects in a ring, each holding the next strongly; the first is watched and
// past its grace period, so `LeakWatcher.verdicts()` makes a report whose cycle has 10,000
// references (and whose `objects` has 10,000 entries). The report is built once per process
// (`Fixture.shared`); each iteration renders it.
//
// - Text report (10k-reference cycle): `LeakReport.text`, shortened in the middle (30
//   references of the path and of the cycle shown); goal ≤ 50 ms.
// - Full text report (10k-reference cycle): `text(maximumReferences: .max)`, every reference:
//   the renderer's own cost, linear in the references.
// - JSON report (10k-reference cycle): `jsonData()`, for comparison (it keeps everything).
// - Summary (10k-reference cycle): `LeakReport.summary`, the one-line chain.
//
// Metrics: wall clock and malloc count (the ARC metrics crash on Linux with Swift 6.3).
import Benchmark
import Foundation
import LeakTracking
import RetainGraph

final class Link {}

/// A report on the first of `count` objects in a strong ring, and the objects themselves.
func ringReport(count: Int) -> (LeakReport, [Link]) {
    let graph = LiveGraph()
    let links = (0..<count).map { _ in Link() }
    let ids = links.map { graph.register($0) }
    for index in ids.indices {
        graph.addReference(
            from: ids[index], to: ids[(index + 1) % count], ownership: .strong,
            role: .storedProperty(name: "next"))
    }
    let clock = ManualWatchClock()
    let watcher = LeakWatcher(graph: graph, clock: clock)
    watcher.expectDeallocation(of: links[0], within: .milliseconds(10), reason: "ring closed")
    clock.advance(by: .seconds(1))
    guard let report = watcher.verdicts().first?.report, report.cycle?.count == count else {
        fatalError("the ring of \(count) was not reported as a \(count)-reference cycle")
    }
    return (report, links)
}

/// The report on a 10,000-reference cycle, and the objects it is about: built once (the
/// graph, the watch and the analysis are not what is measured).
final class Fixture: @unchecked Sendable {
    let report: LeakReport
    let links: [Link]

    init() {
        (report, links) = ringReport(count: 10_000)
    }

    static let shared = Fixture()
}

/// Measures `render` on a report whose cycle has 10,000 references.
func measureRendering<T>(_ benchmark: Benchmark, _ render: (LeakReport) throws -> T) rethrows {
    let report = Fixture.shared.report
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        blackHole(try render(report))
    }
    benchmark.stopMeasurement()
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(3), maxIterations: 200)

    Benchmark("Text report (10k-reference cycle)") { benchmark in
        measureRendering(benchmark) { $0.text }
    }

    Benchmark("Full text report (10k-reference cycle)") { benchmark in
        measureRendering(benchmark) { $0.text(maximumReferences: .max) }
    }

    Benchmark("JSON report (10k-reference cycle)") { benchmark in
        try measureRendering(benchmark) { try $0.jsonData() }
    }

    Benchmark("Summary (10k-reference cycle)") { benchmark in
        measureRendering(benchmark) { $0.summary }
    }
}
