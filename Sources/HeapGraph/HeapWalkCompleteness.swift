/// How much of glibc's heap memory a reader of another process read (an attach, a core file),
/// and what it could not read.
///
/// Such a reader finds objects by walking glibc's heaps in a copy of the target's memory. An
/// object on memory the walk did not read is missing from the snapshot, with nothing else to
/// show for it: counts too low, a type that "did not grow", an object "held from outside the
/// Swift heap" because its holder was never found. This value says whether that can have
/// happened. The arenas glibc lists (`main_arena` and its `next` links, read from libc's data)
/// are what the walk is checked against: every arena listed, every heap of each arena
/// (`heap_info.prev` from the heap of its top chunk), and the bytes each arena holds from the
/// system (`system_mem`) against the bytes whose chunks the walk chained.
///
/// ```swift
/// let heap = try HeapSnapshot.capture(processID: pid)
/// if let walk = heap.statistics.heapWalk, !walk.isComplete {
///     print("objects may be missing:", walk.problems.map(\.description))
/// }
/// ```
public struct HeapWalkCompleteness: Hashable, Sendable {
    /// The arenas glibc's list names (the main arena included), or nil when the list was not
    /// found (then the arenas were looked for in the heap mappings alone, and one may have been
    /// missed: ``HeapWalkProblem/arenaListNotFound``). A lower bound when an arena of the list
    /// was not in the copy (``HeapWalkProblem/arenaUnreadable(arena:)``): the list cannot be
    /// followed past it, and the arenas after it are looked for in the heap mappings.
    public var arenasListed: Int?
    /// The arenas whose heaps were walked to their end.
    public var arenasWalked = 0
    /// The heaps walked: the main arena's `[heap]`, and each heap of the other arenas.
    public var heapsWalked = 0
    /// The bytes whose chunks the walk chained.
    public var bytesWalked = 0
    /// The bytes the arenas hold from the system (`system_mem`, the sum over the arenas
    /// listed), or nil without the list.
    public var bytesHeld: Int?
    /// What the walk could not read, one entry per cause.
    public var problems: [HeapWalkProblem] = []

    /// Creates an empty record: nothing walked, no problem.
    public init() {}

    /// Whether the walk read every heap of every arena glibc lists, to its end: when false,
    /// live objects may be missing from the snapshot (``problems`` says where).
    public var isComplete: Bool { problems.isEmpty }

    /// The bytes the arenas hold that the walk did not chain (0 without the list).
    public var bytesNotWalked: Int {
        problems.reduce(0) { total, problem in
            guard case .bytesNotWalked(_, let held, let walked) = problem else { return total }
            return total + max(0, held - walked)
        }
    }
}

/// One thing an attach's heap walk could not read (``HeapWalkCompleteness/problems``).
///
/// Addresses are the target's. ``description`` is the sentence the snapshot's
/// ``HeapSnapshot/limitations`` carry.
public enum HeapWalkProblem: Hashable, Sendable, CustomStringConvertible {
    /// glibc's arena list was not found (libc not mapped, stripped of `main_arena` and no
    /// candidate in its data passed the checks, or another allocator): arenas were looked for
    /// in the heap mappings alone.
    case arenaListNotFound
    /// An arena of the list whose `malloc_state` (or its heap's `heap_info`) was not in the
    /// copy or did not read as one: its heaps were not walked.
    case arenaUnreadable(arena: UInt)
    /// A heap of `arena` (named by the `heap_info.prev` chain) that is not in the copy, or whose
    /// `heap_info` does not name the arena: not walked. `size` is 0 when it could not be read.
    case heapNotRead(arena: UInt, heap: UInt, size: Int)
    /// A heap whose chunks stopped chaining at `chunk` (a thread was inside malloc, or the copy
    /// is damaged): the rest of it, up to `end`, was not read.
    case chunksDidNotChain(heap: UInt, chunk: UInt, end: UInt)
    /// The main arena's top chunk lies outside the `[heap]` mapping (`brk` failed once and
    /// glibc went on in mappings of its own, a "non-contiguous" main arena), and the mapping
    /// that holds it could not be walked from its start to it.
    case mainArenaOutsideHeap(top: UInt)
    /// An arena holds `held` bytes from the system (`system_mem`) and the walk chained only
    /// `walked` of them.
    case bytesNotWalked(arena: UInt, held: Int, walked: Int)

    /// The problem as a sentence, with addresses in hexadecimal.
    public var description: String {
        switch self {
        case .arenaListNotFound:
            return "glibc's arena list (main_arena) was not found: arenas were looked for in "
                + "the heap mappings alone, and objects in an arena not found are missing"
        case .arenaUnreadable(let arena):
            return "glibc's arena at \(hex(arena)) could not be read: its heaps were not walked"
        case .heapNotRead(let arena, let heap, let size):
            let bytes = size > 0 ? " (\(size) bytes)" : ""
            return "the heap at \(hex(heap))\(bytes) of arena \(hex(arena)) was not in the "
                + "copy or did not name its arena: its objects are missing"
        case .chunksDidNotChain(let heap, let chunk, let end):
            return "the heap at \(hex(heap)) has a broken chunk at \(hex(chunk)) (a thread was "
                + "inside malloc?): its \(end > chunk ? end - chunk : 0) bytes from there were "
                + "not read"
        case .mainArenaOutsideHeap(let top):
            return "glibc's main arena grew outside [heap] (its top chunk is at \(hex(top))), "
                + "and the mapping that holds it could not be walked"
        case .bytesNotWalked(let arena, let held, let walked):
            return "glibc's arena at \(hex(arena)) holds \(held) bytes; the walk read "
                + "\(walked): objects in the other \(held - walked) are missing"
        }
    }
}

private func hex(_ address: UInt) -> String { "0x" + String(address, radix: 16) }
