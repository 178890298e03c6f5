import RetainGraphUtilities
import StackTraces

/// One node of a ``GraphSnapshot``: an object, a closure, a timer, a proxy or a root.
public struct Node: Hashable, Sendable, Identifiable {
    /// The node's identity.
    public let id: ObjectID
    /// The fully qualified type name, such as `MyApp.ClockViewController`.
    public let typeName: String
    /// A human label given when the node was recorded, if any.
    public let label: String?
    /// What the node stands for.
    public let kind: NodeKind
    /// The object's address when the snapshot was taken, for display only (never for identity).
    public let address: UInt?
    /// The object's size in bytes when known (a heap census knows it), otherwise `0`.
    public let size: Int
    /// Where the node was created, when that was captured.
    public let creationTrace: StackTrace?
    /// Timer state, for timer nodes.
    public let timer: TimerInfo?
    /// A remark on a root that outlived what it stands for, such as `its thread has exited` on
    /// the run loop of a thread that ended while a timer still holds the run loop.
    public let note: String?

    /// Creates a node. Snapshots make their own; use this for synthetic graphs.
    public init(
        id: ObjectID, typeName: String, label: String? = nil, kind: NodeKind = .object,
        address: UInt? = nil, size: Int = 0, creationTrace: StackTrace? = nil,
        timer: TimerInfo? = nil, note: String? = nil
    ) {
        self.size = size
        self.note = note
        self.id = id
        self.typeName = typeName
        self.label = label
        self.kind = kind
        self.address = address
        self.creationTrace = creationTrace
        self.timer = timer
    }

    /// Whether the node is a root.
    public var isRoot: Bool { kind.isRoot }

    /// The type name without its module prefix, such as `ClockViewController`.
    public var shortTypeName: String {
        TypeNames.withoutModule(typeName)
    }
}

/// One reference of a ``GraphSnapshot``: `from` holds `to` with an ``ownership`` in a ``role``.
public struct Reference: Hashable, Sendable {
    /// The identity of the recorded reference, when it came from a ``LiveGraph``.
    public let id: ReferenceID?
    /// The holder.
    public let from: ObjectID
    /// The held.
    public let to: ObjectID
    /// How `from` holds `to`.
    public let ownership: Ownership
    /// Why `from` holds `to`.
    public let role: ReferenceRole
    /// Where the reference was made, when that was captured.
    public let creationTrace: StackTrace?
    /// Where the reference came from: declared by the code that made it, or found by reading
    /// memory (the watched objects' with reflection, or the whole heap's with a census).
    public let origin: ReferenceOrigin
    /// Whether paths through this reference are explored after every other (a conservative
    /// word, or a reference its discoverer marked so).
    public let isLowPriority: Bool

    /// Creates a reference. Snapshots make their own; use this for synthetic graphs.
    public init(
        id: ReferenceID? = nil, from: ObjectID, to: ObjectID, ownership: Ownership,
        role: ReferenceRole, creationTrace: StackTrace? = nil, origin: ReferenceOrigin = .declared,
        isLowPriority: Bool = false
    ) {
        self.id = id
        self.from = from
        self.to = to
        self.ownership = ownership
        self.role = role
        self.creationTrace = creationTrace
        self.origin = origin
        self.isLowPriority = isLowPriority || ownership == .conservative
    }

    /// Creates a reference with the ownership vocabulary of earlier versions.
    @available(*, deprecated, message: "use init(id:from:to:ownership:role:creationTrace:origin:)")
    public init(
        id: ReferenceID? = nil, from: ObjectID, to: ObjectID, kind: Ownership,
        role: ReferenceRole, creationTrace: StackTrace? = nil, isDiscovered: Bool = false,
        isFoundInHeap: Bool = false
    ) {
        self.init(
            id: id, from: from, to: to, ownership: kind, role: role, creationTrace: creationTrace,
            origin: isFoundInHeap ? .heap : isDiscovered ? .reflection : .declared)
    }

    /// How `from` holds `to` (``ownership``).
    @available(*, deprecated, renamed: "ownership")
    public var kind: Ownership { ownership }

    /// Whether the reference was discovered by reading memory rather than declared by the
    /// code that made it.
    public var isDiscovered: Bool { origin.isDiscovered }
    /// Whether it was found by reading the whole heap (it is then also discovered): reports
    /// say "found in the heap".
    public var isFoundInHeap: Bool { origin == .heap }
}
