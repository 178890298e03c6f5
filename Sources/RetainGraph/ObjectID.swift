/// The identity of a node in a ``LiveGraph``: an object, a timer's closure, or a root.
///
/// Identifiers are handed out by the graph in increasing order and never reused, so an
/// identifier recorded before an object died can never be mistaken for a new object that
/// happens to reuse the same address.
public struct ObjectID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw, process-unique number of the node.
    public let rawValue: UInt64

    /// Creates an identifier from a raw value.
    ///
    /// Use this to build synthetic graphs (tests, tools reading reports); a ``LiveGraph`` makes
    /// its own identifiers.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "#\(rawValue)" }
}

/// The identity of one recorded reference in a ``LiveGraph``.
///
/// Keep it to remove the reference later with ``LiveGraph/removeReference(_:)``. Removing a
/// reference twice, or after its node was removed, does nothing.
public struct ReferenceID: Hashable, Sendable, CustomStringConvertible {
    let slot: UInt32
    let generation: UInt32

    public var description: String { "ref\(slot).\(generation)" }
}

/// How strongly one object holds another.
public enum ReferenceKind: String, Hashable, Sendable, CaseIterable, Codable {
    /// Keeps the target alive (a `let`, a `var`, a strong capture, a timer's target).
    case strong
    /// Does not keep the target alive and becomes `nil` when it dies.
    case weak
    /// Does not keep the target alive and is expected to outlive it never.
    case unowned

    /// Whether references of this kind keep their target alive.
    public var retainsTarget: Bool { self == .strong }
}
