import Foundation
import Testing

@testable import ProcessAttach

/// A walk that cannot read some heap memory says so (``HeapWalkCompleteness``), checked on
/// real copies of a real target with a region taken out or moved, as a damaged or cut copy
/// would have it.
@Suite("Heap walk completeness: what was not read is reported", .timeLimit(.minutes(5)))
struct HeapWalkCompletenessTests {
    /// One copy of `attach-arena-heaps` (two arenas; the thread's of two heaps) for every
    /// test: the target is killed once it is copied. (Its stop may last past the default 5 s
    /// on a loaded machine: what is checked here is the walk of the copy.)
    static let captured: Result<ProcessMemory, any Error> = Result {
        let target = try AttachTargets.start("attach-arena-heaps", ["24000"])
        defer { target.stop() }
        let process = try StoppedProcess(
            processID: target.pid, options: AttachOptions(maximumStop: .seconds(120)))
        let memory = try process.captureMemory()
        _ = process.resume()
        return memory
    }

    /// The copy, its whole walk, and the arena of two heaps.
    private func capture() throws -> (ProcessMemory, GlibcHeap, MallocArena) {
        let memory = try Self.captured.get()
        let heap = GlibcHeap(memory)
        #expect(heap.completeness.isComplete, "\(heap.completeness.problems)")
        let arena = try #require(heap.arenas.first { $0.heaps.count == 2 }, "\(heap.arenas)")
        return (memory, heap, arena)
    }

    /// `memory` with `regions` instead of its own.
    private func replacing(_ memory: ProcessMemory, with regions: [MemoryRegion]) -> ProcessMemory {
        ProcessMemory(
            processID: memory.processID, command: memory.command, threads: memory.threads,
            mappings: memory.mappings, images: memory.images, regions: regions,
            limitations: memory.limitations)
    }

    @Test("A heap missing from the copy is named, with the bytes of its arena not walked")
    func newestHeapDropped() throws {
        let (memory, whole, arena) = try capture()
        let newest = arena.heaps[0]  // the one holding the top chunk
        let copy = replacing(
            memory, with: memory.regions.filter { !$0.range.contains(newest.base) })
        let walk = GlibcHeap(copy).completeness
        #expect(!walk.isComplete)
        #expect(
            walk.problems.contains(.heapNotRead(arena: arena.state, heap: newest.base, size: 0)))
        #expect(walk.bytesNotWalked == Int(newest.size))
        #expect(walk.arenasListed == 2)
        #expect(walk.arenasWalked == 1)  // the main arena
        // The arena's first heap, known from the arena's address, is still walked.
        #expect(walk.heapsWalked == whole.completeness.heapsWalked - 1)
        #expect(GlibcHeap(copy).limitations.contains { $0.hasPrefix("the heap at 0x") })
    }

    @Test("An arena whose first heap (its malloc_state) is missing is named")
    func firstHeapDropped() throws {
        let (memory, whole, arena) = try capture()
        let first = arena.heaps[1]
        let copy = replacing(memory, with: memory.regions.filter { !$0.range.contains(first.base) })
        let heap = GlibcHeap(copy)
        #expect(heap.completeness.problems.contains(.arenaUnreadable(arena: arena.state)))
        #expect(heap.completeness.arenasListed == 2)
        #expect(heap.completeness.arenasWalked == 1)
        #expect(heap.blocks.count < whole.blocks.count)
        #expect(heap.limitations.contains { $0.contains("could not be read") })
    }

    @Test("A heap whose mapping merged with the anonymous mapping below it is walked whole")
    func heapInsideALargerMapping() throws {
        let (memory, whole, arena) = try capture()
        let newest = arena.heaps[0]
        let original = try #require(memory.region(containing: newest.base))
        // The kernel merges adjacent anonymous mappings of the same protection: a heap's
        // mapping then starts below the heap's 64 MiB boundary.
        let below: UInt = 1 << 20
        let merged = (original.range.lowerBound - below)..<original.range.upperBound
        try #require(
            !memory.regions.contains { $0 !== original && $0.range.overlaps(merged) },
            "something is mapped right below the heap")
        let region = try #require(MemoryRegion(copying: merged))
        let bytes = try #require(region.mutableBase)
        (bytes + Int(below)).copyMemory(from: original.base, byteCount: original.range.count)
        let copy = replacing(memory, with: memory.regions.filter { $0 !== original } + [region])
        let heap = GlibcHeap(copy)
        #expect(heap.completeness.isComplete, "\(heap.completeness.problems)")
        #expect(heap.blocks == whole.blocks)
    }

    @Test("Without glibc's arena list the walk says so")
    func listNotFound() throws {
        let (memory, _, arena) = try capture()
        // libc's data taken out: main_arena cannot be read, nor found.
        let libc = try #require(memory.images.image(named: "libc.so.6"))
        let copy = replacing(
            memory,
            with: memory.regions.filter { region in
                !libc.writableRanges.contains { $0.overlaps(region.range) }
            })
        let heap = GlibcHeap(copy)
        #expect(heap.completeness.problems.first == .arenaListNotFound)
        #expect(heap.completeness.arenasListed == nil)
        // The thread arena is still found from its heaps, and walked.
        #expect(heap.arenas.contains { $0.state == arena.state })
        #expect(heap.limitations.first?.hasPrefix("glibc's arena list") == true)
    }
}
