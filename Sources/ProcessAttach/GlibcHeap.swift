// PRIVATE GLIBC MALLOC DETAILS (glibc 2.26 and later, 64-bit), read from a copy of the heap.
//
// Relied on:
//   • A chunk is `prev_size`, `size` (low bits: PREV_INUSE 1, IS_MMAPPED 2, NON_MAIN_ARENA 4),
//     then the caller's bytes (the "user pointer" is the chunk + 16); sizes are multiples of 16,
//     at least 32. Chunks of a heap follow each other up to the top chunk, which ends the heap.
//   • A chunk is in use when the next chunk's PREV_INUSE bit is set; chunks in the tcache and the
//     fastbins keep that bit (they are taken out by GlibcHeap+FreeLists.swift).
//   • The main arena's heap is the `[heap]` mapping (brk). Other arenas live in heaps of up to
//     64 MiB aligned on 64 MiB, each starting with a `heap_info` whose first word is its arena;
//     an arena's first heap holds the arena's `malloc_state` right after its `heap_info`.
//   • A chunk too large for a heap is a mapping of its own: `prev_size` 0, IS_MMAPPED set, a
//     size that is a multiple of the page size.

/// The blocks glibc's malloc has handed out in the target and not taken back, found by walking
/// its heaps in a copy of the target's memory.
///
/// Each block is a candidate Swift object; whether it is one is decided from its first word
/// (``MetadataCheck``). Freed blocks are excluded three ways: the next chunk's PREV_INUSE bit,
/// the tcache lists and the fastbins (which keep that bit set), and a first word that no longer
/// names metadata (malloc overwrites it with a list pointer when the block is freed).
struct GlibcHeap {
    /// The user pointers of the blocks in use, ascending within each heap.
    private(set) var blocks: [UInt] = []
    /// Each block's usable size in bytes.
    private(set) var sizes: [UInt32] = []
    /// What the walk could not do (a heap whose chunks did not chain, an arena not found).
    private(set) var limitations: [String] = []
    /// The heaps walked: their ranges, and their top chunks.
    private(set) var heaps: [(range: Range<UInt>, top: UInt)] = []
    /// Freed blocks taken out because they sat in a tcache list or a fastbin.
    private(set) var excludedFreeBlocks = 0
    /// Every chunk start seen (in use or not), by address: to check free-list links.
    private(set) var chunkStarts: [UInt] = []
    private var chunkSizes: [UInt] = []

    static let heapMaximum: UInt = 64 << 20

    /// Walks every heap of the target.
    init(_ memory: ProcessMemory) {
        var mainHeap: Range<UInt>?
        for mapping in memory.mappings where mapping.path == "[heap]" { mainHeap = mapping.range }
        if let mainHeap, let region = memory.region(containing: mainHeap.lowerBound) {
            walkHeap(region, from: mainHeap.lowerBound, to: mainHeap.upperBound, isMain: true)
        }
        for region in memory.copiedRegions
        where region.range.lowerBound % Self.heapMaximum == 0 && !isHeap(region.range) {
            walkArenaHeap(region)
        }
        for region in memory.copiedRegions where !isHeap(region.range) {
            walkMappedChunks(region, memory: memory)
        }
        let order = chunkStarts.indices.sorted { chunkStarts[$0] < chunkStarts[$1] }
        chunkStarts = order.map { chunkStarts[$0] }
        chunkSizes = order.map { chunkSizes[$0] }
        var free = FreeLists(heap: self, memory: memory)
        let freed = free.find()
        limitations += free.limitations
        excludeFreed(freed)
    }

    private func isHeap(_ range: Range<UInt>) -> Bool {
        heaps.contains { $0.range.overlaps(range) }
    }

    /// The size of the chunk starting at `chunk`, or nil when no chunk starts there.
    func chunkSize(at chunk: UInt) -> UInt? {
        var low = 0
        var high = chunkStarts.count
        while low < high {
            let middle = (low + high) / 2
            if chunkStarts[middle] < chunk { low = middle + 1 } else { high = middle }
        }
        return low < chunkStarts.count && chunkStarts[low] == chunk ? chunkSizes[low] : nil
    }

    /// Walks a thread arena's heap: its `heap_info`, then (in an arena's first heap) the
    /// `malloc_state`, then the chunks up to the heap's size.
    private mutating func walkArenaHeap(_ region: MemoryRegion) {
        let base = region.range.lowerBound
        let arena = region.local(base).loadUnaligned(as: UInt.self)
        let size = region.local(base + 16).loadUnaligned(as: UInt.self)
        guard size >= 4096, size <= UInt(region.range.count), size <= Self.heapMaximum else {
            return
        }
        let end = base + size
        // The first chunk follows the heap_info (32 or 48 bytes, by glibc version) or, in an
        // arena's first heap, the malloc_state (about 2 KiB): try each plausible start, keep
        // the one whose chunks chain exactly to the end of the heap.
        var starts: [UInt] = [base + 32, base + 48]
        if arena > base, arena < base + 64 {
            starts = stride(from: arena + 1024, to: min(arena + 4096, end), by: 16).map { $0 }
        }
        for start in starts where chains(region, from: start, to: end) {
            walkHeap(region, from: start, to: end, isMain: false)
            return
        }
    }

    /// Whether chunks starting at `start` chain to exactly `end`.
    private func chains(_ region: MemoryRegion, from start: UInt, to end: UInt) -> Bool {
        var chunk = start
        var steps = 0
        while chunk < end {
            guard end - chunk >= 16 else { return false }
            let size = region.local(chunk + 8).loadUnaligned(as: UInt.self) & ~7
            guard size >= 32, size & 15 == 0, size <= end - chunk else { return false }
            if steps == 0, region.local(chunk + 8).loadUnaligned(as: UInt.self) & 1 == 0 {
                return false  // the first chunk always has PREV_INUSE set
            }
            chunk += size
            steps += 1
        }
        return chunk == end
    }

    /// Walks the chunks from `start`; the last one is the top chunk.
    private mutating func walkHeap(
        _ region: MemoryRegion, from start: UInt, to limit: UInt, isMain: Bool
    ) {
        let end = min(limit, region.range.upperBound)
        var chunk = (start + 15) & ~15
        while chunk + 16 <= end {
            let header = region.local(chunk + 8).loadUnaligned(as: UInt.self)
            let size = header & ~7
            guard size >= 32, size & 15 == 0, size <= end - chunk else {
                limitations.append(
                    "the heap at 0x\(String(start, radix: 16)) has a broken chunk at "
                        + "0x\(String(chunk, radix: 16)) (a thread was inside malloc?); its "
                        + "rest was not read")
                break
            }
            chunkStarts.append(chunk)
            chunkSizes.append(size)
            let next = chunk + size
            if next + 16 > end {
                heaps.append((start..<end, chunk))  // the top chunk: free
                return
            }
            if region.local(next + 8).loadUnaligned(as: UInt.self) & 1 != 0 {
                blocks.append(chunk + 16)
                sizes.append(UInt32(clamping: size - 8))
            }
            chunk = next
        }
        heaps.append((start..<end, chunk))
    }

    /// Large blocks that are mappings of their own, one after another in an anonymous region.
    private mutating func walkMappedChunks(_ region: MemoryRegion, memory: ProcessMemory) {
        guard !region.range.isEmpty,
            memory.mappings.contains(where: {
                $0.range.lowerBound == region.range.lowerBound && !$0.isFile && $0.path.isEmpty
            })
        else { return }
        var chunk = region.range.lowerBound
        let end = region.range.upperBound
        while end - chunk >= 4096 {
            let previous = region.local(chunk).loadUnaligned(as: UInt.self)
            let header = region.local(chunk + 8).loadUnaligned(as: UInt.self)
            let size = header & ~7
            guard previous == 0, header & 2 != 0, size >= 4096, size & 4095 == 0,
                size <= end - chunk
            else { return }
            chunkStarts.append(chunk)
            chunkSizes.append(size)
            blocks.append(chunk + 16)
            sizes.append(UInt32(clamping: size - 16))
            chunk += size
        }
    }

    /// Takes the freed blocks out of `blocks`.
    private mutating func excludeFreed(_ freed: Set<UInt>) {
        guard !freed.isEmpty else { return }
        var keptBlocks: [UInt] = []
        var keptSizes: [UInt32] = []
        keptBlocks.reserveCapacity(blocks.count)
        keptSizes.reserveCapacity(blocks.count)
        for (index, block) in blocks.enumerated() where !freed.contains(block - 16) {
            keptBlocks.append(block)
            keptSizes.append(sizes[index])
        }
        excludedFreeBlocks = blocks.count - keptBlocks.count
        blocks = keptBlocks
        sizes = keptSizes
    }
}
