import HeapCensus
import LeakTracking
import Testing

/// A watched object leaked in a cycle whose address a stale word of another task's memory
/// holds (bytes the runtime never wrote, left in the task's block by a freed array): the
/// report names the cycle, not the task (about one full run in ten, before, a leaked
/// session delegate was "held by a Task" a test of another suite had made).
@Suite struct StaleTaskWordReportTests {
    init() { HeapCensus.start() }

    @Test func aLeakedCycleAStaleTaskWordPointsAtIsReportedAsItsCycle() async throws {
        // Written as a user would: a watcher, a watch, a check.
        let watcher = LeakWatcher(defaultGrace: .zero)
        weak let first = makePartners()
        defer { first?.other = nil }  // break the cycle so the objects die
        var address: UInt = 0
        if let first {
            watcher.expectDeallocation(of: first, reason: "dropped")
            address = UInt(bitPattern: Unmanaged.passUnretained(first).toOpaque())
        }
        #expect(address != 0)
        let strays = StrayTasks()
        defer { strays.cancelAll() }
        var read = try #require(
            await strays.snapshotWithStaleWord(to: address),
            "no stray task got a planted block in 20 tries")
        // The stale word is the heap's only path to the cycle. A reference another thread
        // holds for a moment (the tests run in parallel) is one from outside the heap while it
        // lasts: read again, a few times, until it is gone.
        var heapPath = read.object(at: address).flatMap { read.retentionPath(to: $0) }
        for _ in 0..<20 where heapPath?.holder != .task {
            try await Task.sleep(for: .milliseconds(10))
            read = HeapCensus.snapshot()
            heapPath = read.object(at: address).flatMap { read.retentionPath(to: $0) }
        }
        #expect(
            heapPath?.holder == .task,
            "the stale word is the heap's only path: \(heapPath?.description ?? "no path")")

        let verdict = try #require(watcher.check().first)
        #expect(verdict.verdict == .leak)
        let report = try #require(verdict.report)
        #expect(report.retention == .cycle, "\(report.text)")
        #expect(report.path.isEmpty, "\(report.text)")
        let cycle = try #require(report.cycle, "\(report.text)")
        #expect(cycle.count == 2 && cycle.allSatisfy { $0.description == ".other" })
    }
}

/// Two halves that hold each other and nothing else holds, made in a function of its own (no
/// local keeps them).
@inline(never) private func makePartners() -> CycleHalf {
    let first = CycleHalf()
    let second = CycleHalf()
    first.other = second
    second.other = first
    return first
}
