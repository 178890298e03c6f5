import Foundation
import ProcessAttach
import Testing

/// The walk of glibc's heaps finds every object, whatever the target did before the attach
/// (issue 31): arenas of several heaps, images its own code mapped again.
@Suite("Heap walk: every arena, every heap, every image", .timeLimit(.minutes(10)))
struct HeapWalkTests {
    @Test("Objects made on a thread whose arena grew a second heap are all found")
    func arenaOfTwoHeaps() throws {
        let target = try AttachTargets.start("attach-arena-heaps", ["24000"])
        // 100 MiB to copy: the stop may last past the default 5 s on a loaded machine.
        let heap = try HeapSnapshot.capture(
            processID: target.pid, options: AttachOptions(maximumStop: .seconds(120)))
        // Before, the arena's first heap (its malloc_state and 64 MiB of objects) was skipped
        // without a word: 7,543 of the 24,000.
        #expect(heap.objects(ofType: "attach_arena_heaps.Record").count == 24_000)
        let counts = Dictionary(
            uniqueKeysWithValues: heap.countsByType().map { ($0.typeName, $0.count) })
        #expect((counts["[UInt8] storage"] ?? 0) >= 24_000)
        let walk = try #require(heap.statistics.heapWalk)
        #expect(walk.isComplete, "\(walk.problems)")
        #expect(walk.arenasListed == 2)  // the main arena and the thread's
        #expect(walk.arenasWalked == 2)
        #expect(walk.heapsWalked == 3)  // [heap] and the thread arena's two
        #expect(walk.bytesWalked == walk.bytesHeld)
        #expect(walk.bytesWalked > 64 << 20)
        #expect(target.isRunningUntraced)
    }

    @Test("Objects of a main arena that brk could not grow (glibc went on with mmap) are found")
    func mainArenaBeyondBrk() throws {
        let target = try AttachTargets.start("attach-brk-blocked", ["2000"])
        let heap = try HeapSnapshot.capture(processID: target.pid)
        // Before, the walk stopped at [heap]'s fenceposts ("a broken chunk"): 140 of 2,000.
        #expect(heap.objects(ofType: "attach_brk_blocked.Item").count == 2000)
        let walk = try #require(heap.statistics.heapWalk)
        #expect(walk.isComplete, "\(walk.problems)")
        #expect(walk.heapsWalked == 2)  // [heap], then the mapping glibc took instead
        #expect(walk.bytesWalked == walk.bytesHeld)
    }

    @Test(
        "After the target symbolicated a backtrace (mapping libswiftCore and libc again), an attach finds the same objects"
    )
    func attachAfterSymbolication() throws {
        let target = try AttachTargets.start("attach-symbolicated", ["100"])
        let before = try HeapSnapshot.capture(processID: target.pid)
        target.send("symbolicate")
        _ = try target.waitForLine { $0.hasPrefix("symbolicated") }
        let after = try HeapSnapshot.capture(processID: target.pid)
        // Symbolication only adds objects (its caches): every type seen before is still there,
        // at least as many. Before the fix, the attach took the second mapping of libswiftCore
        // for the image and lost every object whose metadata lies there.
        let counts = Dictionary(
            uniqueKeysWithValues: after.countsByType().map { ($0.typeName, $0.count) })
        let lost = before.countsByType().filter { (counts[$0.typeName] ?? 0) < $0.count }
        #expect(lost.isEmpty, "types with fewer objects after: \(lost)")
        #expect(after.objects(ofType: "attach_symbolicated.Entry").count == 100)
        #expect((counts["String storage"] ?? 0) >= 100)
        #expect((counts["[UInt8] storage"] ?? 0) >= 100)
        #expect((counts["[String: Entry] storage"] ?? 0) == 1, "\(after.countsByType())")
        #expect(!after.limitations.contains { $0.contains("arena") }, "\(after.limitations)")
        #expect(after.statistics.heapWalk?.isComplete == true)
        // The cache's entries are held by the dictionary's storage, not "from outside".
        let entry = try #require(after.objects(ofType: "attach_symbolicated.Entry").first)
        let path = try #require(after.retentionPath(to: entry))
        #expect(path.objects.contains { $0.typeName == "[String: Entry] storage" })
    }
}
