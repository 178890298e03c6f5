import Foundation
import ObjectGraph
import RuntimeLayouts

/// The live Swift objects of another process at one moment, the references between them, and
/// what holds them: read from outside, with no RetainGraph code in the target.
///
/// ``capture(processID:options:)`` stops the target (every thread, bounded), copies its
/// writable memory, lets it go, then finds its objects in the copy: it walks glibc's heaps,
/// keeps the blocks in use whose first word is Swift metadata of one of the target's images,
/// reads their references with the toolchain's remote mirror (typed fields, captures, enum
/// payloads, existentials, collection elements), and its roots from global variables, thread
/// stacks and registers, and the holders the census names (a `Task`, a `Foundation.Timer`, a
/// block libdispatch keeps).
///
/// It is a view over a ``/ObjectGraph/CompactGraph`` (``graph``), as the in-process census's
/// snapshot is: objects are the graph's first ``objectCount`` nodes (a ``RemoteObjectID`` is an
/// object's node number), with their type names, addresses and sizes; references are its edges,
/// with an ``/ObjectGraph/Ownership`` and a ``/ObjectGraph/ReferenceRole``; the holders are root
/// nodes after the objects (``/ObjectGraph/RootKind/heapHolder(_:description:)``: one per global
/// variable, one per thread whose stack holds objects, one per other kind), each with an edge
/// to what it holds. Paths, cycles and retained sizes are the graph's own analyses.
///
/// ```swift
/// let heap = try RemoteHeapSnapshot.capture(processID: pid)
/// for type in heap.countsByType().prefix(5) {
///     print(type.count, type.bytes, type.typeName)
/// }
/// if let session = heap.objects(ofType: "App.Session").first,
///     let path = heap.retentionPath(to: session)
/// {
///     print(path.description)  // a Task (…) ⇒ Task ⇒ (runs) closure context … ⇒ App.Session
/// }
/// ```
///
/// A snapshot is a record: it holds nothing of the target, and stays readable after the
/// target exits. Save it with ``write(toFile:)`` and read it back with
/// ``init(contentsOfFile:)``.
public struct RemoteHeapSnapshot: Sendable {
    /// The objects, the references between them, and the holders outside the heap.
    ///
    /// Node `n < objectCount` is the object ``RemoteObjectID`` `n`; the nodes after them are
    /// the holders (the graph's roots, kind ``/ObjectGraph/CompactGraph/NodeKind/root``).
    public let graph: CompactGraph
    /// The number of live objects found (the graph's first nodes).
    public let objectCount: Int
    /// The target's process id.
    public let processID: Int32
    /// The target's name.
    public let command: String
    /// When the target was read.
    public let capturedAt: Date
    /// How long the target was stopped, when known.
    public let stopDuration: Duration?
    /// The target's threads: id and name.
    public let threads: [RemoteThread]
    /// What the attach could not read, or read only conservatively, once per cause.
    public let limitations: [String]
    /// Counts about the read itself.
    public internal(set) var statistics: RemoteHeapStatistics
    /// Object addresses to node numbers.
    let addressIndex: AddressIndex

    /// The number of references between objects (the holders' edges left out).
    public var referenceCount: Int {
        guard objectCount < graph.nodeCount else { return graph.edgeCount }
        return graph.outEdges(of: CompactGraph.NodeID(objectCount)).lowerBound
    }

    /// The bytes the objects' blocks take (their usable sizes).
    public var totalBytes: Int {
        (0..<objectCount).reduce(0) { $0 + graph.size(of: CompactGraph.NodeID($1)) }
    }

    /// The object with identity `id`.
    ///
    /// - Precondition: `id` is an object of this snapshot (below ``objectCount``).
    public subscript(id: RemoteObjectID) -> RemoteObject {
        let node = CompactGraph.NodeID(id.rawValue)
        return RemoteObject(
            id: id, address: graph.address(of: node) ?? 0, typeName: graph.typeName(of: node),
            size: graph.size(of: node))
    }

    /// Whether `id` names an object of this snapshot.
    func contains(_ id: RemoteObjectID) -> Bool {
        id.rawValue >= 0 && Int(id.rawValue) < objectCount
    }

    /// Whether node `node` is an object (not a holder).
    func isObject(_ node: CompactGraph.NodeID) -> Bool { Int(node) < objectCount }

    /// The identity of the object at `address`, if a live object starts there.
    ///
    /// - Complexity: O(1) expected.
    public func object(at address: UInt) -> RemoteObjectID? {
        addressIndex.index(of: address).map(RemoteObjectID.init(rawValue:))
    }

    /// The identities of every object whose type name is `typeName`, in address order.
    ///
    /// - Complexity: O(*n* + *k* log *k*) for *k* such objects.
    public func objects(ofType typeName: String) -> [RemoteObjectID] {
        guard let number = graph.strings.number(of: typeName), number != 0 else { return [] }
        return (0..<CompactGraph.NodeID(objectCount))
            .filter { graph.typeNameNumber(of: $0) == number }
            .sorted { (graph.address(of: $0) ?? 0) < (graph.address(of: $1) ?? 0) }
            .map { RemoteObjectID(rawValue: Int32($0)) }
    }

    /// Live objects and their bytes by type name, the most numerous first (then by name).
    ///
    /// - Complexity: O(*n*).
    public func countsByType() -> [RemoteTypeCount] {
        var counts = [Int](repeating: 0, count: graph.strings.count)
        var bytes = [Int](repeating: 0, count: graph.strings.count)
        for node in 0..<CompactGraph.NodeID(objectCount) {
            let type = Int(graph.typeNameNumber(of: node))
            counts[type] += 1
            bytes[type] += graph.size(of: node)
        }
        return counts.indices.filter { counts[$0] > 0 }
            .map {
                RemoteTypeCount(
                    typeName: graph.strings[UInt32($0)], count: counts[$0], bytes: bytes[$0])
            }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.typeName < $1.typeName }
    }

    /// What holds `id` from outside the Swift heap (global variables, a named holder, thread
    /// stacks, unattributed references), as the graph's root kinds say, in the order the path
    /// finder prefers them.
    ///
    /// - Complexity: O(in-degree of `id`), plus building the graph's in-edge rows once.
    public func holders(of id: RemoteObjectID) -> [RootKind] {
        guard contains(id) else { return [] }
        return graph.incoming(to: CompactGraph.NodeID(id.rawValue))
            .filter { !isObject($0.from) }
            .sorted { $0.from < $1.from }
            .compactMap { graph.rootKind(of: $0.from) }
    }
}

/// An object's identity in one ``RemoteHeapSnapshot``: its node number in the snapshot's graph.
public struct RemoteObjectID: Hashable, Comparable, Sendable {
    /// The object's number (`0..<objectCount`).
    public let rawValue: Int32

    /// Creates an identity from an object's number.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Orders identities by number.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One live object of a ``RemoteHeapSnapshot``.
public struct RemoteObject: Hashable, Sendable {
    /// Its identity in the snapshot.
    public let id: RemoteObjectID
    /// Its address in the target.
    public let address: UInt
    /// Its type: a class name, `closure context (captures Owner)`, `[Entry] storage`, `Task`.
    public let typeName: String
    /// The bytes its block takes (malloc's usable size).
    public let size: Int
}

/// A reference between two objects of a ``RemoteHeapSnapshot``.
public struct RemoteReference: Hashable, Sendable {
    /// The holder.
    public let from: RemoteObjectID
    /// The held.
    public let to: RemoteObjectID
    /// How `from` holds `to`: ``/ObjectGraph/Ownership/conservative`` for a word read without
    /// a layout (a task's frame, a block's captures) that holds the target's address.
    public let ownership: Ownership
    /// Why `from` holds `to`: a property path, a capture, an element.
    public let role: ReferenceRole

    /// The reference as reports print it: its role (`.timer`, `captures Owner`, `element of
    /// [Entry]`), followed by its ownership when it is neither strong nor weak
    /// (`runs (conservative)`), as the DevTools export names edges.
    public var label: String {
        switch ownership {
        case .strong, .weak: return role.description
        case .conservative, .unowned, .unownedUnsafe:
            return "\(role.description) (\(ownership.rawValue))"
        }
    }
}

/// A type's live objects and bytes, as ``RemoteHeapSnapshot/countsByType()`` gives them.
public struct RemoteTypeCount: Hashable, Sendable {
    /// The type's name.
    public let typeName: String
    /// Live objects of the type.
    public var count: Int
    /// Bytes their blocks take.
    public var bytes: Int
}

/// A thread of the target, as it was stopped.
public struct RemoteThread: Hashable, Sendable {
    /// The thread's kernel id.
    public let id: Int32
    /// The thread's name.
    public let name: String
}
