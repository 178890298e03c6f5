import HeapGraph
import ObjectGraph

/// The objects each task's async frames hold: the words of its allocator's slabs (where the
/// frames of its suspended functions live, past the first one kept in the task's own block),
/// read conservatively, and the heap with those references added.
///
/// A heap read alone sees a task's own block (its header and first frame) but not the slabs
/// its allocator took since: an object a suspended function keeps in a local (the `Refresher`
/// of `refreshForever(_:)`) then reads as held from outside the Swift heap. With the frames
/// read, the task holds it (`runs (conservative)`), and the outside holder's reference to it,
/// which the task's explains, is dropped.
struct TaskFrames {
    /// The most slabs read per task, and bytes per slab: bounds on untrusted lists.
    static let slabLimit = 256
    static let slabBytesLimit = 1 << 20

    /// Per task node: the object nodes its slabs hold.
    private(set) var references: [CompactGraph.NodeID: Set<CompactGraph.NodeID>] = [:]

    /// Reads the slabs of `tasks` (with the slab each starts from) through `mirror`, words from
    /// `memory` (nil: this process).
    init(
        tasks: [(address: UInt, slab: UInt)], heap: HeapSnapshot, mirror: RemoteMirror,
        memory: ProcessMemory?
    ) {
        for (address, first) in tasks {
            guard let task = heap.object(at: address) else { continue }
            let node = CompactGraph.NodeID(task.rawValue)
            var held = Set<CompactGraph.NodeID>()
            var slab = first
            var seen = Set<UInt>()
            while slab != 0, seen.count < Self.slabLimit, seen.insert(slab).inserted,
                let allocations = mirror.slabAllocations(at: slab)
            {
                for range in allocations.used where range.count <= Self.slabBytesLimit {
                    Self.objects(in: range, heap: heap, memory: memory, excluding: node) {
                        held.insert($0)
                    }
                }
                slab = allocations.next
            }
            if !held.isEmpty { references[node] = held }
        }
    }

    /// Calls `found` with each object whose address a word of `range` holds.
    private static func objects(
        in range: Range<UInt>, heap: HeapSnapshot, memory: ProcessMemory?,
        excluding task: CompactGraph.NodeID, _ found: (CompactGraph.NodeID) -> Void
    ) {
        let start = (range.lowerBound + 7) & ~7
        guard start < range.upperBound else { return }
        let count = Int(range.upperBound - start) / 8
        let words: [UInt]
        if let memory, let bytes = memory.bytes(at: start, count: count * 8) {
            words = (0..<count).map { bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt.self) }
        } else if memory == nil {
            words = (0..<count).compactMap { ThisProcessMemory.word(at: start + UInt($0 * 8)) }
        } else {
            words = (0..<count).compactMap { memory?.word(at: start + UInt($0 * 8)) }
        }
        for word in words where word >= 4096 && word & 7 == 0 {
            if let object = heap.object(at: word), CompactGraph.NodeID(object.rawValue) != task {
                found(CompactGraph.NodeID(object.rawValue))
            }
        }
    }

    /// `heap` with each task's frame references added (conservative, role `runs`), and the
    /// outside holders' references to those objects removed.
    func adding(to heap: HeapSnapshot) -> HeapSnapshot {
        guard !references.isEmpty else { return heap }
        let graph = heap.graph
        let explained = references.values.reduce(into: Set<CompactGraph.NodeID>()) {
            $0.formUnion($1)
        }
        var outside = Set<CompactGraph.NodeID>()
        for (node, kind) in graph.roots {
            if case .heapHolder(.outside) = kind { outside.insert(node) }
        }
        var roles = graph.roles
        let runs = roles.intern(.runs)
        // As the graph builder stores a word of a task's memory: a last resort for the path
        // finder.
        let flag = CompactGraph.lastResort(CompactGraph.flags(.conservative, .heap))
        let tagged = !graph.edgeTags.isEmpty
        var outStart: [UInt32] = [0]
        var strongOutEnd: [UInt32] = []
        var targets: [CompactGraph.NodeID] = []
        var flags: [UInt8] = []
        var edgeRoles: [UInt32] = []
        var tags: [UInt32] = []
        for node in 0..<CompactGraph.NodeID(graph.nodeCount) {
            let added =
                references[node].map { held in
                    held.subtracting(
                        graph.strongOutEdges(of: node).map { graph.target(of: UInt32($0)) }
                    )
                    .sorted()
                } ?? []
            for target in added {
                targets.append(target)
                flags.append(flag)
                edgeRoles.append(runs)
                if tagged { tags.append(0) }
            }
            let isOutside = outside.contains(node)
            func keep(_ edge: Int) {
                let target = graph.target(of: UInt32(edge))
                if isOutside, explained.contains(target) { return }
                targets.append(target)
                flags.append(graph.edgeFlags[edge])
                edgeRoles.append(graph.edgeRoles[edge])
                if tagged { tags.append(graph.edgeTags[edge]) }
            }
            let retaining = graph.strongOutEdges(of: node)
            retaining.forEach(keep)
            strongOutEnd.append(UInt32(targets.count))
            (retaining.upperBound..<graph.outEdges(of: node).upperBound).forEach(keep)
            outStart.append(UInt32(targets.count))
        }
        let framed = CompactGraph(
            kinds: graph.kinds, typeNames: graph.typeNames, labels: graph.labels,
            labelStart: graph.labelStart,
            addresses: graph.addresses, keys: graph.keys, sizes: graph.sizes,
            numberOfAdded: graph.numberOfAdded, rootNodes: graph.rootNodes,
            rootKinds: graph.rootKinds, outStart: outStart, strongOutEnd: strongOutEnd,
            targets: targets, edgeFlags: flags, edgeRoles: edgeRoles, edgeTags: tags,
            strings: graph.strings, roles: roles)
        return heap.replacingGraph(framed)
    }
}
