import ReferenceReflection
import RetainGraph
import StackTraces

/// Every live Swift heap object the census knows, with the references between them, at one
/// moment: the heap's reference graph.
///
/// Take one with ``HeapCensus/snapshot()``. The objects and references are a ``/RetainGraph/CompactGraph``
/// (``graph``), the representation the rest of RetainGraph analyses: objects are its nodes,
/// numbered densely (``HeapObjectID`` is a node's number) so that objects one reaches from
/// another sit near each other; references are its edges, kept in flat arrays in both
/// directions, labels and type names interned; its roots are the objects held by a global
/// variable or from outside the Swift heap. A snapshot of a million objects costs a few dozen
/// bytes per object and answers "who holds this" by walking only that object's holders.
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
    /// The objects and the references between them.
    ///
    /// Node `n` is the object ``HeapObjectID`` `n`; each edge is marked found in the heap.
    /// Roots are the objects a global variable holds (named `held by a global variable`) and
    /// those with strong references the census could not attribute (`held from outside the
    /// Swift heap`).
    public let graph: CompactGraph
    /// Object addresses to node numbers.
    let addressIndex: AddressIndex
    /// Per object (by node number): its type (an index into `typeNames` and `typeMetadata`).
    let typeIndex: [Int32]
    let typeNames: [String]
    let retainCounts: [UInt32]
    /// Each object's block size in bytes (malloc's usable size).
    let sizes: [UInt32]
    let entryKinds: [HeapEntryKind]
    /// Global variables' storage words that hold an object: by object, sorted.
    let globals: [GlobalReference]
    /// Strong references from outside the Swift heap, per object (retain count − the strong
    /// references found in the heap and in globals).
    let outsideCounts: [UInt32]
    /// Each type's metadata address (0 for tasks, blocks and unread objects).
    let typeMetadata: [UInt]
    /// The type indices of `Foundation.Timer` and its subclasses.
    let timerTypes: Set<Int32>
    /// What the scan could not read, once per type.
    public let limitations: [String]

    /// The number of objects.
    public var objectCount: Int { graph.nodeCount }
    /// The number of references between objects.
    public var referenceCount: Int { graph.edgeCount }

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

    /// The references to `id` held by other heap objects.
    public func references(to id: HeapObjectID) -> [HeapReference] {
        graph.incoming(to: CompactGraph.NodeID(id.rawValue)).map(reference)
    }

    /// The reference a step of the graph stands for.
    func reference(_ step: CompactGraph.Step) -> HeapReference {
        HeapReference(
            from: HeapObjectID(rawValue: Int32(step.from)),
            to: HeapObjectID(rawValue: Int32(step.to)),
            ownership: HeapReference.Ownership(graph.kind(ofEdge: step.edge)),
            label: graph.label(ofEdge: step.edge))
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
    public func size(of id: HeapObjectID) -> Int { Int(sizes[Int(id.rawValue)]) }

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
/// ``HeapSnapshot/graph`` (dense; objects one reaches from another are numbered near each other).
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
    /// How a reference holds its target.
    public enum Ownership: String, Hashable, Sendable {
        case strong, weak, unowned
        case unownedUnsafe = "unowned(unsafe)"

        init(_ kind: CompactGraph.EdgeKind) {
            switch kind {
            case .strong: self = .strong
            case .weak: self = .weak
            case .unowned: self = .unowned
            case .unownedUnsafe: self = .unownedUnsafe
            }
        }
    }

    /// The holder.
    public let from: HeapObjectID
    /// The held.
    public let to: HeapObjectID
    /// How `from` holds `to`.
    public let ownership: Ownership
    /// The property path, capture or element: `timer`, `captures Owner`, `element of [Entry]`.
    public let label: String
}

/// A global variable's storage that holds a census object.
struct GlobalReference: Sendable {
    /// The object's index.
    var object: Int32
    /// Where the word lies, in an image's writable data.
    var slot: UInt
}
