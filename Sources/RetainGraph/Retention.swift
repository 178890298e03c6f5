/// What keeps an object alive, according to a snapshot.
public enum Retention: Hashable, Sendable {
    /// Nothing recorded keeps it: no strong path from a root and no strong cycle. If it is still
    /// alive, something the graph does not know about holds it.
    case unexplained
    /// A strong path from a root holds it, and it sits in no cycle (seed S4: a leak that a
    /// cycle-only detector misses).
    case rootPath([Reference])
    /// A strong cycle holds it and no root reaches it (classic cycle garbage).
    case cycle([Reference])
    /// A root reaches it and it also sits in a cycle (seed S1).
    case rootPathAndCycle(path: [Reference], cycle: [Reference])

    /// The path from a root, if any.
    public var rootPath: [Reference]? {
        switch self {
        case .rootPath(let path), .rootPathAndCycle(let path, _): return path
        case .cycle, .unexplained: return nil
        }
    }

    /// The cycle, if any.
    public var cycle: [Reference]? {
        switch self {
        case .cycle(let cycle), .rootPathAndCycle(_, let cycle): return cycle
        case .rootPath, .unexplained: return nil
        }
    }
}

/// A snapshot analysed once: components and root paths computed, ready to explain any node.
///
/// ```swift
/// let analysis = LiveGraph.shared.snapshot().analyze()
/// switch analysis.retention(of: ownerID) { … }
/// ```
public struct RetentionAnalysis: Sendable {
    /// The analysed snapshot.
    public let snapshot: GraphSnapshot
    /// Its strongly connected components over strong references.
    public let components: StrongComponents
    /// Its shortest strong paths from roots.
    public let rootPaths: RootPaths

    /// Analyses a snapshot.
    ///
    /// On a snapshot of at least ``concurrentAnalysisThreshold`` nodes, the components and the
    /// root paths are computed at the same time on two threads.
    ///
    /// - Complexity: O(*n* + *r*).
    public init(_ snapshot: GraphSnapshot) {
        self.snapshot = snapshot
        let graph = snapshot.graph
        let (components, tree) =
            graph.nodeCount >= Self.concurrentAnalysisThreshold
            ? graph.componentsAndPathsConcurrently()
            : (graph.strongComponents(), graph.paths())
        self.components = StrongComponents(components: components, snapshot: snapshot)
        self.rootPaths = RootPaths(tree: tree, snapshot: snapshot)
    }

    /// The node count from which ``init(_:)`` runs its two searches on two threads.
    ///
    /// Below it, starting a thread costs more than the shorter search takes.
    public static let concurrentAnalysisThreshold = 100_000

    /// What keeps `id` alive.
    ///
    /// - Complexity: O(path length + log *n*), plus a search of `id`'s component if it is in
    ///   a cycle.
    public func retention(of id: ObjectID) -> Retention {
        let path = rootPaths.path(to: id)
        let cycle = snapshot.cycle(through: id, components: components)
        switch (path, cycle) {
        case (let path?, let cycle?): return .rootPathAndCycle(path: path, cycle: cycle)
        case (let path?, nil): return .rootPath(path)
        case (nil, let cycle?): return .cycle(cycle)
        case (nil, nil): return .unexplained
        }
    }

    /// Every non-root node kept alive by a root or a cycle, with what keeps it.
    ///
    /// - Complexity: O(*n* + *r*) plus the paths and cycles reported, plus one breadth-first
    ///   search of its component for each node in a cycle (O(*k*²) for a component of *k*
    ///   nodes): for large graphs, ask ``retention(of:)`` about the nodes you care about.
    public func retainedNodes() -> [(node: Node, retention: Retention)] {
        snapshot.nodes.compactMap { node in
            guard !node.isRoot else { return nil }
            let retention = retention(of: node.id)
            if case .unexplained = retention { return nil }
            return (node, retention)
        }
    }
}

extension GraphSnapshot {
    /// Analyses the snapshot once for repeated questions.
    ///
    /// - Complexity: O(*n* + *r*).
    public func analyze() -> RetentionAnalysis { RetentionAnalysis(self) }
}
