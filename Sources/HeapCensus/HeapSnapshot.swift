import ObjectGraph
import RuntimeLayouts
import StackTraces

/// Every live Swift heap object the census knows, with the references between them and what
/// holds them from outside the heap, at one moment: the heap's reference graph.
///
/// Take one with ``HeapCensus/snapshot()``. It is a view over a ``/ObjectGraph/CompactGraph``
/// (``graph``), the representation the rest of RetainGraph analyses: objects are its first
/// ``objectCount`` nodes (``HeapObjectID`` is an object's node number); references are its
/// edges, kept in flat arrays in both directions, roles and type names interned; its roots are
/// *holder* nodes after the objects, one per global variable that holds objects and one per
/// kind of holder outside the heap (the `Task`s the concurrency runtime keeps, the
/// `Foundation.Timer`s, the blocks libdispatch keeps, and references nothing names), each
/// with an edge to every object it holds. A snapshot of a million objects costs a few dozen
/// bytes per object, and "who holds this" is one path of the graph's one path finder.
///
/// A snapshot is a record, not a live view: the objects it names may have died since. It
/// holds none of them.
///
/// ```swift
/// HeapCensus.start()
/// let owner = Owner()                        // held by something you cannot see
/// let heap = HeapCensus.snapshot()
/// if let path = heap.retentionPath(to: owner) {
///     print(path.description)                // holder ⇒ … ⇒ Owner
/// }
/// let cycles = heap.graph.strongComponents() // the heap's reference cycles
/// ```
public struct HeapSnapshot: Sendable {
    /// The objects, the references between them, and the holders outside the heap.
    ///
    /// Node `n < objectCount` is the object ``HeapObjectID`` `n`; the nodes after it are the
    /// holders (the graph's roots), whose ``/ObjectGraph/RootKind`` says what they are
    /// (`.heapHolder`). Every edge is found in the heap.
    public let graph: CompactGraph
    /// The number of objects (the graph's first nodes).
    public let objectCount: Int
    /// Object addresses to node numbers.
    let addressIndex: AddressIndex
    /// Per object (by node number): its type (an index into `typeNames` and `typeMetadata`).
    let typeIndex: [Int32]
    let typeNames: [String]
    let retainCounts: [UInt32]
    let entryKinds: [HeapEntryKind]
    /// Strong references from outside the Swift heap, per object (retain count − the strong
    /// references found in the heap and in globals).
    let outsideCounts: [UInt32]
    /// Each type's metadata address (0 for tasks, blocks and unread objects).
    let typeMetadata: [UInt]
    /// What the scan could not read, once per type.
    public let limitations: [String]

    /// The number of references between objects (the graph's edges from holders excluded).
    public var referenceCount: Int {
        graph.edgeCount
            - (objectCount..<graph.nodeCount).reduce(0) {
                $0 + graph.outEdges(of: CompactGraph.NodeID($1)).count
            }
    }

    /// The identity of the object at `address` in this snapshot, if it was live then.
    ///
    /// - Complexity: O(1) expected (a hash lookup).
    public func id(ofObjectAt address: UInt) -> HeapObjectID? {
        addressIndex.index(of: address).map(HeapObjectID.init(rawValue:))
    }

    /// The identity of `object` in this snapshot, if the census saw it allocated.
    public func id(of object: AnyObject) -> HeapObjectID? {
        id(ofObjectAt: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
    }

    /// The object with identity `id`.
    public subscript(id: HeapObjectID) -> HeapObjectRecord {
        let index = Int(id.rawValue)
        return HeapObjectRecord(
            id: id, address: address(of: index), typeName: typeNames[Int(typeIndex[index])],
            retainCount: Int(retainCounts[index]), outsideReferences: Int(outsideCounts[index]))
    }

    /// The references `id` holds.
    public func references(from id: HeapObjectID) -> [HeapReference] {
        graph.outgoing(from: CompactGraph.NodeID(id.rawValue)).map(reference)
    }

    /// The references to `id` held by other heap objects (not by holders outside the heap).
    public func references(to id: HeapObjectID) -> [HeapReference] {
        graph.incoming(to: CompactGraph.NodeID(id.rawValue)).filter { isObject($0.from) }
            .map(reference)
    }

    /// Whether node `node` is an object (not a holder).
    func isObject(_ node: CompactGraph.NodeID) -> Bool { Int(node) < objectCount }

    /// The reference a step of the graph stands for.
    func reference(_ step: CompactGraph.Step) -> HeapReference {
        HeapReference(
            from: HeapObjectID(rawValue: Int32(step.from)),
            to: HeapObjectID(rawValue: Int32(step.to)),
            ownership: graph.ownership(ofEdge: step.edge), role: graph.role(ofEdge: step.edge))
    }

    /// The address of object `index`.
    func address(of index: Int) -> UInt { graph.address(of: CompactGraph.NodeID(index)) ?? 0 }

    /// Live object counts by type name, largest first (types that share a name, such as
    /// closure contexts with the same captures, count together).
    ///
    /// - Complexity: O(*n*).
    public func countsByType() -> [(typeName: String, count: Int)] {
        TypeCounting.countsByName(types: typeIndex, typeNames: typeNames)
    }

    /// The bytes the object's block takes (the allocator's usable size).
    public func size(of id: HeapObjectID) -> Int {
        graph.size(of: CompactGraph.NodeID(id.rawValue))
    }

    /// Where the object was created, if its type was traced (``HeapCensus/traceCreation(of:)``)
    /// when it was and it is still alive.
    public func creationTrace(of id: HeapObjectID) -> StackTrace? {
        CreationTraces.shared.trace(at: address(of: Int(id.rawValue)))
    }
    /// The class whose instances have the type name `typeName`, if it is a class.
    public func instanceClass(named typeName: String) -> AnyClass? {
        TypeCounting.instanceClass(
            named: typeName, typeNames: typeNames, typeMetadata: typeMetadata)
    }

    /// The identities of every object whose type name is `typeName`.
    ///
    /// - Complexity: O(*n*).
    public func objects(ofType typeName: String) -> [HeapObjectID] {
        let types = TypeCounting.types(named: typeName, in: typeNames)
        guard !types.isEmpty else { return [] }
        return typeIndex.indices.filter { types.contains(typeIndex[$0]) }.map {
            HeapObjectID(rawValue: Int32($0))
        }
    }
}

/// An object's identity in one ``HeapSnapshot``: its node number in the snapshot's
/// ``HeapSnapshot/graph`` (dense; below ``HeapSnapshot/objectCount``).
public struct HeapObjectID: Hashable, Comparable, Sendable {
    /// The object's node number in its snapshot's graph.
    public let rawValue: Int32

    /// Creates an identity from a node number.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Orders identities by node number.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One object of a ``HeapSnapshot``.
public struct HeapObjectRecord: Hashable, Sendable {
    /// Its identity in the snapshot.
    public let id: HeapObjectID
    /// Its address when the snapshot was taken, for display.
    public let address: UInt
    /// Its type: a class name, `closure context (captures Owner)`, `[Entry] storage`, `Task`.
    public let typeName: String
    /// Its strong retain count when it was read.
    public let retainCount: Int
    /// Strong references to it that were found neither in the Swift heap nor in a global
    /// variable: a thread's stack, C code (a run loop, libdispatch, the concurrency runtime).
    public let outsideReferences: Int
}

/// A reference between two objects of a ``HeapSnapshot``.
public struct HeapReference: Hashable, Sendable {
    /// How a reference holds its target: ``/ObjectGraph/Ownership``.
    @available(*, deprecated, renamed: "Ownership")
    public typealias Ownership = ObjectGraph.Ownership

    /// The holder.
    public let from: HeapObjectID
    /// The held.
    public let to: HeapObjectID
    /// How `from` holds `to`.
    public let ownership: ObjectGraph.Ownership
    /// Why `from` holds `to`: a property path, a capture, an element.
    public let role: ReferenceRole

    /// The role in words, as reports print it: `.timer`, `captures Owner`,
    /// `element of [Entry]`.
    public var label: String { role.description }
}
