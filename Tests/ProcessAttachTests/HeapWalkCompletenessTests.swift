import Foundation
import Testing

@testable import ProcessAttach

/// A walk that cannot read some heap memory says so (``HeapWalkCompleteness``), checked on
/// real copies of a real target with a region taken out or moved, as a damaged or cut copy
/// would have it.
@Suite("Heap walk completeness: what was not read is reported", .timeLimit(.minutes(10)))
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

    /// `memory` without the bytes of `cut`, the rest of a region that held some of them kept.
    /// (The kernel merges adjacent mappings of one protection: one region may hold both heaps
    /// of an arena, or a heap and whatever was mapped beside it.)
    private func cutting(_ cut: Range<UInt>, from memory: ProcessMemory) throws -> ProcessMemory {
        var regions: [MemoryRegion] = []
        for region in memory.regions {
            guard region.range.overlaps(cut) else {
                regions.append(region)
                continue
            }
            let below = region.range.lowerBound..<max(region.range.lowerBound, cut.lowerBound)
            let above = min(region.range.upperBound, cut.upperBound)..<region.range.upperBound
            for part in [below, above] where !part.isEmpty {
                regions.append(try piece(part, of: [region]))
            }
        }
        return replacing(memory, with: regions)
    }

    /// A copy of `range`, its bytes taken from whichever of `regions` hold them.
    private func piece(_ range: Range<UInt>, of regions: [MemoryRegion]) throws -> MemoryRegion {
        let piece = try #require(MemoryRegion(copying: range))
        let bytes = try #require(piece.mutableBase)
        for region in regions {
            let part = range.clamped(to: region.range)
            guard !part.isEmpty else { continue }
            (bytes + Int(part.lowerBound - range.lowerBound)).copyMemory(
                from: region.base + Int(part.lowerBound - region.range.lowerBound),
                byteCount: part.count)
        }
        return piece
    }

    /// The addresses a heap may span: heaps are aligned to their largest size, 64 MiB.
    private func window(of heap: UInt) -> Range<UInt> { heap..<heap + (64 << 20) }

    @Test("A heap missing from the copy is named, with the bytes of its arena not walked")
    func newestHeapDropped() throws {
        let (memory, whole, arena) = try capture()
        let newest = arena.heaps[0]  // the one holding the top chunk
        let copy = try cutting(window(of: newest.base), from: memory)
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
        let copy = try cutting(window(of: first.base), from: memory)
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
        // mapping then starts below the heap's 64 MiB boundary (one region with whatever was
        // mapped right below, when something was).
        let below = (original.range.lowerBound - (1 << 20))..<original.range.upperBound
        let absorbed = memory.regions.filter { $0.range.overlaps(below) }
        let start = absorbed.map(\.range.lowerBound).min() ?? below.lowerBound
        let merged = min(start, below.lowerBound)..<original.range.upperBound
        let region = try piece(merged, of: absorbed)
        let copy = replacing(
            memory, with: memory.regions.filter { !$0.range.overlaps(merged) } + [region])
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
