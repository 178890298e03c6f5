// PRIVATE GLIBC MALLOC DETAILS (glibc 2.26 and later, 64-bit), read from a copy of the heap.
//
// Relied on:
//   • A chunk is `prev_size`, `size` (low bits: PREV_INUSE 1, IS_MMAPPED 2, NON_MAIN_ARENA 4),
//     then the caller's bytes (the "user pointer" is the chunk + 16); sizes are multiples of 16,
//     at least 32. Chunks of a heap follow each other up to the top chunk, which ends the heap.
//   • A chunk is in use when the next chunk's PREV_INUSE bit is set; chunks in the tcache and the
//     fastbins keep that bit (they are taken out by GlibcHeap+FreeLists.swift).
//   • The main arena's heap is the `[heap]` mapping (brk). Other arenas live in heaps of up to
//     64 MiB aligned on 64 MiB, found from glibc's arena list (GlibcHeap+Arenas.swift).
//   • A heap that is not its arena's newest ends in fenceposts instead of a top chunk: a
//     16-byte chunk, then a header of size 0 (the old top, freed, comes before them). The main
//     arena's `[heap]` ends so too when `brk` failed and glibc went on with mmap.
//   • A chunk too large for a heap is a mapping of its own: `prev_size` 0, IS_MMAPPED set, a
//     size that is a multiple of the page size.

/// The blocks glibc's malloc has handed out in the target and not taken back, found by walking
/// its heaps in a copy of the target's memory.
///
/// Each block is a candidate Swift object; whether it is one is decided from its first word
/// (``MetadataCheck``). Freed blocks are excluded three ways: the next chunk's PREV_INUSE bit,
/// the tcache lists and the fastbins (which keep that bit set), and a first word that no longer
/// names metadata (malloc overwrites it with a list pointer when the block is freed). The heaps
/// walked are those of the arenas glibc lists; ``completeness`` says what could not be walked.
struct GlibcHeap {
    /// The user pointers of the blocks in use, ascending within each heap.
    private(set) var blocks: [UInt] = []
    /// Each block's usable size in bytes.
    private(set) var sizes: [UInt32] = []
    /// What the walk could not do, as sentences (``completeness``'s problems, then the free
    /// lists').
    private(set) var limitations: [String] = []
    /// What the walk read and what it could not, against glibc's arena list.
    private(set) var completeness = HeapWalkCompleteness()
    /// The arenas found (the main arena first when it was found).
    private(set) var arenas: [MallocArena] = []
    /// The heaps walked: the main arena's `[heap]` and the thread arenas' heaps.
    private(set) var heaps: [Range<UInt>] = []
    /// Freed blocks taken out because they sat in a tcache list or a fastbin.
    private(set) var excludedFreeBlocks = 0
    /// Every chunk start seen (in use or not), by address: to check free-list links.
    private(set) var chunkStarts: [UInt] = []
    private var chunkSizes: [UInt] = []

    static let heapMaximum = ArenaReader.heapMaximum

    /// Polled per chunk and per free-list link: a walk stops when it is spent.
    private let budget: AnalysisBudget

    /// Walks every heap of the target, within `budget` (a walk cut short says so in
    /// ``limitations`` and leaves the budget spent).
    init(_ memory: ProcessMemory, budget: AnalysisBudget = .unlimited) {
        self.budget = budget
        let mainHeap = memory.mappings.first { $0.path == "[heap]" }?.range
        var reader = ArenaReader(memory, mainHeap: mainHeap)
        let listed = reader.listedArenas()
        arenas = listed ?? reader.arenasFromHeaps()
        if listed != nil, reader.isPartial {
            // The arenas after the one not copied, found from their heaps.
            arenas += reader.arenasFromHeaps(excluding: Set(arenas.map(\.state)))
        }
        completeness.arenasListed = listed.map { $0.count + (reader.isPartial ? 1 : 0) }
        if listed == nil { completeness.problems.append(.arenaListNotFound) }
        var walked: [UInt: UInt] = [:]  // bytes chained, by arena
        if let mainHeap, let region = memory.region(containing: mainHeap.lowerBound), region.isCopy
        {
            let main = arenas.first { $0.isMain }
            let top = main.flatMap { mainHeap.contains($0.top) ? $0.top : nil }
            let end = walkHeap(region, heap: mainHeap, from: mainHeap.lowerBound, top: top)
            if main == nil, case .top(let top, _) = end, let found = reader.mainArena(withTop: top)
            {
                arenas.insert(found, at: 0)
            }
            if let main = arenas.first(where: \.isMain) {
                walked[main.state] = end.bytes(from: mainHeap.lowerBound)
            }
        }
        if let main = arenas.first(where: \.isMain), !(mainHeap?.contains(main.top) ?? false) {
            walked[main.state, default: 0] += walkMainOutsideHeap(main, memory: memory)
        }
        for arena in arenas where !arena.isMain {
            for heap in arena.heaps {
                guard let region = memory.region(containing: heap.base) else { continue }
                let range = heap.base..<heap.base + heap.size
                let start = ArenaReader.firstChunk(ofHeap: heap.base, arena: arena.state)
                let top = range.contains(arena.top) ? arena.top : nil
                let end = walkHeap(region, heap: range, from: start, top: top)
                walked[arena.state, default: 0] += end.bytes(from: heap.base)
            }
        }
        completeness.problems += reader.problems
        account(walked, listed: listed != nil)
        for region in memory.copiedRegions
        where !heaps.contains(where: { $0.contains(region.range.lowerBound) }) {
            walkMappedChunks(region, memory: memory)
        }
        let order = chunkStarts.indices.sorted { chunkStarts[$0] < chunkStarts[$1] }
        chunkStarts = order.map { chunkStarts[$0] }
        chunkSizes = order.map { chunkSizes[$0] }
        var free = FreeLists(heap: self, memory: memory, budget: budget)
        let freed = free.find(arenas: arenas.map(\.state))
        limitations = completeness.problems.map(\.description) + free.limitations
        excludeFreed(freed)
    }

    /// Walks the mapping that holds the main arena's top chunk when `brk` could not grow it
    /// and glibc went on with mmap: chunks from glibc's mapping's start up to the top chunk.
    /// (Older mappings of the kind end in fenceposts and are not found: the bytes check reports
    /// them.)
    ///
    /// The kernel merges glibc's mapping with anonymous mappings made next to it, so the one
    /// seen may begin with other pages: the walk starts at the first page from which the
    /// chunks chain to the top chunk.
    private mutating func walkMainOutsideHeap(_ main: MallocArena, memory: ProcessMemory) -> UInt {
        guard let mapping = ArenaReader.anonymousMapping(containing: main.top, in: memory),
            let region = memory.region(containing: mapping.lowerBound), region.isCopy,
            let start = firstPage(chainingTo: main.top, in: region, from: mapping.lowerBound),
            case .top(_, let end) = walkHeap(
                region, heap: start..<mapping.upperBound, from: start, top: main.top)
        else {
            completeness.problems.append(.mainArenaOutsideHeap(top: main.top))
            return 0
        }
        return end - start
    }

    /// The first page from `lowest` up to `top` from which arena chunks (never IS_MMAPPED)
    /// chain to the chunk at `top`, or nil (none, or the budget spent: pages of other memory
    /// that only look like chunks cost a walk each).
    private func firstPage(chainingTo top: UInt, in region: MemoryRegion, from lowest: UInt)
        -> UInt?
    {
        guard region.range.contains(top), top + 16 <= region.range.upperBound else { return nil }
        var page = (max(lowest, region.range.lowerBound) + 4095) & ~4095
        while page <= top {
            var chunk = page
            while chunk < top, budget.poll() {
                let header = region.local(chunk + 8).loadUnaligned(as: UInt.self)
                let size = header & ~7
                guard header & 2 == 0, size >= 32, size & 15 == 0, size <= top - chunk else {
                    break
                }
                chunk += size
            }
            if chunk == top { return page }
            page += 4096
        }
        return nil
    }

    /// Compares each arena's bytes from the system with the bytes the walk chained.
    private mutating func account(_ walked: [UInt: UInt], listed: Bool) {
        completeness.heapsWalked = heaps.count
        completeness.bytesWalked = Int(clamping: walked.values.reduce(0, +))
        if listed {
            completeness.bytesHeld = Int(clamping: arenas.reduce(0) { $0 + $1.heldBytes })
        }
        for arena in arenas {
            let chained = walked[arena.state] ?? 0
            if chained >= arena.heldBytes {
                completeness.arenasWalked += 1
            } else {
                completeness.problems.append(
                    .bytesNotWalked(
                        arena: arena.state, held: Int(clamping: arena.heldBytes),
                        walked: Int(clamping: chained)))
            }
        }
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

    /// How a heap's walk ended.
    enum HeapEnd {
        /// At the top chunk `top`, which runs to `end`: the arena's newest heap, walked whole.
        case top(UInt, end: UInt)
        /// At the fenceposts that close a heap that is not its arena's newest: walked whole.
        case fenceposts(end: UInt)
        /// At a chunk whose header makes no sense: the rest was not read.
        case broken(UInt)

        /// The bytes of the heap starting at `base` that the walk chained.
        func bytes(from base: UInt) -> UInt {
            switch self {
            case .top(_, let end), .fenceposts(let end): return end &- base
            case .broken(let chunk): return chunk &- base
            }
        }
    }

    /// Walks the chunks of the heap `heap` from `start`, up to its top chunk `top` (when the
    /// heap holds it), its fenceposts, or its end.
    private mutating func walkHeap(
        _ region: MemoryRegion, heap: Range<UInt>, from start: UInt, top: UInt?
    ) -> HeapEnd {
        let end = min(heap.upperBound, region.range.upperBound)
        var chunk = (start + 15) & ~15
        defer { heaps.append(heap) }
        while chunk + 16 <= end, budget.poll() {
            let size = region.local(chunk + 8).loadUnaligned(as: UInt.self) & ~7
            if top == nil, size == 16 || size == 0, heap.upperBound - chunk <= 8192 {
                // A fencepost (the 16-byte chunk, or the size-0 header after it) ends the heap.
                return .fenceposts(end: heap.upperBound)
            }
            guard size >= 32, size & 15 == 0, size <= heap.upperBound - chunk else { break }
            chunkStarts.append(chunk)
            chunkSizes.append(size)
            let next = chunk + size
            // The top chunk is free, and runs to the end of the heap.
            if chunk == top || (top == nil && next + 16 > end) { return .top(chunk, end: next) }
            guard next + 16 <= end else { break }
            if region.local(next + 8).loadUnaligned(as: UInt.self) & 1 != 0 {
                blocks.append(chunk + 16)
                sizes.append(UInt32(clamping: size - 8))
            }
            chunk = next
        }
        completeness.problems.append(
            .chunksDidNotChain(heap: heap.lowerBound, chunk: chunk, end: heap.upperBound))
        return .broken(chunk)
    }

    /// Large blocks that are mappings of their own, in an anonymous region.
    ///
    /// The kernel merges adjacent anonymous mappings of one protection, so the region may hold
    /// other memory before, between and after such blocks (another allocator's pages, a block
    /// freed and mapped again by something else): a block is looked for at every page that
    /// lies in no block found, not only from the region's start (which missed every block of
    /// a region that began with other pages: about 60 of the 80 payload blocks of a fork dump,
    /// once in 30 runs). A block's header is glibc's for a mapped chunk: `prev_size` 0, the
    /// size a multiple of the page with IS_MMAPPED its only flag; a page that only looks so
    /// gives a candidate that its first word (not metadata) rules out.
    private mutating func walkMappedChunks(_ region: MemoryRegion, memory: ProcessMemory) {
        guard !region.range.isEmpty,
            memory.mappings.contains(where: {
                $0.range.lowerBound == region.range.lowerBound && !$0.isFile && $0.path.isEmpty
            })
        else { return }
        var chunk = region.range.lowerBound
        let end = region.range.upperBound
        while end - chunk >= 4096, budget.poll() {
            let previous = region.local(chunk).loadUnaligned(as: UInt.self)
            let header = region.local(chunk + 8).loadUnaligned(as: UInt.self)
            let size = header & ~7
            guard previous == 0, header & 7 == 2, size >= 4096, size & 4095 == 0,
                size <= end - chunk
            else {
                chunk += 4096
                continue
            }
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
