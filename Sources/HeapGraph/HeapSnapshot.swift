import Foundation
import ObjectGraph
import RuntimeLayouts
import StackTraces

/// The live Swift objects of a process at one moment, the references between them and what
/// holds them from outside the heap: one type for every heap RetainGraph reads.
///
/// A heap census reads this process's heap (`HeapCensus.snapshot()`); an attach reads another
/// process's, stopped for a moment and copied (`HeapSnapshot.capture(processID:)` in
/// ProcessAttach); a saved file reads back (`HeapSnapshot(contentsOfFile:)` in HeapExport).
/// Whoever read it, the snapshot is the same: the same types and roles for the same objects,
/// the same holders, the same paths.
///
/// It is a view over a ``/ObjectGraph/CompactGraph`` (``graph``), the representation the rest
/// of RetainGraph analyses: objects are its first ``objectCount`` nodes (a ``HeapObjectID`` is
/// an object's node number), with their type names, addresses and sizes; references are its
/// edges, each with an ``/ObjectGraph/Ownership`` and a ``/ObjectGraph/ReferenceRole``; the
/// holders outside the heap are root nodes after the objects
/// (``/ObjectGraph/RootKind/heapHolder(_:)``: one per global variable, one per running thread
/// or thread stack, one per other kind), each with an edge to what it holds. Paths, cycles and
/// retained sizes are the graph's own analyses. A million objects cost a few dozen bytes each.
///
/// ```swift
/// let heap = HeapCensus.snapshot()               // or HeapSnapshot.capture(processID: pid)
/// for type in heap.countsByType().prefix(5) {
///     print(type.count, type.bytes, type.typeName)
/// }
/// if let session = heap.objects(ofType: "App.Session").first,
///     let path = heap.retentionPath(to: session)
/// {
///     print(path.description)   // a Task (…) ⇒ Task ⇒ (runs) closure context … ⇒ App.Session
/// }
/// ```
///
/// A snapshot is a record, not a live view: the objects it names may have died since. It
/// holds none of them, and stays readable after the process it was read from exits.
public struct HeapSnapshot: Sendable {
    /// The objects, the references between them, and the holders outside the heap.
    ///
    /// Node `n < objectCount` is the object ``HeapObjectID`` `n`; the nodes after them are the
    /// holders (the graph's roots, kind ``/ObjectGraph/CompactGraph/NodeKind/root``).
    public let graph: CompactGraph
    /// The number of live objects (the graph's first nodes).
    public let objectCount: Int
    /// The process the heap was read from.
    public let process: HeapProcess
    /// What the reader could not read, or read only conservatively, once per cause.
    public let limitations: [String]
    /// Counts about the read itself.
    public package(set) var statistics: HeapReadStatistics
    /// Object addresses to node numbers: the reader's index when it kept it (the census's), or
    /// made from the graph's addresses on the first lookup (an attach lets its index go before
    /// the graph is built: 16 bytes an object less at its peak; a who-holds answer by type
    /// never needs it).
    private let addressIndex: CompactGraph.Computed<AddressIndex>
    /// Per object: its strong retain count (`UInt32.max` for an immortal object or one whose
    /// count was not read).
    let retainCounts: [UInt32]
    /// Per object: strong references found neither in the heap, nor in a global, nor on a
    /// thread's stack.
    let outsideCounts: [UInt32]
    /// Per object: its type, an index into `typeMetadata` (-1 when unknown).
    let objectTypes: [Int32]
    /// Per type: its metadata's address in the process that was read (0 when it has none).
    let typeMetadata: [UInt]
    /// Where objects of this process were made, when the census traced them.
    let creationTraces: (@Sendable (UInt) -> StackTrace?)?

    package init(
        graph: CompactGraph, objectCount: Int, process: HeapProcess, limitations: [String],
        statistics: HeapReadStatistics, addressIndex: AddressIndex? = nil,
        retainCounts: [UInt32] = [], outsideCounts: [UInt32] = [], objectTypes: [Int32] = [],
        typeMetadata: [UInt] = [], creationTraces: (@Sendable (UInt) -> StackTrace?)? = nil
    ) {
        self.graph = graph
        self.objectCount = objectCount
        self.process = process
        self.limitations = limitations
        self.statistics = statistics
        self.addressIndex = addressIndex.map(CompactGraph.Computed.init) ?? CompactGraph.Computed()
        self.retainCounts = retainCounts
        self.outsideCounts = outsideCounts
        self.objectTypes = objectTypes
        self.typeMetadata = typeMetadata
        self.creationTraces = creationTraces
    }

    /// This snapshot with `graph` in place of its graph: the same objects (`graph`'s first
    /// ``objectCount`` nodes, at the same addresses), named or linked otherwise (a reader that
    /// labels its tasks, or adds their frames after the objects). Every count the reader took
    /// of each object stays: its retain count, its references from outside the heap, its type.
    package func replacingGraph(_ graph: CompactGraph) -> HeapSnapshot {
        HeapSnapshot(
            graph: graph, objectCount: objectCount, process: process, limitations: limitations,
            statistics: statistics, addressIndex: addressIndex.madeValue,
            retainCounts: retainCounts, outsideCounts: outsideCounts, objectTypes: objectTypes,
            typeMetadata: typeMetadata, creationTraces: creationTraces)
    }

    /// The number of references between objects (the holders' edges left out).
    public var referenceCount: Int {
        guard objectCount < graph.nodeCount else { return graph.edgeCount }
        return Int(graph.outEdges(of: CompactGraph.NodeID(objectCount)).lowerBound)
    }

    /// The bytes the objects' blocks take (their usable sizes).
    public var totalBytes: Int {
        (0..<objectCount).reduce(0) { $0 + graph.size(of: CompactGraph.NodeID($1)) }
    }

    /// Whether `id` names an object of this snapshot.
    public func contains(_ id: HeapObjectID) -> Bool {
        id.rawValue >= 0 && Int(id.rawValue) < objectCount
    }

    /// Whether node `node` is an object (not a holder).
    package func isObject(_ node: CompactGraph.NodeID) -> Bool { Int(node) < objectCount }

    /// The object with identity `id`.
    ///
    /// - Precondition: `id` is an object of this snapshot (below ``objectCount``).
    public subscript(id: HeapObjectID) -> HeapObject {
        let node = CompactGraph.NodeID(id.rawValue)
        let index = Int(id.rawValue)
        return HeapObject(
            id: id, address: graph.address(of: node) ?? 0, typeName: graph.typeName(of: node),
            size: graph.size(of: node),
            retainCount: index < retainCounts.count && retainCounts[index] != .max
                ? Int(retainCounts[index]) : nil,
            outsideReferences: index < outsideCounts.count ? Int(outsideCounts[index]) : 0)
    }

    /// The identity of the object at `address`, if a live object starts there.
    ///
    /// - Complexity: O(1) expected (a hash lookup, or a short search of ascending addresses);
    ///   the first lookup in a snapshot read from another process makes the index, O(*n*).
    public func object(at address: UInt) -> HeapObjectID? {
        // The objects' addresses: they come first, and keep their positions as their numbers
        // (a heap walk's are ascending: then they are searched where they are, with no table).
        let index = addressIndex.value { [graph, objectCount] in
            AddressIndex(graph.addresses, count: objectCount)
        }
        guard let found = index.index(of: address), Int(found) < objectCount else { return nil }
        return HeapObjectID(rawValue: found)
    }

    /// The identity of the object whose block holds `address` (its start or any byte of it).
    ///
    /// - Complexity: O(1) for an object's start, O(*n*) otherwise.
    public func object(containing address: UInt) -> HeapObjectID? {
        if let exact = object(at: address) { return exact }
        for node in 0..<CompactGraph.NodeID(objectCount) {
            let start = graph.address(of: node) ?? 0
            if address >= start, address - start < UInt(graph.size(of: node)) {
                return HeapObjectID(rawValue: Int32(node))
            }
        }
        return nil
    }

    /// The identities of every object whose type name is `typeName`, in address order.
    ///
    /// - Complexity: O(*n* + *k* log *k*) for *k* such objects.
    public func objects(ofType typeName: String) -> [HeapObjectID] {
        guard let number = graph.strings.number(of: typeName), number != 0 else { return [] }
        return (0..<CompactGraph.NodeID(objectCount))
            .filter { graph.typeNameNumber(of: $0) == number }
            .sorted { (graph.address(of: $0) ?? 0) < (graph.address(of: $1) ?? 0) }
            .map { HeapObjectID(rawValue: Int32($0)) }
    }

    /// Live objects and their bytes by type name, the most numerous first (then by name).
    /// Types that share a name (closure contexts with the same captures) count together.
    ///
    /// - Complexity: O(*n*).
    public func countsByType() -> [HeapTypeCount] {
        var counts = [Int](repeating: 0, count: graph.strings.count)
        var bytes = [Int](repeating: 0, count: graph.strings.count)
        for node in 0..<CompactGraph.NodeID(objectCount) {
            let type = Int(graph.typeNameNumber(of: node))
            counts[type] += 1
            bytes[type] += graph.size(of: node)
        }
        return counts.indices.filter { counts[$0] > 0 }
            .map {
                HeapTypeCount(
                    typeName: graph.strings[UInt32($0)], count: counts[$0], bytes: bytes[$0])
            }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.typeName < $1.typeName }
    }

    /// The bytes the object's block takes (the allocator's usable size).
    public func size(of id: HeapObjectID) -> Int {
        contains(id) ? graph.size(of: CompactGraph.NodeID(id.rawValue)) : 0
    }

    /// Where the object was created, if this process's census traced its type when it was made
    /// (`HeapCensus.traceCreation(of:)`) and it is still alive; nil for a heap read from outside.
    public func creationTrace(of id: HeapObjectID) -> StackTrace? {
        guard contains(id), let creationTraces else { return nil }
        return creationTraces(graph.address(of: CompactGraph.NodeID(id.rawValue)) ?? 0)
    }

    /// The metadata address of object `id`'s type in the process it was read from (0 when
    /// unknown): this process's census uses it to find a type's class.
    package func metadata(of id: HeapObjectID) -> UInt {
        let index = Int(id.rawValue)
        guard index >= 0, index < objectTypes.count else { return 0 }
        let type = Int(objectTypes[index])
        return type >= 0 && type < typeMetadata.count ? typeMetadata[type] : 0
    }

    /// The metadata address of the type named `typeName` in the process that was read, if an
    /// object of it was read and it has metadata.
    package func metadata(ofTypeNamed typeName: String) -> UInt? {
        objects(ofType: typeName).lazy.map(metadata(of:)).first { $0 != 0 }
    }
}
