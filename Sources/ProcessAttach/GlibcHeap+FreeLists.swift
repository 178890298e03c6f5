// PRIVATE GLIBC MALLOC DETAILS (glibc 2.32 and later, 64-bit): the free lists whose chunks keep
// their in-use bit.
//
// Relied on:
//   • A thread's tcache is a 0x290-byte chunk: `uint16_t counts[64]`, then `entries[64]`, each
//     the user pointer of the first free chunk of size 32 + 16·i. A free chunk's first word
//     links to the next, "safe-linked": stored = (address of the word >> 12) ^ next. Its second
//     word is the process's random `tcache_key`.
//   • An arena's `malloc_state`: four ints, `fastbinsY[10]` from byte 16 (chunk pointers, not
//     user pointers; links safe-linked in the chunk's first user word), `top` at byte 96.
//     GlibcHeap+Arenas.swift finds every arena's state.

/// Finds the chunks sitting in tcache lists and fastbins.
///
/// Every link is the target's word: lists may loop or be planted. A tcache list is followed at
/// most its count's links, a fastbin at most as many links as the heap has chunks, and all the
/// lists together at most ``maximumLinks(chunks:)`` links (a heap of many planted tcaches would
/// otherwise cost 64 × 65,535 links each); past that the rest is left in the heap, and said.
struct FreeLists {
    private let heap: GlibcHeap
    private let memory: ProcessMemory
    private var cursor: MemoryCursor
    private let budget: AnalysisBudget
    private(set) var limitations: [String] = []
    /// Links left to follow.
    private var links: Int

    /// The most links all lists together may have: each chunk is in one list at most, so a
    /// real heap has fewer; twice that, and a floor for tiny heaps.
    static func maximumLinks(chunks: Int) -> Int { 2 * chunks + 65_536 }

    init(heap: GlibcHeap, memory: ProcessMemory, budget: AnalysisBudget = .unlimited) {
        self.heap = heap
        self.memory = memory
        self.budget = budget
        cursor = MemoryCursor(memory)
        links = Self.maximumLinks(chunks: heap.chunkStarts.count)
    }

    /// Counts one link followed; false once there were too many (said once).
    private mutating func follow() -> Bool {
        guard links > 0, budget.poll() else {
            if links == 0 {
                limitations.append(
                    "glibc's free lists have more links than the heap has chunks (looping or "
                        + "planted lists): the rest were not followed, and freed blocks they "
                        + "hold may be read as objects")
                links = -1
            }
            return false
        }
        links -= 1
        return true
    }

    /// The chunk addresses of every block in a tcache list or a fastbin.
    ///
    /// - Parameter arenas: The `malloc_state` of every arena found (GlibcHeap+Arenas.swift).
    mutating func find(arenas: [UInt]) -> Set<UInt> {
        var free = Set<UInt>()
        var key: UInt?
        // Every chunk of the tcache's size whose lists all check out is a tcache.
        // (A block's usable size is its chunk's less 8: no binary search per block.)
        for (index, block) in heap.blocks.enumerated() where heap.sizes[index] == 0x290 - 8 {
            guard let chunks = tcacheChunks(at: block) else { continue }
            for chunk in chunks {
                free.insert(chunk)
                if key == nil { key = cursor.word(at: chunk + 24) }
            }
        }
        // A tcache this walk did not find (its thread's struct was not recognised) still
        // marks its chunks with the key.
        if let key, key != 0 {
            for block in heap.blocks where cursor.word(at: block + 8) == key {
                free.insert(block - 16)
            }
        }
        if arenas.isEmpty, !heap.heaps.isEmpty {
            limitations.append(
                "glibc's arenas were not found: freed blocks in fastbins are excluded only by "
                    + "their overwritten first word")
        }
        for arena in arenas { free.formUnion(fastbinChunks(of: arena)) }
        return free
    }

    private mutating func reveal(_ stored: UInt, at address: UInt) -> UInt {
        (address >> 12) ^ stored
    }

    /// The chunks of the tcache whose struct's user pointer is `block`, if it is one.
    private mutating func tcacheChunks(at block: UInt) -> [UInt]? {
        var chunks: [UInt] = []
        for bin in 0..<64 {
            guard let countWord = cursor.word(at: block + UInt(bin / 4 * 8)),
                let first = cursor.word(at: block + 128 + UInt(bin * 8))
            else { return nil }
            let count = Int((countWord >> UInt(16 * (bin % 4))) & 0xFFFF)
            var entry = first
            var seen = 0
            while entry != 0 {
                guard follow() else { return nil }
                guard seen < count, entry & 15 == 0,
                    heap.chunkSize(at: entry - 16) == UInt(32 + 16 * bin),
                    let stored = cursor.word(at: entry)
                else { return nil }
                chunks.append(entry - 16)
                seen += 1
                entry = reveal(stored, at: entry)
            }
            guard seen == count else { return nil }
        }
        return chunks
    }

    /// The chunks in an arena's fastbins.
    private mutating func fastbinChunks(of arena: UInt) -> [UInt] {
        var chunks: [UInt] = []
        for bin in 0..<10 {
            guard var chunk = cursor.word(at: arena + 16 + UInt(bin * 8)) else { continue }
            var steps = 0
            while chunk != 0, steps <= heap.chunkStarts.count, follow(),
                heap.chunkSize(at: chunk) == UInt(32 + 16 * bin),
                let stored = cursor.word(at: chunk + 16)
            {
                chunks.append(chunk)
                chunk = reveal(stored, at: chunk + 16)
                steps += 1
            }
        }
        return chunks
    }
}
