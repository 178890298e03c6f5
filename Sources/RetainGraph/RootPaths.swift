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

    /// `cycle` rotated to its canonical start.
    ///
    /// References are ranked by holder type name, then role; the rotation whose sequence of
    /// ranks is lexicographically least wins. When several rotations tie (a cycle of identical
    /// types and roles repeats itself), the one starting at the smallest holder identity wins,
    /// so the result does not depend on where the cycle was entered.
    ///
    /// - Complexity: O(*L* log *L*) for a cycle of *L* references (ranking); the least
    ///   rotation itself is found in O(*L*).
    func canonicalRotation(of cycle: [Reference]) -> [Reference] {
        guard cycle.count > 1 else { return cycle }
        let keys = cycle.map { reference in
            "\(typeName(of: reference.from) ?? "?")\u{1}\(reference.role.description)"
        }
        var rankOfKey: [String: Int] = [:]
        for (rank, key) in Set(keys).sorted().enumerated() { rankOfKey[key] = rank }
        let ranks = keys.map { rankOfKey[$0] ?? 0 }
        let least = Self.leastRotation(of: ranks)
        let period = Self.period(of: ranks)
        var best = least
        var candidate = least + period
        while candidate < least + ranks.count {
            let start = candidate % ranks.count
            if cycle[start].from < cycle[best].from { best = start }
            candidate += period
        }
        return Array(cycle[best...] + cycle[..<best])
    }

    /// The start of the lexicographically least rotation of `sequence` (the smallest such
    /// start when several rotations are equal), by the two-pointer minimum-expression method.
    ///
    /// - Complexity: O(*L*).
    static func leastRotation(of sequence: [Int]) -> Int {
        let length = sequence.count
        var i = 0
        var j = 1
        var k = 0
        while i < length, j < length, k < length {
            let a = sequence[(i + k) % length]
            let b = sequence[(j + k) % length]
            if a == b {
                k += 1
                continue
            }
            if a > b { i += k + 1 } else { j += k + 1 }
            if i == j { j += 1 }
            k = 0
        }
        return min(i, j)
    }

    /// The smallest rotation period of `sequence`: the least *p* dividing its length with
    /// `sequence[k] == sequence[k + p]` throughout (the length itself when there is none).
    ///
    /// - Complexity: O(*L*) (prefix function).
    static func period(of sequence: [Int]) -> Int {
        let length = sequence.count
        guard length > 1 else { return max(length, 1) }
        var prefix = [Int](repeating: 0, count: length)
        for position in 1..<length {
            var matched = prefix[position - 1]
            while matched > 0, sequence[position] != sequence[matched] {
                matched = prefix[matched - 1]
            }
            if sequence[position] == sequence[matched] { matched += 1 }
            prefix[position] = matched
        }
        let candidate = length - prefix[length - 1]
        return length % candidate == 0 ? candidate : length
    }
}
