import ReferenceReflection
import StackTraces

/// Every live Swift heap object the census knows, with the references between them, at one
/// moment: the heap's reference graph.
///
/// Take one with ``HeapCensus/snapshot()``. Objects are numbered densely (``HeapObjectID``) in
/// address order; references are kept in flat arrays (compressed sparse rows, both
/// directions), labels and type names interned: a snapshot of a million objects costs a few
/// dozen bytes per object and answers "who holds this" by walking only that object's holders.
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
/// ```
public struct HeapSnapshot: Sendable {
    /// The objects' addresses, ascending.
    let addresses: [UInt]
    let typeIndex: [Int32]
    let typeNames: [String]
    let labels: [String]
    let retainCounts: [UInt32]
    /// Each object's block size in bytes (malloc's usable size).
    let sizes: [UInt32]
    let entryKinds: [HeapEntryKind]
    /// Out-edges: `outStart[i]..<outStart[i + 1]` index `outTarget`, `outKind`, `outLabel`.
    let outStart: [Int32]
    let outTarget: [Int32]
    let outKind: [HeapSlotKind]
    let outLabel: [Int32]
    /// In-edges: `inStart[i]..<inStart[i + 1]` index `inSource` and `inEdge` (the out-edge).
    let inStart: [Int32]
    let inSource: [Int32]
    let inEdge: [Int32]
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
    public var objectCount: Int { addresses.count }
    /// The number of references between objects.
    public var referenceCount: Int { outTarget.count }

    /// The identity of the object at `address` in this snapshot, if it was live then.
    ///
    /// - Complexity: O(log *n*).
    public func id(ofObjectAt address: UInt) -> HeapObjectID? {
        var low = 0
        var high = addresses.count
        while low < high {
            let middle = (low + high) / 2
            if addresses[middle] < address { low = middle + 1 } else { high = middle }
        }
        guard low < addresses.count, addresses[low] == address else { return nil }
        return HeapObjectID(rawValue: Int32(low))
    }

    /// The identity of `object` in this snapshot, if the census saw it allocated.
    public func id(of object: AnyObject) -> HeapObjectID? {
        id(ofObjectAt: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
    }

    /// The object with identity `id`.
    public subscript(id: HeapObjectID) -> HeapObjectRecord {
        let index = Int(id.rawValue)
        return HeapObjectRecord(
            id: id, address: addresses[index], typeName: typeNames[Int(typeIndex[index])],
            retainCount: Int(retainCounts[index]), outsideReferences: Int(outsideCounts[index]))
    }

    /// The references `id` holds.
    public func references(from id: HeapObjectID) -> [HeapReference] {
        let index = Int(id.rawValue)
        return (Int(outStart[index])..<Int(outStart[index + 1])).map { edge in
            HeapReference(
                from: id, to: HeapObjectID(rawValue: outTarget[edge]),
                ownership: HeapReference.Ownership(outKind[edge]),
                label: labels[Int(outLabel[edge])])
        }
    }

    /// The references to `id` held by other heap objects.
    public func references(to id: HeapObjectID) -> [HeapReference] {
        let index = Int(id.rawValue)
        return (Int(inStart[index])..<Int(inStart[index + 1])).map { slot in
            let edge = Int(inEdge[slot])
            return HeapReference(
                from: HeapObjectID(rawValue: inSource[slot]), to: id,
                ownership: HeapReference.Ownership(outKind[edge]),
                label: labels[Int(outLabel[edge])])
        }
    }

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
        CreationTraces.shared.trace(at: addresses[Int(id.rawValue)])
    }

    /// The class whose instances have the type name `typeName`, if it is a class.
    public func instanceClass(named typeName: String) -> AnyClass? {
        guard
            let index = typeNames.indices.first(where: {
                typeNames[$0] == typeName && typeMetadata[$0] != 0
            }),
            let metadata = UnsafeRawPointer(bitPattern: typeMetadata[index]),
            RuntimeKind.isClass(metadata)
        else { return nil }
        return unsafeBitCast(metadata, to: AnyClass.self)
    }

    /// The identities of every object whose type name is `typeName`.
    ///
    /// - Complexity: O(*n*).
    public func objects(ofType typeName: String) -> [HeapObjectID] {
        let types = Set(typeNames.indices.filter { typeNames[$0] == typeName }.map { Int32($0) })
        guard !types.isEmpty else { return [] }
        return typeIndex.indices.filter { types.contains(typeIndex[$0]) }.map {
            HeapObjectID(rawValue: Int32($0))
        }
    }
}

/// An object's identity in one ``HeapSnapshot`` (dense, in address order).
public struct HeapObjectID: Hashable, Comparable, Sendable {
    /// The object's index in its snapshot.
    public let rawValue: Int32

    /// Creates an identity from an index.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Orders identities by index (that is, by address).
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

        init(_ kind: HeapSlotKind) {
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
