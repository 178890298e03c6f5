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

    /// Orders identities by when they were handed out.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#` and the number, as reports print it.
    public var description: String { "#\(rawValue)" }

    /// A hash for dictionaries and sets keyed by identities: a multiply-xorshift mix of the raw
    /// value and the table's seed instead of SipHash.
    ///
    /// The live graph looks identities up in dictionaries several times per recorded event, and
    /// SipHash was a large part of what tracking a timer costs. Identities are numbers the graph
    /// hands out itself, so the flooding resistance SipHash buys is not needed here. Equal
    /// identities hash equally, as `Hashable` requires; `hash(into:)` is unchanged.
    public func _rawHashValue(seed: Int) -> Int {
        FastHash.mix(rawValue, seed: seed)
    }
}

/// The object identity the live graph indexes nodes by, hashed like ``ObjectID``.
struct ObjectKey: Hashable {
    let identifier: ObjectIdentifier

    /// The key of `object`, borrowed: an initialiser's parameters are otherwise owned, which
    /// costs the caller a retain and the initialiser a release.
    init(_ object: borrowing AnyObject) { identifier = ObjectIdentifier(copy object) }

    /// The key of the object `identifier` names.
    init(identifier: ObjectIdentifier) { self.identifier = identifier }

    /// The object's address, for reports.
    var address: UInt { UInt(bitPattern: identifier) }

    func _rawHashValue(seed: Int) -> Int {
        FastHash.mix(UInt64(UInt(bitPattern: identifier)), seed: seed)
    }
}

/// A cheap, well-mixed hash of one word (the finaliser of SplitMix64).
enum FastHash {
    @inline(__always)
    static func mix(_ value: UInt64, seed: Int) -> Int {
        var z = value ^ UInt64(bitPattern: Int64(seed))
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: z ^ (z >> 31))
    }
}

/// The identity of one recorded reference in a ``LiveGraph``.
///
/// Keep it to remove the reference later with ``LiveGraph/removeReference(_:)``. Removing a
/// reference twice, or after its node was removed, does nothing.
public struct ReferenceID: Hashable, Sendable, CustomStringConvertible {
    let slot: UInt32
    let generation: UInt32

    /// `ref`, the slot and the generation, for diagnostics.
    public var description: String { "ref\(slot).\(generation)" }
}

/// How strongly one object holds another: ``/ObjectGraph/Ownership``, the project's one
/// ownership vocabulary.
@available(*, deprecated, renamed: "Ownership")
public typealias ReferenceKind = Ownership
