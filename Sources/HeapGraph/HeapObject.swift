import Foundation
import ObjectGraph

/// An object's identity in one ``HeapSnapshot``: its node number in the snapshot's graph
/// (dense; below ``HeapSnapshot/objectCount``).
public struct HeapObjectID: Hashable, Comparable, Sendable {
    /// The object's node number in its snapshot's graph.
    public let rawValue: Int32

    /// Creates an identity from a node number.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Orders identities by node number.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One object of a ``HeapSnapshot``.
public struct HeapObject: Hashable, Sendable {
    /// Its identity in the snapshot.
    public let id: HeapObjectID
    /// Its address in the process it was read from, for display.
    public let address: UInt
    /// Its type: a class name, `closure context (captures Owner)`, `[Entry] storage`, `Task`.
    public let typeName: String
    /// The bytes its block takes (the allocator's usable size).
    public let size: Int
    /// Its strong retain count when it was read; nil for an immortal object, or when the count
    /// was not read (a saved file).
    public let retainCount: Int?
    /// Strong references to it found neither in the Swift heap, nor in a global variable, nor
    /// (read from outside) on a thread's stack: C code such as a run loop, libdispatch or the
    /// concurrency runtime.
    public let outsideReferences: Int
}

/// A reference between two objects of a ``HeapSnapshot``.
public struct HeapReference: Hashable, Sendable {
    /// The holder.
    public let from: HeapObjectID
    /// The held.
    public let to: HeapObjectID
    /// How `from` holds `to`: ``/ObjectGraph/Ownership/conservative`` for a word read without
    /// a layout (a task's frame, a C block's captures) that holds the target's address.
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

/// A type's live objects and bytes, as ``HeapSnapshot/countsByType()`` gives them.
public struct HeapTypeCount: Hashable, Sendable {
    /// The type's name.
    public let typeName: String
    /// Live objects of the type.
    public var count: Int
    /// Bytes their blocks take.
    public var bytes: Int

    /// A count of `count` objects of `typeName` taking `bytes` bytes.
    public init(typeName: String, count: Int, bytes: Int) {
        self.typeName = typeName
        self.count = count
        self.bytes = bytes
    }
}

/// The process a ``HeapSnapshot`` was read from.
public struct HeapProcess: Hashable, Sendable {
    /// Its process id.
    public var processID: Int32
    /// Its name.
    public var command: String
    /// Its threads, when they were read (from outside: every thread, as it was stopped).
    public var threads: [HeapThread]
    /// When the heap was read.
    public var capturedAt: Date
    /// How long the process was stopped, when it was stopped to be read.
    public var stopDuration: Duration?
    /// Whether the heap is this process's own, read by its census (objects can then be asked
    /// about as live objects, and creation traces read).
    public var isThisProcess: Bool

    /// A description of the process a heap was read from.
    public init(
        processID: Int32, command: String, threads: [HeapThread] = [], capturedAt: Date = Date(),
        stopDuration: Duration? = nil, isThisProcess: Bool = false
    ) {
        self.processID = processID
        self.command = command
        self.threads = threads
        self.capturedAt = capturedAt
        self.stopDuration = stopDuration
        self.isThisProcess = isThisProcess
    }
}

/// A thread of a process whose heap was read.
public struct HeapThread: Hashable, Sendable {
    /// The thread's kernel id.
    public let id: Int32
    /// The thread's name.
    public let name: String

    /// A thread with kernel id `id` named `name`.
    public init(id: Int32, name: String) {
        self.id = id
        self.name = name
    }
}

/// Counts about how a ``HeapSnapshot`` was read.
public struct HeapReadStatistics: Hashable, Sendable {
    /// Heap blocks in use that were looked at (objects or not).
    public var heapBlocks = 0
    /// Freed blocks that still looked in use (tcache, fastbins), left out.
    public var excludedFreeBlocks = 0
    /// Objects found dying (being deinitialised), left out.
    public var dyingObjects = 0
    /// Bytes copied from the process while it was stopped (0 for this process's own heap).
    public var copiedBytes = 0
    /// Layouts compiled (distinct types met).
    public var layouts = 0
    /// Seconds spent reading and analysing.
    public var analysisSeconds = 0.0
    /// How much of the allocator's heap a reader of another process walked, and what it could
    /// not read (nil for this process's census, which knows every object it recorded, and for
    /// a file that did not keep it).
    public var heapWalk: HeapWalkCompleteness?

    /// Statistics with every count zero.
    public init() {}
}
