/// Which part of a ``LiveGraph`` a scoped snapshot copies: some nodes and their holders.
///
/// A leak check asks about a handful of objects in a graph that may hold thousands. What keeps
/// an object alive is among its *strong holders* (the nodes from which a chain of strong
/// references reaches it), and a report also shows who else points at it. A scope names the
/// objects and how far to follow their holders, and ``LiveGraph/snapshot(_:)`` copies just
/// that:
///
/// ```swift
/// // Everything that can keep the owner alive, and whatever holds it weakly:
/// let snapshot = graph.snapshot(.retention(of: [ownerID]))
/// // The timers, proxies and closures within three references of the owner, of any kind:
/// let nearby = graph.snapshot(.holders(of: [ownerID], within: 3))
/// ```
///
/// The snapshot holds the scope's nodes, the holders described below, and every reference
/// between two of those nodes.
public struct SnapshotScope: Hashable, Sendable {
    /// The nodes to start from. Unknown or dead ones are left out.
    public var nodes: [ObjectID]
    /// Whether to copy every strong holder of ``nodes``, however far: each node from which a
    /// chain of strong references reaches one of them.
    public var includesStrongHolders: Bool
    /// How many references of any kind (strong, weak or unowned) to follow backwards from
    /// ``nodes``: `1` adds their direct holders, `0` none. Negative values count as `0`.
    public var holderDistance: Int

    /// Creates a scope.
    ///
    /// - Parameters:
    ///   - nodes: The nodes to start from.
    ///   - includesStrongHolders: Whether to copy all their strong holders, transitively.
    ///   - holderDistance: How many references of any kind to follow backwards from `nodes`.
    public init(nodes: [ObjectID], includesStrongHolders: Bool, holderDistance: Int) {
        self.nodes = nodes
        self.includesStrongHolders = includesStrongHolders
        self.holderDistance = max(0, holderDistance)
    }

    /// What explains why `nodes` are alive: all their strong holders, transitively, and their
    /// direct holders of any kind.
    ///
    /// For each of `nodes`, a ``RetentionAnalysis`` of such a snapshot gives the same shortest
    /// root path, cycle and fingerprint as one of the full graph.
    ///
    /// - Parameter nodes: The nodes to explain.
    public static func retention(of nodes: [ObjectID]) -> SnapshotScope {
        SnapshotScope(nodes: nodes, includesStrongHolders: true, holderDistance: 1)
    }

    /// The nodes that reach `nodes` through at most `distance` references of any kind.
    ///
    /// - Parameters:
    ///   - nodes: The nodes to start from.
    ///   - distance: How many references to follow backwards.
    public static func holders(of nodes: [ObjectID], within distance: Int) -> SnapshotScope {
        SnapshotScope(nodes: nodes, includesStrongHolders: false, holderDistance: distance)
    }
}
