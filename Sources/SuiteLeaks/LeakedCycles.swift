import HeapCensus
import LeakTracking
import ObjectGraph
import RetainGraphUtilities

/// The strong reference cycles of a heap that are leaked for certain: nothing can reach them any
/// more, and nothing outside the heap holds them. Grouped by shape and by the lines that made
/// them (``CycleGroup``), biggest first.
///
/// A cycle is reported when all of these hold, so that what is reported cannot be in use:
/// - it is a strong cycle of the census's graph (a strongly connected component of more than
///   one object, or an object holding itself), found by ``/ObjectGraph/CompactGraph/strongComponents()``;
/// - no root reaches it through references of any kind: not a global variable, not anything
///   outside the Swift heap (a thread's stack, a run loop, libdispatch, the concurrency
///   runtime, C code: their references show as retain counts the heap does not explain), and
///   not through a weak or unowned reference either, since reading one makes a strong one again;
/// - every object in it, and every object that can reach it, has reference counts the heap
///   explains exactly: its strong retain count equals the strong references found in the heap,
///   and its weak and unowned counts equal the weak and unowned references found there
///   (``/HeapCensus/HeapCensus/referenceCounts(ofObjectAt:)``), so no variable anywhere holds it.
///
/// What is not reported, by construction: an object a global, a thread, a task, a timer, C code
/// or a weak reference can still reach; a cycle whose objects the census did not see allocated
/// (made before it started) or whose counts changed between the snapshot and the check. What is
/// invisible to the check: a pointer kept without a count (`Unmanaged.passUnretained`,
/// `unowned(unsafe)`) by code that never retains it; such code does not keep the cycle alive.
/// A reference read conservatively counts as a strong reference when it is a C block's capture
/// or a closure's capture the layout could not decode (words that equal an object's address);
/// an object a word of an async task's memory points at is not reported (a task's frames can
/// hold stale copies of a reference), nor is anything it reaches.
///
/// ```swift
/// HeapCensus.start()
/// runTheSuite()
/// let leaks = LeakedCycles.check()
/// print(leaks.text)                  // Parent ⇄ Child: 12 cycles, 1.5 KiB, created at …
/// ```
public struct LeakedCycles: Sendable {
    /// The groups of cycles of one shape, by retained bytes, largest first.
    public let groups: [CycleGroup]
    /// The number of objects in the heap that was read.
    public let heapObjectCount: Int

    /// Creates a result from groups (for tests and renderers).
    ///
    /// - Parameters:
    ///   - groups: The groups, in the order to show them.
    ///   - heapObjectCount: The number of objects in the heap that was read.
    public init(groups: [CycleGroup], heapObjectCount: Int) {
        self.groups = groups
        self.heapObjectCount = heapObjectCount
    }

    /// Whether no leaked cycle was found.
    public var isEmpty: Bool { groups.isEmpty }

    /// The number of leaked cycles, all groups together.
    public var cycleCount: Int { groups.reduce(0) { $0 + $1.cycleCount } }

    /// The number of objects in leaked cycles, all groups together.
    public var objectCount: Int { groups.reduce(0) { $0 + $1.objectCount } }

    /// The bytes the leaked cycles and what only they hold take.
    public var retainedBytes: UInt64 { groups.reduce(0) { $0 + $1.retainedBytes } }

    /// The leaked cycles of a snapshot, with their creation sites (the census's, read now).
    ///
    /// The census must still hold the snapshot's objects: their weak and unowned counts are
    /// read live, and a cycle whose objects changed since the snapshot is left out.
    ///
    /// - Parameter heap: A census snapshot.
    /// - Returns: The leaked cycles, grouped.
    /// - Complexity: O(*n* + *r*) for the heap's path tree (once per snapshot), plus work in
    ///   proportion to the objects and references no root holds.
    public static func find(in heap: HeapSnapshot) -> LeakedCycles {
        LeakedCycles(
            groups: CycleAnalysis(heap: heap).groups(), heapObjectCount: heap.objectCount)
    }

    /// Takes a census snapshot and finds its leaked cycles; with `confirming`, takes a second one
    /// when the first finds some, and keeps only the cycles found in both with the same objects
    /// and counts.
    ///
    /// A leaked cycle cannot change: nothing references it. A cycle that other threads were
    /// changing while the first snapshot read it (a reading torn across their writes) is not
    /// found the same way twice.
    ///
    /// - Parameter confirming: Whether to confirm with a second snapshot.
    /// - Returns: The leaked cycles, grouped.
    /// - Complexity: One or two snapshots and their analysis (see ``find(in:)``).
    public static func check(confirming: Bool = true) -> LeakedCycles {
        check(confirming: confirming, accepting: [])
    }

    /// ``check(confirming:)``, with the groups that `accepted` patterns match reported without
    /// creation traces (nothing of theirs is symbolicated).
    static func check(confirming: Bool, accepting accepted: [TypePattern]) -> LeakedCycles {
        var times = Times()
        return check(
            confirming: confirming, accepting: accepted, releasingMemory: false, times: &times)
    }

    /// How long each part of a check took, in seconds.
    struct Times {
        /// Each snapshot.
        var readings: [Double] = []
        /// The analyses, the groups' reports and their creation sites' symbolication.
        var analysis = 0.0
    }

    /// ``check(confirming:accepting:)``, timing its parts; with `releasingMemory`, giving the
    /// C library's free memory back to the system before each reading (at exit:
    /// `GlibcAllocator.releaseFreeMemory()`).
    static func check(
        confirming: Bool, accepting accepted: [TypePattern], releasingMemory: Bool,
        times: inout Times
    ) -> LeakedCycles {
        func timed<T>(_ body: () -> T) -> (T, Double) {
            let start = ContinuousClock.now
            let value = body()
            return (value, (ContinuousClock.now - start).seconds)
        }
        // Each reading lives in a function of its own, so that the first snapshot is freed
        // before the second is taken (and given back to the system when asked): the peak RSS
        // is one reading's.
        func read<T>(_ analyse: (HeapSnapshot) -> T) -> (T, objects: Int) {
            if releasingMemory { GlibcAllocator.releaseFreeMemory() }
            let (heap, reading) = timed { HeapCensus.snapshot() }
            times.readings.append(reading)
            let (result, analysis) = timed { analyse(heap) }
            times.analysis += analysis
            return (result, heap.objectCount)
        }
        let (groups, objects) = read { CycleAnalysis(heap: $0, accepted: accepted).groups() }
        let first = LeakedCycles(groups: groups, heapObjectCount: objects)
        guard confirming, !first.isEmpty else { return first }
        // The second reading only needs to know which cycles it finds.
        let (seen, again) = read { Set(CycleAnalysis(heap: $0).cycleSignatures()) }
        return first.confirmed(by: seen, heapObjectCount: again)
    }

    /// The groups of `self` whose cycles a second reading found too (`seen`: their objects'
    /// addresses, ascending), each keeping only those cycles.
    func confirmed(by seen: Set<[UInt]>, heapObjectCount: Int) -> LeakedCycles {
        let groups = self.groups.compactMap { group in
            group.keeping { seen.contains($0) }
        }
        return LeakedCycles(groups: groups, heapObjectCount: heapObjectCount)
    }
}
