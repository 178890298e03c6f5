// The dominator tree's depth-first search, over unsafe pointers (see `_DominatorKernel.swift`
// for why, and for the measurements).

/// The strong out-edges in the shape the search reads them, and its scratch memory.
///
/// `heads` holds two arrays of `nodeCount + 1` words: `heads[v]` is node `v`'s first strong
/// target (``noTarget`` when it has none), `heads[nodeCount + 1 + v]` where its other strong
/// targets start in `rest` (they end where node `v + 1`'s start). Descending into a node costs
/// one cache miss in a 4 MB array (for 1M nodes) where the graph's rows cost three
/// (`outStart`, `strongOutEnd`, then `targets`, 21 MB in all); the starts are read off the
/// chain. Apart, the first targets take 15 % less time than interleaved with the starts
/// (thread CPU time of the search, 82–95 ms against 102–110 at load 5–6): the chain's array
/// is half the size.
struct DominatorSearch {
    /// The first word of a node without strong out-edges.
    static let noTarget = UInt32.max

    let heads: UnsafeMutablePointer<UInt32>
    let rest: UnsafeMutablePointer<UInt32>
    /// One bit per node: reached.
    let seen: UnsafeMutablePointer<UInt64>
    let nodeCount: Int

    /// Copies the strong out-edges of `kernel` into `heads` and `rest`.
    ///
    /// - Parameters:
    ///   - heads: Room for `2 * (nodeCount + 1)` words.
    ///   - rest: Room for `kernel.targets.count` words.
    ///   - seen: Room for `(nodeCount + 63) / 64` words; cleared here.
    init(
        _ kernel: OutEdgeKernel, heads: UnsafeMutablePointer<UInt32>,
        rest: UnsafeMutablePointer<UInt32>, seen: UnsafeMutablePointer<UInt64>
    ) {
        let nodeCount = kernel.nodeCount
        self.heads = heads
        self.rest = rest
        self.seen = seen
        self.nodeCount = nodeCount
        seen.initialize(repeating: 0, count: (nodeCount + 63) / 64)
        guard let outStart = kernel.outStart.baseAddress,
            let strongOutEnd = kernel.strongOutEnd.baseAddress,
            let targets = kernel.targets.baseAddress
        else {
            heads.initialize(repeating: Self.noTarget, count: nodeCount + 1)
            (heads + nodeCount + 1).initialize(repeating: 0, count: nodeCount + 1)
            return
        }
        let starts = heads + (nodeCount + 1)
        var cursor = 0
        var node = 0
        while node < nodeCount {
            let start = Int(outStart[node])
            let degree = Int(strongOutEnd[node]) &- start
            starts[node] = UInt32(truncatingIfNeeded: cursor)
            if degree > 0 {
                heads[node] = targets[start]
                var edge = 1
                while edge < degree {
                    rest[cursor &+ edge &- 1] = targets[start &+ edge]
                    edge &+= 1
                }
                cursor &+= degree &- 1
            } else {
                heads[node] = Self.noTarget
            }
            node &+= 1
        }
        heads[nodeCount] = Self.noTarget
        starts[nodeCount] = UInt32(truncatingIfNeeded: cursor)
    }

    /// Numbers the nodes the roots reach over strong edges in depth-first preorder, from 1 (0
    /// is the virtual root above every root), visiting the roots in order and each node's
    /// strong edges in row order.
    ///
    /// The stack holds edges, not nodes: visiting a node pushes its other strong edges and
    /// goes on to its first target at once; a popped edge whose target was reached already is
    /// not a tree edge, and is kept in `nonTree` (its holder's number, its target's node).
    /// Nothing is read back from a node once visited, so a node costs one random read, and a
    /// node without strong edges none beyond its bit.
    ///
    /// - Parameters:
    ///   - roots: The roots (numbers at or past `nodeCount` are skipped).
    ///   - vertex: Per number, on return: its node (room for `nodeCount + 1`).
    ///   - parent: Per number, on return: its parent's number (0 for the roots).
    ///   - semi: Per number, on return: its parent's number (the search's first candidate).
    ///   - stack: Room for `2 * (roots.count + kernel.targets.count)` words.
    ///   - nonTree: Room for `2 * (roots.count + kernel.targets.count)` words: pairs
    ///     `[holder's number, target node]`.
    /// - Returns: The numbers given (with the virtual root's) and the non-tree edges kept.
    func search(
        roots: UnsafeBufferPointer<UInt32>, vertex: UnsafeMutablePointer<UInt32>,
        parent: UnsafeMutablePointer<UInt32>, semi: UnsafeMutablePointer<UInt32>,
        stack: UnsafeMutablePointer<UInt32>, nonTree: UnsafeMutablePointer<UInt32>
    ) -> (count: Int, nonTree: Int) {
        let starts = heads + (nodeCount + 1)
        vertex[0] = 0
        parent[0] = 0
        semi[0] = 0
        var top = 0
        var index = roots.count
        while index > 0 {
            index -= 1
            guard Int(roots[index]) < nodeCount else { continue }
            stack[2 * top] = 0
            stack[2 * top + 1] = roots[index]
            top += 1
        }
        var reached: UInt32 = 0
        var kept = 0
        while top > 0 {
            top &-= 1
            var holder = stack[2 &* top]
            var node = Int(stack[2 &* top &+ 1])
            while true {
                let slot = node &>> 6
                let word = seen[slot]
                let bit: UInt64 = 1 &<< UInt64(node & 63)
                if word & bit != 0 {
                    nonTree[2 &* kept] = holder
                    nonTree[2 &* kept &+ 1] = UInt32(truncatingIfNeeded: node)
                    kept &+= 1
                    break
                }
                seen[slot] = word | bit
                reached &+= 1
                vertex[Int(reached)] = UInt32(truncatingIfNeeded: node)
                parent[Int(reached)] = holder
                semi[Int(reached)] = holder
                let first = heads[node]
                if first == Self.noTarget { break }
                let start = Int(starts[node])
                var edge = Int(starts[node &+ 1])
                while edge > start {
                    edge &-= 1
                    stack[2 &* top] = reached
                    stack[2 &* top &+ 1] = rest[edge]
                    top &+= 1
                }
                holder = reached
                node = Int(first)
            }
        }
        return (Int(reached) + 1, kept)
    }

    /// Whether the search reached `node`.
    @inline(__always)
    func isReached(_ node: Int) -> Bool {
        seen[node &>> 6] & (1 &<< UInt64(node & 63)) != 0
    }
}
