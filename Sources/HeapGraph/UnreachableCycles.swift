import ObjectGraph
import RetainGraphUtilities

/// The strong reference cycles of a heap that nothing reaches any more, grouped by shape: the
/// same types around the cycle, held by the same references.
///
/// A cycle is counted when all of these hold, so that what is counted cannot be in use:
/// - it is a strong cycle of the heap's graph (a strongly connected component of more than one
///   object, or an object holding itself);
/// - no holder reaches it through references of any kind: not a global variable, not a thread's
///   stack, a `Task`, a timer, C code (their references show as retain counts the heap does not
///   explain, ``HeapObject/outsideReferences``), and not through a weak or unowned reference
///   from an object a holder reaches either, since reading one makes a strong one again;
/// - every object in it, and every object that can reach it, has a strong retain count equal to
///   the strong references found to it in the heap (a saved file keeps no counts: its holders
///   were found when it was read). In a process's own census, its weak and unowned counts too,
///   read again when the check runs.
///
/// A reference read conservatively (a word equal to an object's address, in memory whose
/// layout is unknown) counts as a strong one, except a word of an async task's memory: it may
/// be a local of a suspended frame, or a stale copy in bytes the runtime never wrote. Where
/// counts were read, the object's counts tell: when its other references explain them, the
/// words hold nothing; when they do not, the object is not counted, nor anything it reaches.
///
/// ```swift
/// let heap = try HeapSnapshot.capture(processID: 4242)
/// let cycles = UnreachableCycles(in: heap)
/// for group in cycles.groups {
///     print(group.title, group.cycleCount)   // Watcher ⇄ closure context (captures Watcher) 3
/// }
/// print(cycles.text(groupLimit: 5))
/// ```
public struct UnreachableCycles: Sendable {
    /// One unreachable cycle: a strongly connected component of objects nothing reaches.
    public struct Cycle: Sendable {
        /// Its objects, in address order.
        public let objects: [HeapObjectID]
        /// Its objects' addresses in the process that was read, ascending (the same cycle found
        /// twice has the same ones).
        public let addresses: [UInt]
        /// Its objects' type names, in the same order; a closure context whose captures the
        /// layout could not name is `closure context (captures A, B)` after what it holds in
        /// the cycle.
        public let typeNames: [String]
        /// The bytes of its own objects.
        public let bytes: Int
        /// The bytes it keeps alive: its objects and every object only it holds (the dominator
        /// tree of the unreachable part of the heap).
        public let retainedBytes: UInt64
        /// Its shortest loop in the heap's graph, from the member whose type name sorts first.
        package let loop: [CompactGraph.Step]
    }

    /// Unreachable cycles of one shape.
    public struct Group: Sendable {
        /// One cycle of the group, in its canonical rotation (it starts at the reference whose
        /// holder type and role sort first): each reference's holder is held by the one before.
        public let sample: [HeapReference]
        /// The type name of each reference's holder in ``sample``, named as in
        /// ``UnreachableCycles/Cycle/typeNames``.
        public let sampleTypeNames: [String]
        /// Every type of the group's cycles, each once: the sample's first, in its order, then
        /// the others (a cycle through more objects than its shortest loop) by name.
        public let types: [String]
        /// Every cycle of the group, in the order they were found.
        public let cycles: [Cycle]
        /// What the group is keyed by: the loop's references (holder type, ownership, role),
        /// whatever their rotation, and every type of the cycle.
        package let shapeKey: String

        /// How many cycles of this shape nothing reaches.
        public var cycleCount: Int { cycles.count }
        /// How many objects those cycles hold together.
        public var objectCount: Int { cycles.reduce(0) { $0 + $1.objects.count } }
        /// The bytes of the cycles' own objects.
        public var bytes: Int { cycles.reduce(0) { $0 + $1.bytes } }
        /// The bytes the cycles keep alive.
        public var retainedBytes: UInt64 { cycles.reduce(0) { $0 + $1.retainedBytes } }
        /// Every type of the group without its module: `Parent ⇄ Child`, `A ⇒ B ⇒ C`, or
        /// every type once joined by `⇄` for a cycle through more objects than its sample loop.
        public var title: String {
            UnreachableCycles.title(sample: sampleTypeNames, types: types)
        }
    }

    /// Reads the counts of the object at an address now; nil when it is gone.
    package typealias LiveCounts = (UInt) -> ReferenceCounts?

    /// The groups, the most cycles first (then objects, bytes, title).
    public let groups: [Group]
    /// The number of objects in the heap that was read.
    public let heapObjectCount: Int

    /// Finds the unreachable cycles of `heap`, from what the snapshot recorded.
    ///
    /// - Parameter heap: A snapshot: read from another process, a core, a file, or a census.
    /// - Complexity: O(*n* + *r*) for the heap's path tree (once per snapshot), plus work in
    ///   proportion to the objects and references no holder reaches.
    public init(in heap: HeapSnapshot) {
        self.init(in: heap, liveCounts: nil)
    }

    /// ``init(in:)``, with every unreachable object's counts also read now through
    /// `liveCounts` (a census's own process): an object whose counts changed, or whose weak or
    /// unowned counts the heap does not explain, is not counted, nor anything it reaches.
    package init(in heap: HeapSnapshot, liveCounts: LiveCounts?) {
        heapObjectCount = heap.objectCount
        guard let found = CycleFinder(heap: heap, liveCounts: liveCounts).cycles() else {
            groups = []
            return
        }
        var grouping = CycleGrouping(heap: heap, unheld: found.unheld, components: found.components)
        for cycle in found.cycles {
            grouping.add(cycle.members, retainedBytes: cycle.retainedBytes)
        }
        groups = grouping.groups().sorted { left, right in
            (left.cycleCount, left.objectCount, left.bytes, right.title)
                > (right.cycleCount, right.objectCount, right.bytes, left.title)
        }
    }

    /// Each unreachable cycle's objects' addresses, ascending (what a second snapshot
    /// confirms), without grouping them or measuring what they retain.
    package static func signatures(in heap: HeapSnapshot, liveCounts: LiveCounts?) -> [[UInt]] {
        guard
            let found = CycleFinder(heap: heap, liveCounts: liveCounts).cycles(
                retainedBytes: false)
        else { return [] }
        return found.cycles.map { cycle in
            cycle.members.map { heap.graph.address(of: found.unheld.nodes[Int($0)]) ?? 0 }.sorted()
        }
    }

    /// Whether no unreachable cycle was found.
    public var isEmpty: Bool { groups.isEmpty }
    /// The number of unreachable cycles, all groups together.
    public var cycleCount: Int { groups.reduce(0) { $0 + $1.cycleCount } }
    /// The number of objects in unreachable cycles, all groups together.
    public var objectCount: Int { groups.reduce(0) { $0 + $1.objectCount } }
    /// The bytes the unreachable cycles and what only they hold take.
    public var retainedBytes: UInt64 { groups.reduce(0) { $0 + $1.retainedBytes } }
}
