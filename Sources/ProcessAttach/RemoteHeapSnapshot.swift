import Foundation
import RetainGraph

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
/// ```swift
/// let heap = try RemoteHeapSnapshot.capture(processID: pid)
/// for type in heap.countsByType().prefix(5) {
///     print(type.count, type.bytes, type.typeName)
/// }
/// if let session = heap.objects(ofType: "App.Session").first,
///     let path = heap.retentionPath(to: session)
/// {
///     print(path.description)  // a Task (…) ⇒ Task ⇒ closure context ⇒ … ⇒ App.Session
/// }
/// ```
///
/// A snapshot is a record: it holds nothing of the target, and stays readable after the
/// target exits. Save it with ``jsonData()`` and read it back with ``init(jsonData:)``.
public struct RemoteHeapSnapshot: Sendable {
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

    // Objects, by number (a ``RemoteObjectID``).
    let addresses: [UInt]
    let typeOfObject: [Int32]
    let types: [RemoteType]
    let sizes: [UInt32]
    let retainCounts: [UInt32]
    /// References between objects, resolved.
    let references: ReferenceColumns
    let labels: [String]
    /// Holders by object, sorted by object.
    let holders: [HeldObject]
    /// Each object's best holder's rank (``RemoteHolder/rank``), or `UInt8.max` when nothing
    /// outside the heap holds it.
    let holderRanks: [UInt8]
    /// The objects and references as the graph RetainGraph analyses (built from the columns
    /// above in RemoteHeapSnapshot+Graph.swift).
    public let graph: CompactGraph
    let addressTable: AddressTable

    /// The number of live objects found.
    public var objectCount: Int { addresses.count }
    /// The number of references between them.
    public var referenceCount: Int { references.sources.count }
    /// The bytes the objects' blocks take (their usable sizes).
    public var totalBytes: Int { sizes.reduce(0) { $0 + Int($1) } }

    /// The object with identity `id`.
    public subscript(id: RemoteObjectID) -> RemoteObject {
        let index = Int(id.rawValue)
        return RemoteObject(
            id: id, address: addresses[index], typeName: types[Int(typeOfObject[index])].name,
            size: Int(sizes[index]),
            retainCount: retainCounts[index] == UInt32.max ? nil : Int(retainCounts[index]))
    }

    /// The identity of the object at `address`, if a live object starts there.
    ///
    /// - Complexity: O(1) expected.
    public func object(at address: UInt) -> RemoteObjectID? {
        addressTable.index(of: address).map(RemoteObjectID.init(rawValue:))
    }

    /// The identities of every object whose type name is `typeName`, in address order.
    ///
    /// - Complexity: O(*n*).
    public func objects(ofType typeName: String) -> [RemoteObjectID] {
        let wanted = Set(types.indices.filter { types[$0].name == typeName }.map { Int32($0) })
        guard !wanted.isEmpty else { return [] }
        return typeOfObject.indices.filter { wanted.contains(typeOfObject[$0]) }
            .sorted { addresses[$0] < addresses[$1] }
            .map { RemoteObjectID(rawValue: Int32($0)) }
    }

    /// Live objects and their bytes by type name, the most numerous first (then by name).
    ///
    /// - Complexity: O(*n*).
    public func countsByType() -> [RemoteTypeCount] {
        var counts = [Int](repeating: 0, count: types.count)
        var bytes = [Int](repeating: 0, count: types.count)
        for (index, type) in typeOfObject.enumerated() {
            counts[Int(type)] += 1
            bytes[Int(type)] += Int(sizes[index])
        }
        var byName: [String: RemoteTypeCount] = [:]
        for (index, type) in types.enumerated() where counts[index] > 0 {
            var entry =
                byName[type.name] ?? RemoteTypeCount(typeName: type.name, count: 0, bytes: 0)
            entry.count += counts[index]
            entry.bytes += bytes[index]
            byName[type.name] = entry
        }
        return byName.values.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.typeName < $1.typeName
        }
    }

    /// What holds `id` from outside the Swift heap (globals, threads, a named holder,
    /// unattributed references), best first.
    public func holders(of id: RemoteObjectID) -> [RemoteHolder] {
        var low = 0
        var high = holders.count
        while low < high {
            let middle = (low + high) / 2
            if holders[middle].object < id.rawValue { low = middle + 1 } else { high = middle }
        }
        var found: [RemoteHolder] = []
        while low < holders.count, holders[low].object == id.rawValue {
            found.append(holders[low].holder)
            low += 1
        }
        return found.sorted { $0.rank < $1.rank }
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
    /// Its strong retain count when read; nil for an immortal object.
    public let retainCount: Int?
}

/// A reference between two objects of a ``RemoteHeapSnapshot``.
public struct RemoteReference: Hashable, Sendable {
    /// The holder.
    public let from: RemoteObjectID
    /// The held.
    public let to: RemoteObjectID
    /// How a reference holds its target.
    public enum Ownership: String, Hashable, Sendable, Codable {
        /// Keeps the target alive.
        case strong
        /// A `weak` reference.
        case weak
        /// An `unowned` reference.
        case unowned
        /// An `unowned(unsafe)` reference.
        case unownedUnsafe = "unowned(unsafe)"
        /// A word read without a layout (a task's frame, a block's captures) that holds the
        /// target's address: counted as strong.
        case conservative
    }

    /// How `from` holds `to`.
    public let ownership: Ownership
    /// The property path, capture or element: `timer`, `captures Owner`, `element of [Entry]`.
    public let label: String
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
public struct RemoteThread: Hashable, Sendable, Codable {
    /// The thread's kernel id.
    public let id: Int32
    /// The thread's name.
    public let name: String
}

/// Counts about how a snapshot was read.
public struct RemoteHeapStatistics: Hashable, Sendable, Codable {
    /// Blocks in use on glibc's heaps (objects or not).
    public var heapBlocks = 0
    /// Freed blocks that still looked in use (tcache, fastbins), left out.
    public var excludedFreeBlocks = 0
    /// Objects found dying (being deinitialised), left out.
    public var dyingObjects = 0
    /// Bytes copied from the target while it was stopped.
    public var copiedBytes = 0
    /// Layouts compiled (distinct metadata met).
    public var layouts = 0
    /// Seconds spent analysing the copy (after the target was let go).
    public var analysisSeconds = 0.0
}

/// The type of objects of one metadata.
struct RemoteType: Sendable, Codable {
    var name: String
    var shape: UInt8
    var isTimer: Bool
}

/// A holder of one object.
struct HeldObject: Sendable {
    var object: Int32
    var holder: RemoteHolder
}

/// Resolved references, by column.
struct ReferenceColumns: Sendable {
    var sources: [UInt32] = []
    var targets: [UInt32] = []
    var ownerships: [SlotOwnership] = []
    var labels: [Int32] = []
}
