// TaskCheckScale: the leaked-task check at the end of a test (issue 34: "leaked-task check at
// the end of a test, 1,000 live tasks ≤ 20 ms"), in the build this binary was made in
// (Scripts/tasks-scale.sh runs it in release).
//
//   TaskCheckScale [LIVE] [REPEATS]
//
// LIVE tasks (default 1,000) are parked on continuations before any check: the tasks a test
// process has that the test did not start. Then, each the median of REPEATS (default 15) runs
// after a cold one:
//   1. the check of a test that started no task (the census's table read twice);
//   2. the check of a test whose one task ends at once (the same, plus the wait for it);
//   3. the check of a test that leaves LIVE tasks parked (each read through the remote mirror,
//      symbolicated: the failing path), with a grace of 0.
// Prints wall and process CPU time with /proc/loadavg: on a loaded machine the CPU time is the
// figure to compare.
import CensusSupport
import HeapCensus
import ProcessAttach
import RetainGraphTesting

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
func argument(_ position: Int, _ fallback: Int) -> Int {
    arguments.count > position ? Int(arguments[position]) ?? fallback : fallback
}
let live = argument(1, 1_000)
let repeats = max(argument(2, 15), 1)

/// Continuations nobody resumes until the program ends.
final class Parking: @unchecked Sendable {
    private var continuations: [CheckedContinuation<Void, Never>] = []
    private let lock = NSLockLike()

    var count: Int { lock.locked { continuations.count } }

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        lock.locked { continuations.append(continuation) }
    }

    func resumeAll() {
        let parked = lock.locked {
            defer { continuations.removeAll() }
            return continuations
        }
        for continuation in parked { continuation.resume() }
    }

    func waitUntil(_ count: Int) async {
        while self.count < count { await Task.yield() }
    }
}

/// A pthread mutex (no Foundation in this benchmark).
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}

func park(_ parking: Parking) async {
    await withCheckedContinuation { parking.park($0) }
}

func milliseconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10_000).rounded())
    return "\(tenths / 10).\(tenths % 10) ms"
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Runs `check` once cold and `repeats` times more; prints the cold figure and the medians.
func measure(_ name: String, _ check: () async throws -> Int) async throws {
    var walls: [Double] = []
    var cpus: [Double] = []
    var found = 0
    for run in 0...repeats {
        let wall = Clocks.wall
        let cpu = Clocks.processCPU
        found = try await check()
        if run == 0 {
            print("\(name): cold \(milliseconds(Clocks.wall - wall)) wall, "
                + "\(milliseconds(Clocks.processCPU - cpu)) CPU")
        } else {
            walls.append(Clocks.wall - wall)
            cpus.append(Clocks.processCPU - cpu)
        }
    }
    print("\(name): median \(milliseconds(median(walls))) wall, \(milliseconds(median(cpus))) CPU "
        + "(\(found) tasks reported; load \(ProcessMemory.loadAverage))")
}

guard HeapCensus.start() else {
    print("the census is unavailable")
    exit(2)
}
let background = Parking()
for _ in 0..<live { Task { await park(background) } }
await background.waitUntil(live)
print("\(live) live tasks parked; \(HeapCensus.liveObjectCount) live objects; remote mirror: "
    + (TaskInspection.thisProcess() == nil
        ? "unavailable (\(TaskInspection.thisProcessUnavailableReason ?? "?"))" : "loaded"))
let file = #filePath
try await measure("1. a test that started no task") {
    try await withLeakedTaskDetection(startedIn: file, function: "TaskCheckScale") {}.count
}
try await measure("2. a test whose task ends at once") {
    try await withLeakedTaskDetection(startedIn: file) {
        Task { await Task.yield() }
    }.count
}
try await measure("3. a test that leaves \(live) tasks parked") {
    let left = Parking()
    defer { left.resumeAll() }
    return try await withLeakedTaskDetection(grace: .zero, startedIn: file) {
        for _ in 0..<live { Task { await park(left) } }
        await left.waitUntil(live)
    }.count
}
