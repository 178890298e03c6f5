/// The strongly connected components of a snapshot's strong references.
///
/// A component of more than one node, or one node holding itself strongly, is a retain cycle:
/// nothing in it can be freed while the others live.
///
/// ```swift
/// let components = snapshot.stronglyConnectedComponents()
/// for cycle in components.cycles { print("cycle of \(cycle.count) objects") }
/// ```
public struct StrongComponents: Sendable {
    /// The components of the snapshot's compact graph.
    let components: CompactGraph.Components
    let snapshot: GraphSnapshot

    /// The number of components, cycles or not.
    public var count: Int { components.count }

    /// The retain cycles: components of several nodes, or of one node holding itself strongly.
    /// Each lists its members in ascending identity order.
    ///
    /// - Complexity: O(*c* log *c*) for *c* nodes in cycles.
    public var cycles: [[ObjectID]] {
        components.cycles.map(identities(of:))
    }

    /// The identities in the same component as `id` (including `id`), or `[]` if unknown.
    ///
    /// - Complexity: O(*k* log *k*) for a component of *k* nodes.
    public func component(containing id: ObjectID) -> [ObjectID] {
        guard let index = snapshot.index(of: id) else { return [] }
        return identities(of: components.component(of: UInt32(index)))
    }

    /// Whether `id` sits in a retain cycle.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    public func isInCycle(_ id: ObjectID) -> Bool {
        guard let index = snapshot.index(of: id) else { return false }
        return components.isInCycle(UInt32(index))
    }

    private func identities(of component: Int) -> [ObjectID] {
        // Node numbers follow identities, so ascending members are ascending identities.
        components.members(of: component).map(snapshot.id(at:))
    }
}

extension GraphSnapshot {
    /// Finds the strongly connected components over strong references.
    ///
    /// Uses Pearce's single-array variant of Tarjan's algorithm with an explicit stack instead
    /// of recursion (see ``/ObjectGraph/CompactGraph/strongComponents()``), so there is no
    /// depth limit: a cycle of a million objects is found like a cycle of two. (A depth-bounded
    /// search, such as FBRetainCycleDetector's default of 10, misses longer cycles.) Components
    /// are stored flat, so a graph of a million singleton components makes no per-component
    /// allocation.
    ///
    /// - Complexity: O(*n* + *r*) time and O(*n*) extra memory.
    public func stronglyConnectedComponents() -> StrongComponents {
        StrongComponents(components: graph.strongComponents(), snapshot: self)
    }
}
