import HeapCensus
import Testing

/// Leaked cycles beside tasks whose memory holds the cycle's addresses: as a stale word (bytes
/// the runtime never wrote, left by a freed array of the program), and as a finished task's
/// result. Only the second keeps the cycle alive.
@Suite struct UnreachableCyclesInTaskMemoryTests {
    init() { HeapCensus.start() }

    @Test func aStaleWordOfATasksMemoryDoesNotHideALeakedCycle() async throws {
        let (first, second) = makeLeakedCycle()
        // Another task gets a block full of the cycle's first address.
        let strays = StrayTasks()
        defer { strays.cancelAll() }
        let read = try #require(
            await strays.snapshotWithStaleWord(to: first),
            "no stray task got a planted block in 20 tries")
        let leaked = Set(
            UnreachableCycles(in: read).groups.flatMap(\.cycles).flatMap(\.addresses))
        let path = read.object(at: first).flatMap { read.retentionPath(to: $0) }
        #expect(leaked.isSuperset(of: [first, second]), "\(path?.description ?? "no path")")
    }

    @Test func aCycleAFinishedTasksResultHoldsIsNotLeaked() async throws {
        let task = Task.detached { makeHeldCycle().0 }
        let first = addressOf(await task.value)
        // Only the task's result (in its own block, read word by word) holds the cycle now.
        let heap = HeapCensus.snapshot()
        let member = try #require(heap.object(at: first))
        let path = try #require(heap.retentionPath(to: member))
        #expect(path.references.last?.role == .runs, "\(path.description)")
        let leaked = Set(UnreachableCycles(in: heap).groups.flatMap(\.cycles).flatMap(\.addresses))
        #expect(!leaked.contains(first))
        withExtendedLifetime(task) {}
    }
}

/// A cycle of two no one else holds, made in a function of its own (no local keeps it).
@inline(never) private func makeLeakedCycle() -> (UInt, UInt) {
    let (first, second) = makeHeldCycle()
    return (addressOf(first), addressOf(second))
}

@inline(never) private func makeHeldCycle() -> (CycleHalf, CycleHalf) {
    let first = CycleHalf()
    let second = CycleHalf()
    first.other = second
    second.other = first
    return (first, second)
}

private func addressOf(_ object: AnyObject) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
}
