// One leak check over many leaking watches: the figure of issue 22 ("the check is linear").
//
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench CheckScale 1000
//   swift run -c debug --package-path Benchmarks --scratch-path .build-bench-debug CheckScale 1000
//
// N owners, each in a cycle with its own repeating RunLoopTimer (the owner stores the timer,
// the timer's closure captures the owner; neither reference is declared), all watched by one
// LeakWatcher with the discovery the test helpers use (ReferenceReflection), their grace
// already over (a manual clock): one `check()` judges them all and makes N reports. Prints the
// median of 5 checks (each on fresh owners) and the ratio to the first count given.
//
// Wall-clock figures depend on the machine's load: every line starts with the load average.
import Foundation
import LeakTracking
import ReferenceReflection
import RetainGraph
import TrackedTimers

#if canImport(Glibc)
import Glibc
#endif

/// An owner whose repeating timer's closure captures it.
final class Owner: @unchecked Sendable {
    var timer: RunLoopTimer?
    var ticks = 0

    func start(graph: LiveGraph) throws {
        timer = try RunLoopTimer.scheduled(interval: 3600, repeats: true, graph: graph) { _ in
            self.ticks += 1
        }
    }
}

func loadAverage() -> String {
    guard let file = fopen("/proc/loadavg", "r") else { return "?" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 128)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "?" }
    let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return line.split(separator: " ").prefix(3).joined(separator: " ")
}

/// Seconds one check takes over `count` leaking watches.
func checkSeconds(count: Int) throws -> (seconds: Double, leaks: Int, explained: Int) {
    let graph = LiveGraph()
    let clock = ManualWatchClock()
    let watcher = LeakWatcher(
        graph: graph, clock: clock, defaultGrace: .seconds(1), discovery: .reflection)
    var owners: [Owner] = []
    owners.reserveCapacity(count)
    for _ in 0..<count {
        let owner = Owner()
        try owner.start(graph: graph)
        watcher.expectDeallocation(of: owner, reason: "closed")
        owners.append(owner)
    }
    clock.advance(by: .seconds(2))
    let start = ContinuousClock.now
    let verdicts = watcher.check()
    let elapsed = ContinuousClock.now - start
    let leaks = verdicts.filter { $0.verdict == .leak }.count
    // Reports that explain the leak as the owner's cycle through its timer, from the run loop.
    let explained = verdicts.filter { $0.report?.retention == .rootPathAndCycle }.count
    if explained < leaks, let example = verdicts.first(where: { $0.report?.retention != .rootPathAndCycle })?.report,
        ProcessInfo.processInfo.environment["CHECKSCALE_SHOW"] != nil
    {
        print(example.text)
    }
    for owner in owners { owner.timer?.invalidate() }
    let parts = elapsed.components
    return (Double(parts.seconds) + Double(parts.attoseconds) * 1e-18, leaks, explained)
}

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sizes = counts.isEmpty ? [1_000, 10_000] : counts
#if DEBUG
let build = "debug"
#else
let build = "release"
#endif
var medians: [Double] = []
for count in sizes {
    var samples: [Double] = []
    var leaks = 0
    var explained = 0
    for _ in 0..<5 {
        let (seconds, found, paths) = try checkSeconds(count: count)
        samples.append(seconds)
        leaks = found
        explained = paths
    }
    samples.sort()
    let median = samples[samples.count / 2]
    medians.append(median)
    let ratio = medians.count > 1 ? String(format: ", %.2fx the first", median / medians[0]) : ""
    print(
        "load \(loadAverage()) | \(build) | check() of \(count) leaking watches: median "
            + String(format: "%.3f s", median) + " (\(leaks) leaks, \(explained) explained by path and cycle; "
            + samples.map { String(format: "%.3f", $0) }.joined(separator: " ") + ")\(ratio)")
}
