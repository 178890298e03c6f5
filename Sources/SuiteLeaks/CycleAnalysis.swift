import HeapCensus
import LeakTracking
import ObjectGraph

/// Finds the leaked cycles of one census snapshot (see ``LeakedCycles`` for what qualifies):
/// HeapGraph's ``/HeapGraph/UnreachableCycles``, with every unreachable object's counts also
/// read live from the census (``/HeapCensus/HeapCensus/referenceCounts(ofObjectAt:)``), then
/// grouped by the lines that made them (``GroupBuilder``).
struct CycleAnalysis {
    let heap: HeapSnapshot
    /// Patterns of accepted leaks: their groups' reports get no creation traces (symbolicating
    /// them is most of a check's time in a process with many, such as XCTest's own).
    let accepted: [TypePattern]

    init(heap: HeapSnapshot, accepted: [TypePattern] = []) {
        self.heap = heap
        self.accepted = accepted
    }

    /// The leaked cycles, grouped by shape and by the lines that made them, by retained bytes
    /// (largest first).
    func groups() -> [CycleGroup] {
        let cycles = UnreachableCycles(
            in: heap, liveCounts: HeapCensus.referenceCounts(ofObjectAt:))
        var builder = GroupBuilder(heap: heap, accepted: accepted)
        return builder.groups(of: cycles.groups)
    }

    /// Each leaked cycle's objects' addresses, ascending (what a second snapshot confirms).
    func cycleSignatures() -> [[UInt]] {
        UnreachableCycles.signatures(in: heap, liveCounts: HeapCensus.referenceCounts(ofObjectAt:))
    }
}
