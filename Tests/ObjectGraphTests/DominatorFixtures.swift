import ObjectGraph

/// Graphs for the dominator tests, and a second, independent way to compute dominators.
enum DominatorFixtures {
    /// A seedable xorshift64* generator, so every run checks the same graphs.
    struct Random {
        private var state: UInt64

        init(seed: UInt64) { state = seed | 1 }

        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Nodes `0..<sizes.count` named `N<k>` and numbered as added, the given roots, strong
    /// edges, and edges of other ownerships.
    static func graph(
        sizes: [Int], roots: [UInt32], strong: [(UInt32, UInt32)],
        other: [(UInt32, UInt32, Ownership)] = []
    ) -> CompactGraph {
        var builder = CompactGraph.Builder()
        for (node, size) in sizes.enumerated() {
            builder.addNode(kind: .object, typeName: "N\(node)", size: size)
        }
        for root in roots { builder.addRoot(root, name: "root \(root)") }
        let edges = strong.map { ($0.0, $0.1, Ownership.strong) } + other
        for (from, to, ownership) in edges {
            builder.addEdge(from: from, to: to, ownership: ownership, role: .declared("e"))
        }
        return builder.build(numberingForLocality: false)
    }

    /// Immediate dominators by Cooper, Harvey and Kennedy's iterative algorithm ("A Simple,
    /// Fast Dominance Algorithm", 2001), over retaining edges from a virtual root above every
    /// root: an algorithm unrelated to the kernel's, fast enough for graphs of thousands of
    /// nodes.
    ///
    /// - Returns: Per node, its immediate dominator (`nodeCount` for the virtual root, `nil`
    ///   when unreachable), and its retained count and bytes summed over that tree.
    static func iterativeDominators(
        _ graph: CompactGraph
    ) -> (idom: [Int?], counts: [Int], bytes: [UInt64]) {
        let count = graph.nodeCount
        let top = count  // the virtual root
        var successors = [[Int]](repeating: [], count: count + 1)
        var predecessors = [[Int]](repeating: [], count: count + 1)
        for (root, _) in graph.roots { successors[top].append(Int(root)) }
        for node in 0..<count {
            for edge in graph.strongOutEdges(of: UInt32(node)) {
                successors[node].append(Int(graph.target(of: UInt32(edge))))
            }
        }
        for node in 0...count { for next in successors[node] { predecessors[next].append(node) } }
        // Reverse postorder from the virtual root.
        var postorder: [Int] = []
        var visited = [Bool](repeating: false, count: count + 1)
        var stack: [(node: Int, next: Int)] = [(top, 0)]
        visited[top] = true
        while let (node, next) = stack.last {
            if next < successors[node].count {
                stack[stack.count - 1].next += 1
                let child = successors[node][next]
                if !visited[child] {
                    visited[child] = true
                    stack.append((child, 0))
                }
            } else {
                postorder.append(node)
                stack.removeLast()
            }
        }
        var rank = [Int](repeating: -1, count: count + 1)
        for (position, node) in postorder.enumerated() { rank[node] = position }
        var dominator = [Int?](repeating: nil, count: count + 1)
        dominator[top] = top
        var changed = true
        while changed {
            changed = false
            for node in postorder.reversed() where node != top {
                var candidate: Int?
                for holder in predecessors[node] where dominator[holder] != nil {
                    guard var other = candidate else {
                        candidate = holder
                        continue
                    }
                    var finger = holder
                    while finger != other {
                        while rank[finger] < rank[other] { finger = dominator[finger] ?? top }
                        while rank[other] < rank[finger] { other = dominator[other] ?? top }
                    }
                    candidate = finger
                }
                if candidate != dominator[node] {
                    dominator[node] = candidate
                    changed = true
                }
            }
        }
        // A node's dominator comes before it in reverse postorder: sum in postorder.
        var counts = [Int](repeating: 0, count: count + 1)
        var bytes = [UInt64](repeating: 0, count: count + 1)
        for node in postorder {
            if node != top {
                counts[node] += 1
                bytes[node] += UInt64(graph.size(of: UInt32(node)))
            }
            guard node != top, let up = dominator[node] else { continue }
            counts[up] += counts[node]
            bytes[up] += bytes[node]
        }
        return (
            Array(dominator.prefix(count)), Array(counts.prefix(count)), Array(bytes.prefix(count))
        )
    }
}
