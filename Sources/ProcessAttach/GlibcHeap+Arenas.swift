// PRIVATE GLIBC MALLOC DETAILS (glibc 2.27 and later, 64-bit): the arenas and their heaps.
//
// Relied on:
//   • `struct malloc_state` (2,200 bytes): `top` @96, `next` @2160 (every arena in one circular
//     list that starts at `main_arena`), `system_mem` @2184 (the bytes the arena holds from the
//     system: for a thread arena the sum of its heaps' `size`, for the main arena what `brk`
//     gave it).
//   • `main_arena` lies in libc's data. Debian's libc has no symbol table; it is then the state
//     in libc's writable data whose `next` links lead through thread arenas back to it (or, in a
//     process with one arena, to itself, with its top chunk in `[heap]`).
//   • A thread arena's heaps are mappings aligned on 64 MiB, each starting with a `heap_info`:
//     `ar_ptr` @0 (its arena), `prev` @8 (the arena's previous heap, 0 for the first), `size`
//     @16 (the bytes in use from the heap's start); 32 bytes long before glibc 2.35, 48 since.
//     The arena's `malloc_state` follows its first heap's `heap_info`, so a thread arena's
//     address is 32 or 48 bytes past a multiple of 64 MiB. Its top chunk lies in its newest
//     heap; `prev` leads from there to the first.
//   • The first chunk of a heap follows its `heap_info` or, in the first heap, the
//     `malloc_state` (aligned so that the chunk's user pointer is on 16 bytes).
//
// Before this file the walk took every mapping that starts on 64 MiB for a heap and nothing
// else: an arena of several heaps lost its first one (whose chunks end in fenceposts, not in a
// top chunk, so they did not "chain to the end") and with it most of its objects, silently
// (issue 31).

/// One of glibc's arenas: its `malloc_state` and, for a thread arena, its heaps.
struct MallocArena {
    /// The address of its `malloc_state`.
    let state: UInt
    /// Whether it is `main_arena` (whose heap is the `[heap]` mapping).
    let isMain: Bool
    /// Its top chunk.
    let top: UInt
    /// The bytes it holds from the system (`system_mem`).
    let heldBytes: UInt
    /// A thread arena's heaps, newest first: each `heap_info`'s address and `size`.
    var heaps: [(base: UInt, size: UInt)] = []
}

/// Reads glibc's arena list and each arena's chain of heaps from a copy of the target.
struct ArenaReader {
    static let heapMaximum: UInt = 64 << 20
    static let topOffset: UInt = 96
    static let nextOffset: UInt = 2160
    static let heldOffset: UInt = 2184
    static let stateSize: UInt = 2200
    /// The most arenas a list may name (glibc's own limit is 8 per core).
    static let maximumArenas = 4096

    private var cursor: MemoryCursor
    private let mainHeap: Range<UInt>?
    private(set) var problems: [HeapWalkProblem] = []
    /// Whether the list found could not be followed to its end (an arena was not copied).
    private(set) var isPartial = false

    init(_ memory: ProcessMemory, mainHeap: Range<UInt>?) {
        cursor = MemoryCursor(memory)
        self.mainHeap = mainHeap
    }

    /// The arenas of glibc's list, the main arena first, or nil when the list was not found.
    ///
    /// A list that leads to an arena not in the copy is taken only when no candidate's list
    /// can be followed to its end; the arena is then reported and ``isPartial`` set.
    mutating func listedArenas() -> [MallocArena]? {
        guard let libc = cursor.memory.images.image(named: "libc.so.6") else { return nil }
        var candidates: [UInt] = []
        if let symbol = libc.address(ofAnySymbol: "main_arena") { candidates.append(symbol) }
        for range in libc.writableRanges where range.count > Self.stateSize {
            candidates += stride(
                from: (range.lowerBound + 7) & ~7, to: range.upperBound - Self.stateSize, by: 8)
        }
        var partial: (list: [(UInt, Bool)], unreadable: UInt)?
        for candidate in candidates {
            guard let found = list(from: candidate) else { continue }
            guard let unreadable = found.unreadable else { return arenas(found.list) }
            if partial == nil { partial = (found.list, unreadable) }
        }
        guard let partial else { return nil }
        problems.append(.arenaUnreadable(arena: partial.unreadable))
        isPartial = true
        return arenas(partial.list)
    }

    /// Thread arenas found from their heaps alone (every `heap_info` on a multiple of 64 MiB
    /// inside a copied region whose arena follows it), but those in `known`: for a target
    /// whose list was not found, or not to its end.
    mutating func arenasFromHeaps(excluding known: Set<UInt> = []) -> [MallocArena] {
        var states: [UInt] = []
        for region in cursor.memory.copiedRegions {
            var base = (region.range.lowerBound + Self.heapMaximum - 1) & ~(Self.heapMaximum - 1)
            while base < region.range.upperBound {
                if let state = cursor.word(at: base), state & ~(Self.heapMaximum - 1) == base,
                    !known.contains(state), isThreadArena(state)
                {
                    states.append(state)
                }
                base += Self.heapMaximum
            }
        }
        return arenas(states.map { ($0, false) })
    }

    /// The main arena found by its top chunk, `top` (the one the `[heap]` walk ended on), in
    /// libc's data: the fallback for fastbins when the list was not found.
    mutating func mainArena(withTop top: UInt) -> MallocArena? {
        guard let libc = cursor.memory.images.image(named: "libc.so.6") else { return nil }
        for range in libc.writableRanges {
            var address = (range.lowerBound + Self.topOffset + 7) & ~7
            while address + 8 <= range.upperBound {
                if cursor.word(at: address) == top {
                    return arenas([(address - Self.topOffset, true)]).first
                }
                address += 8
            }
        }
        return nil
    }

    /// The arenas from `main` round the list back to it, when `main` reads as `main_arena`;
    /// `unreadable` is the arena the list could not be followed past, if any.
    private mutating func list(from main: UInt) -> (list: [(UInt, Bool)], unreadable: UInt?)? {
        guard let next = cursor.word(at: main + Self.nextOffset),
            let top = cursor.word(at: main + Self.topOffset), top & 15 == 0, top != 0
        else { return nil }
        if next == main {
            // One arena: only its top chunk tells it from any other self-pointer.
            guard isMainTop(top) else { return nil }
            return ([(main, true)], nil)
        }
        var list = [(main, true)]
        var seen: Set<UInt> = [main]
        var arena = next
        while arena != main {
            guard list.count < Self.maximumArenas, seen.insert(arena).inserted else { return nil }
            guard isThreadArena(arena), let following = cursor.word(at: arena + Self.nextOffset)
            else {
                // An arena-shaped address whose memory was not copied: the list cannot be
                // followed past it. Still `main_arena` when its top chunk lies in [heap].
                let offset = arena & (Self.heapMaximum - 1)
                guard offset == 32 || offset == 48, cursor.word(at: arena) == nil,
                    isMainTop(top)
                else { return nil }
                return (list, arena)
            }
            list.append((arena, false))
            arena = following
        }
        return (list, nil)
    }

    /// Whether `top` can be the main arena's top chunk: in `[heap]`, or (a main arena `brk`
    /// could not grow) a chunk marked PREV_INUSE that ends on a page inside the anonymous
    /// mapping holding it. glibc's mapping ends where the top chunk does, but the kernel merges
    /// it with an anonymous mapping made right after it (once in about 15 runs of a fixture),
    /// so the mapping seen may run on past it.
    private mutating func isMainTop(_ top: UInt) -> Bool {
        if let mainHeap, mainHeap.contains(top) { return true }
        guard let header = cursor.word(at: top + 8), header & 1 != 0, header & 2 == 0,
            let mapping = Self.anonymousMapping(containing: top, in: cursor.memory)
        else { return false }
        let size = header & ~7
        return size >= 32 && size <= mapping.upperBound - top && (top + size) & 4095 == 0
    }

    /// The anonymous mapping that holds `address` (a mapping of glibc's own).
    static func anonymousMapping(containing address: UInt, in memory: ProcessMemory)
        -> Range<UInt>?
    {
        memory.mappings.first { $0.range.contains(address) && !$0.isFile && $0.path.isEmpty }?
            .range
    }

    /// Whether `state` is 32 or 48 bytes past a multiple of 64 MiB whose `heap_info` names it.
    private mutating func isThreadArena(_ state: UInt) -> Bool {
        let base = state & ~(Self.heapMaximum - 1)
        let offset = state - base
        return (offset == 32 || offset == 48) && cursor.word(at: base) == state
    }

    /// Reads each arena's state and, for a thread arena, its heaps.
    private mutating func arenas(_ list: [(state: UInt, isMain: Bool)]) -> [MallocArena] {
        list.compactMap { state, isMain in
            guard let top = cursor.word(at: state + Self.topOffset),
                let held = cursor.word(at: state + Self.heldOffset)
            else {
                problems.append(.arenaUnreadable(arena: state))
                return nil
            }
            var arena = MallocArena(state: state, isMain: isMain, top: top, heldBytes: held)
            if !isMain { arena.heaps = heaps(of: state, top: top) }
            return arena
        }
    }

    /// A thread arena's heaps, from the one holding its top chunk through `heap_info.prev`;
    /// when that chain breaks, the arena's own heap (the first) still ends the list.
    private mutating func heaps(of arena: UInt, top: UInt) -> [(base: UInt, size: UInt)] {
        var heaps: [(base: UInt, size: UInt)] = []
        let first = arena & ~(Self.heapMaximum - 1)
        var base = top & ~(Self.heapMaximum - 1)
        // A `prev` chain that loops (a corrupted or planted `heap_info`) ends where it comes
        // back: each heap is walked once.
        var seen = Set<UInt>()
        while heaps.count < Self.maximumArenas, seen.insert(base).inserted {
            guard let size = heapSize(base, of: arena) else {
                let size = cursor.word(at: base + 16).map { Int(clamping: $0) } ?? 0
                problems.append(.heapNotRead(arena: arena, heap: base, size: size))
                if base != first, let size = heapSize(first, of: arena) {
                    heaps.append((first, size))
                }
                return heaps
            }
            heaps.append((base, size))
            guard base != first, let previous = cursor.word(at: base + 8), previous != 0,
                previous & (Self.heapMaximum - 1) == 0
            else { return heaps }
            base = previous
        }
        // The chain looped or ran too long: the arena's own heap still ends the list.
        if !heaps.contains(where: { $0.base == first }), let size = heapSize(first, of: arena) {
            heaps.append((first, size))
        }
        return heaps
    }

    /// The `size` of the heap at `base` when it is copied and its `heap_info` names `arena`.
    private mutating func heapSize(_ base: UInt, of arena: UInt) -> UInt? {
        guard cursor.word(at: base) == arena, let size = cursor.word(at: base + 16), size > 0,
            size <= Self.heapMaximum, cursor.memory.region(containing: base)?.isCopy == true
        else { return nil }
        return size
    }

    /// The first chunk of a thread arena's heap at `base`.
    static func firstChunk(ofHeap base: UInt, arena: UInt) -> UInt {
        let arenaHeap = arena & ~(heapMaximum - 1)
        guard base == arenaHeap else { return base + (arena - arenaHeap) }
        // After the malloc_state, moved on so that the chunk's user pointer (+16) is aligned.
        return ((arena + stateSize + 16 + 15) & ~15) - 16
    }
}
