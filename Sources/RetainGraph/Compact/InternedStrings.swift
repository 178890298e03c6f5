/// A table of distinct strings, each named by a small dense number.
///
/// A compact graph names types, labels, roles and roots by number, so a million nodes of forty
/// types store forty strings, not a million. Number `0` is always the empty string, which the
/// graph reads as "none".
///
/// ```swift
/// var strings = InternedStrings()
/// let a = strings.intern("App.Owner")   // 1
/// let b = strings.intern("App.Owner")   // 1 again
/// print(strings[a])                      // "App.Owner"
/// ```
public struct InternedStrings: Sendable {
    /// The strings, by number.
    private var values: [String] = [""]
    /// Number of each string.
    private var numbers: [String: UInt32] = ["": 0]

    /// Creates a table holding only the empty string (number `0`).
    public init() {}

    /// The number of `string`, adding it if it is new.
    ///
    /// - Parameter string: The string to intern.
    /// - Returns: Its number; the same string always gets the same number.
    /// - Complexity: O(length of `string`) (one hash lookup).
    public mutating func intern(_ string: String) -> UInt32 {
        if let number = numbers[string] { return number }
        let number = UInt32(values.count)
        values.append(string)
        numbers[string] = number
        return number
    }

    /// The number of `string` if it is in the table, without adding it.
    ///
    /// - Complexity: O(length of `string`).
    public func number(of string: String) -> UInt32? { numbers[string] }

    /// The string numbered `number`, or `""` for a number the table never gave out.
    ///
    /// - Complexity: O(1).
    public subscript(number: UInt32) -> String {
        Int(number) < values.count ? values[Int(number)] : ""
    }

    /// How many distinct strings the table holds, the empty string included.
    public var count: Int { values.count }
}

extension CompactGraph {
    /// What a node of a compact graph stands for, in one byte.
    public enum NodeKind: UInt8, Sendable, CaseIterable {
        /// An ordinary object (class instance).
        case object
        /// A timer: a run-loop timer, a dispatch timer or a frame timer.
        case timer
        /// A proxy that forwards to a target.
        case proxy
        /// A closure's context.
        case closure
        /// A root: something that outlives what it holds (a run loop, a queue, a global).
        case root
        /// A box the compiler made for a captured variable.
        case box
        /// The storage of a collection (Array, Dictionary, Set).
        case storage
    }

    /// How strongly an edge holds its target, in one byte.
    public enum EdgeKind: UInt8, Sendable, CaseIterable {
        /// Keeps the target alive.
        case strong
        /// A `weak` reference: becomes `nil` when the target dies.
        case weak
        /// An `unowned` (safe) reference.
        case unowned
        /// An `unowned(unsafe)` reference: no reference count at all.
        case unownedUnsafe

        /// Whether edges of this kind keep their target alive.
        public var retainsTarget: Bool { self == .strong }
    }

    /// One edge along a path: the holder, the edge's position and the held node.
    public struct Step: Hashable, Sendable {
        /// The holder.
        public let from: NodeID
        /// The edge's position in the graph's edge arrays.
        public let edge: EdgeID
        /// The held node.
        public let to: NodeID

        /// Creates a step.
        public init(from: NodeID, edge: EdgeID, to: NodeID) {
            self.from = from
            self.edge = edge
            self.to = to
        }
    }
}
