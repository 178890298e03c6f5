/// Where a cycle's canonical reading starts: the same cycle reads the same way whichever of its
/// members a search entered it by, run after run.
///
/// The live graph's snapshots (`GraphSnapshot.cycle(through:)`) and a heap's unreachable
/// cycles (HeapGraph's `UnreachableCycles`) rotate their cycles with it, so both print a cycle
/// in the same order.
package enum CycleRotation {
    /// The index of the reference a cycle's canonical rotation starts at.
    ///
    /// References are ranked by `keys` (a holder's type name and the reference's role); the
    /// rotation whose sequence of ranks is lexicographically least wins. When several rotations
    /// tie (a cycle of identical types and roles repeats itself), the one whose first holder has
    /// the smallest identity wins, so the result does not depend on where the cycle was entered.
    ///
    /// - Parameters:
    ///   - keys: Per reference of the cycle, in order: what it is ranked by.
    ///   - identities: Per reference: its holder's identity, for ties.
    /// - Returns: The index to start at (0 for an empty cycle or a cycle of one reference).
    /// - Complexity: O(*L* log *L*) for a cycle of *L* references (ranking); the least rotation
    ///   itself is found in O(*L*).
    package static func canonicalStart<Identity: Comparable>(
        keys: [String], identities: [Identity]
    ) -> Int {
        guard keys.count > 1, identities.count == keys.count else { return 0 }
        var rankOfKey: [String: Int] = [:]
        for (rank, key) in Set(keys).sorted().enumerated() { rankOfKey[key] = rank }
        let ranks = keys.map { rankOfKey[$0] ?? 0 }
        let least = leastRotation(of: ranks)
        let period = period(of: ranks)
        var best = least
        var candidate = least + period
        while candidate < least + ranks.count {
            let start = candidate % ranks.count
            if identities[start] < identities[best] { best = start }
            candidate += period
        }
        return best
    }

    /// The start of the lexicographically least rotation of `sequence` (the smallest such
    /// start when several rotations are equal), by the two-pointer minimum-expression method.
    ///
    /// - Complexity: O(*L*).
    package static func leastRotation(of sequence: [Int]) -> Int {
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
    package static func period(of sequence: [Int]) -> Int {
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
