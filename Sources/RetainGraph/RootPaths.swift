/// The path from a root to every node a root reaches, as the project's one path finder chooses
/// it (``/ObjectGraph/CompactGraph/PathTree``).
///
/// Made by one breadth-first search from all roots at once over retaining references, paths
/// with a low-priority step (a conservative word, a root nothing names) explored last: each
/// path it gives has the fewest references among the paths of its priority.
public struct RootPaths: Sendable {
    /// The path tree of the snapshot's compact graph.
    let tree: CompactGraph.PathTree
    let snapshot: GraphSnapshot

    /// Whether some root reaches `id` through strong references (roots reach themselves).
    public func isReachable(_ id: ObjectID) -> Bool {
        guard let index = snapshot.index(of: id) else { return false }
        return tree.isReachable(UInt32(index))
    }

    /// The path from a root to `id`, root first, `id` last.
    ///
    /// - Returns: The references along the path; `[]` when `id` is itself a root; `nil` when no
    ///   root reaches it or it is unknown.
    /// - Complexity: O(length of the path + log *n*).
    public func path(to id: ObjectID) -> [Reference]? {
        guard let index = snapshot.index(of: id) else { return nil }
        return tree.path(to: UInt32(index)).map(snapshot.references(of:))
    }
}

extension GraphSnapshot {
    /// Finds the path from a root to every reachable node (see ``RootPaths``).
    ///
    /// - Complexity: O(*n* + *r*) time and O(*n*) extra memory, once per snapshot (copies
    ///   share the result).
    public func shortestRootPaths() -> RootPaths {
        RootPaths(tree: graph.paths(), snapshot: self)
    }

    /// The path from a root to `id`, root first (see ``RootPaths``).
    ///
    /// - Returns: `[]` when `id` is a root, `nil` when no root reaches it.
    /// - Complexity: O(*n* + *r*) for the snapshot's first path question, O(length of the
    ///   path) afterwards.
    public func shortestStrongPath(to id: ObjectID) -> [Reference]? {
        shortestRootPaths().path(to: id)
    }

    /// One shortest simple cycle of strong references through `id`, rotated to a canonical
    /// start, or `nil` when `id` sits in no cycle.
    ///
    /// The rotation starts at the reference whose holder's type name and role sort first, so
    /// the same cycle reads the same way whichever member it was asked for, run after run.
    ///
    /// - Parameters:
    ///   - id: The node the cycle must pass through.
    ///   - components: The snapshot's components, if already computed.
    /// - Returns: The cycle's references, starting and ending at the same node, or `nil`.
    /// - Complexity: O(*n* + *r*) at worst; a search bounded to `id`'s component.
    public func cycle(through id: ObjectID, components: StrongComponents? = nil) -> [Reference]? {
        guard let origin = index(of: id) else { return nil }
        let components = components ?? stronglyConnectedComponents()
        guard
            let steps = graph.cycle(through: UInt32(origin), components: components.components)
        else { return nil }
        return canonicalRotation(of: references(of: steps))
    }

    /// `cycle` rotated to its canonical start (ObjectGraph's `CycleRotation`): references
    /// ranked by holder type name, then role; ties broken by the smallest holder identity.
    ///
    /// - Complexity: O(*L* log *L*) for a cycle of *L* references.
    func canonicalRotation(of cycle: [Reference]) -> [Reference] {
        let keys = cycle.map { reference in
            "\(typeName(of: reference.from) ?? "?")\u{1}\(reference.role.description)"
        }
        let best = CycleRotation.canonicalStart(keys: keys, identities: cycle.map(\.from))
        return Array(cycle[best...] + cycle[..<best])
    }
}
