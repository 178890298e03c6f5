import HeapCensus
import Testing

/// Leaked cycles beside tasks whose memory holds the cycle's addresses: as a stale word (bytes
/// the runtime never wrote, left by a freed array of the program), and as a finished task's
/// result. Only the second keeps the cycle alive.
@Suite struct UnreachableCyclesInTaskMemoryTests {
    init() { HeapCensus.start() }

    /// The stray's stale word never holds the cycle. Another object may hold it all the same,
    /// in a parallel run: a stray cancelled for holding no stale word frees a block the cycle's
    /// address was planted in, and whatever the allocator gives that block to next (another
    /// test's closure context, read conservatively) holds the cycle as any such word would (a
    /// CI run met "a Task ⇒ Task ⇒ (runs) closure context ⇒ (captures CycleHalf
    /// (conservative))"). So the test takes a fresh cycle, at a fresh address, up to five
    /// times: a path through the stray fails it at once, and one of the five must be reported.
    @Test func aStaleWordOfATasksMemoryDoesNotHideALeakedCycle() async throws {
        var heldElsewhere: [String] = []
        for _ in 0..<5 {
            let (first, second) = makeLeakedCycle()
            // Another task gets a block full of the cycle's first address.
            let strays = StrayTasks()
            defer { strays.cancelAll() }
            let read = try #require(
                await strays.snapshotWithStaleWord(to: first),
                "no stray task got a planted block in 20 tries")
            let leaked = Set(
                UnreachableCycles(in: read).groups.flatMap(\.cycles).flatMap(\.addresses))
            if leaked.isSuperset(of: [first, second]) { return }
            let path = try #require(read.object(at: first).flatMap { read.retentionPath(to: $0) })
            let stray = try #require(strays.holding).task
            #expect(
                !path.objects.contains { $0.address == unsafeBitCast(stray, to: UInt.self) },
                "the stray's stale word holds the cycle: \(path.description)")
            heldElsewhere.append(path.description)
        }
        Issue.record("the cycle was held in all five tries: \(heldElsewhere)")
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
