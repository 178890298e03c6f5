// ExitCheckScale: the census's snapshot of a test process's heap, and the at-exit leak check, in
// the build this binary was made in (run it from a debug and a release build: Scripts/
// exit-check-scale.sh does both in one run and prints the ratios).
//
//   ExitCheckScale [CONNECTIONS] [REQUESTS_PER_CONNECTION] [LEAKS] [REPEATS]
//
// Defaults: 100 connections of 45 requests (about 40,000 live objects of a server's shapes, see
// MixedHeap.swift) and 100 leaked cycles of each kind; each figure is the median of REPEATS (7)
// runs after a first, cold one (layouts compiled for every type). Prints wall and process CPU
// time with /proc/loadavg: on a loaded machine the CPU time is the figure to compare.
import CensusSupport
import HeapCensus
import SuiteLeaks

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
func argument(_ position: Int, _ fallback: Int) -> Int {
    arguments.count > position ? Int(arguments[position]) ?? fallback : fallback
}
let connections = argument(1, 100)
let requestsPerConnection = argument(2, 45)
let leaks = argument(3, 100)
let repeats = max(argument(4, 7), 1)

func line(_ text: String) {
    print(text)
    fflush(nil)
}

/// Times `body` once: wall and process CPU seconds.
func timed<T>(_ body: () -> T) -> (value: T, wall: Double, cpu: Double) {
    let wall = Clocks.wall
    let cpu = Clocks.processCPU
    let value = body()
    return (value, Clocks.wall - wall, Clocks.processCPU - cpu)
}

/// The median of `values`.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func milliseconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10_000).rounded())
    return "\(tenths / 10).\(tenths % 10) ms"
}

/// Runs `body` once cold and `repeats` times more; prints the cold figure and the medians.
func measure(_ name: String, _ body: () -> Void) {
    let cold = timed(body)
    var walls: [Double] = []
    var cpus: [Double] = []
    for _ in 0..<repeats {
        let run = timed(body)
        walls.append(run.wall)
        cpus.append(run.cpu)
    }
    line(
        "\(name): median wall \(milliseconds(median(walls))), CPU \(milliseconds(median(cpus)))"
            + " (first: wall \(milliseconds(cold.wall)), CPU \(milliseconds(cold.cpu)))")
}

func run() {
    #if DEBUG
    line("build: debug")
    #else
    line("build: release")
    #endif
    line("load average before: \(ProcessMemory.loadAverage)")
    guard HeapCensus.start() else {
        line("the census is unavailable here (\(HeapCensus.availability))")
        exit(1)
    }
    buildMixedHeap(
        connections: connections, requestsPerConnection: requestsPerConnection, leaks: leaks)
    line("live census objects: \(HeapCensus.liveObjectCount)")
    var objects = 0
    var references = 0
    measure("HeapCensus.snapshot()") {
        let heap = HeapCensus.snapshot()
        objects = heap.objectCount
        references = heap.referenceCount
    }
    line("objectCount: \(objects), referenceCount: \(references)")
    measure("HeapCensus.counts()") { _ = HeapCensus.counts() }
    // The at-exit check as the atexit handler runs it, without the wait for other threads and
    // with its summary on standard error: two snapshots (leaks are found, so the second
    // confirms them), the analysis, the groups' reports and the text.
    var found: LeakedCycles?
    var settings = ExitCheck.Settings(environment: [:])
    settings.settleSeconds = 0
    measure("the at-exit check (ExitCheck.run)") { found = ExitCheck.run(settings: settings).leaks }
    guard let found else { exit(1) }
    line(
        "leaked: \(found.cycleCount) cycles in \(found.groups.count) groups, "
            + "\(found.retainedBytes) bytes retained")
    let shapes = found.groups.map { $0.shape.joined(separator: " ⇒ ") }
    line("groups: \(shapes.joined(separator: "; "))")
    guard found.cycleCount == 2 * leaks, !shapes.contains(where: { $0.contains("HeldCycle") })
    else {
        line("FAILED: expected \(2 * leaks) leaked cycles and no HeldCycle")
        exit(1)
    }
    line("load average after: \(ProcessMemory.loadAverage)")
}

run()
