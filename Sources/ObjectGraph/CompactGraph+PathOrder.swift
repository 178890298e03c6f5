// The path finder's order among equal paths: by content, never by node number or address.
//
// Why: a heap reader numbers nodes by address (or allocation order), and a holder's edges come
// in the order its words were read. A breadth-first search that takes "the first path met"
// among paths of the same priority and length then prints different holders for the same
// program from run to run (issue 31). Here the roots are taken in the order of their
// descriptions and a node's edges in the order of (priority, role description, target type
// name), so the first path met is the one whose steps compare lowest by content. The cost: a
// role's rank per claimable edge, a sort where a node's choices are out of order, and the
// targets' type names where they tie. Measured at 1M objects (CensusScale, quiet machine, Nov
// 27): the first retentionPath(to:) about 5 ms slower than with the first-met order (median
// 42 against 36 ms); sorting each row once when the graph is built would make it free here.

/// The content ranks the path finder orders its choices by (see ``CompactGraph/PathTree``).
struct PathOrder {
    /// Per interned role number: its rank among the roles' descriptions.
    let roleRank: [UInt32]
    /// Per interned string number: its rank among the type names (0 for other strings).
    let typeRank: [UInt32]

    /// The ranks of `graph`'s roles and type names.
    ///
    /// - Complexity: O(*r* log *r* + *s* log *s*) for *r* roles and *s* strings; when the
    ///   table holds many more strings than type names (labels), one pass over the nodes
    ///   first, to rank only the type names.
    init(_ graph: CompactGraph) {
        roleRank = Self.ranks(
            of: (0..<graph.roles.count).map { graph.roles[UInt32($0)].description })
        let count = graph.strings.count
        var used = [Bool](repeating: count <= 4_096, count: count)
        if count > 4_096 {
            for number in graph.typeNames { used[Int(number)] = true }
        }
        let typeNames = (0..<count).map { used[$0] ? graph.strings[UInt32($0)] : "" }
        typeRank = Self.ranks(of: typeNames)
    }

    /// Each string's position in ascending order (equal strings share a rank).
    private static func ranks(of strings: [String]) -> [UInt32] {
        let order = strings.indices.sorted { strings[$0] < strings[$1] }
        var ranks = [UInt32](repeating: 0, count: strings.count)
        var rank: UInt32 = 0
        for (position, index) in order.enumerated() {
            if position > 0, strings[order[position - 1]] != strings[index] { rank += 1 }
            ranks[index] = rank
        }
        return ranks
    }
}

extension CompactGraph {
    /// The roots with their path priorities, in the order the path finder takes them: by
    /// priority, then those that say what holds before the references nothing names (a thread's
    /// stack before "held from outside the Swift heap"), then by description, type name and
    /// label (by number only where all are equal).
    func rootsInContentOrder() -> [(node: UInt32, priority: UInt8)] {
        let keyed = zip(rootNodes, rootKinds).map { node, kind in
            (
                node: node, priority: kind.pathPriority.rawValue, anonymous: !kind.namesItsHolder,
                description: kind.description, typeName: typeName(of: node),
                label: label(of: node) ?? ""
            )
        }
        return keyed.sorted {
            if $0.priority != $1.priority { return $0.priority < $1.priority }
            if $0.anonymous != $1.anonymous { return !$0.anonymous }
            if $0.description != $1.description { return $0.description < $1.description }
            if $0.typeName != $1.typeName { return $0.typeName < $1.typeName }
            if $0.label != $1.label { return $0.label < $1.label }
            return $0.node < $1.node
        }.map { ($0.node, $0.priority) }
    }
}

extension OutEdgeKernel {
    /// One breadth-first search over retaining edges from `roots` (each with its priority, in
    /// the order to take them), in tiers (see ``CompactGraph/PathTree``): every node is reached
    /// first by the paths of its strongest priority, a path being as weak as its weakest step
    /// (its root's priority, and ``PathPriority/lowPriorityReference`` for a low-priority edge,
    /// ``PathPriority/taskMemory`` for a last-resort one). A node's edges are followed in the
    /// order of (resulting priority, role rank, target's type rank, position), so among paths
    /// of equal priority and length the first met is the lowest by content. For each node it
    /// records the edge and holder that reached it (`unreached` where none did, `rootMark` for
    /// roots) and its path's priority. Nodes in `excluded` are never entered.
    func orderedBreadthFirst(
        roots: [(node: UInt32, priority: UInt8)], excluded: [UInt32],
        roleRank: UnsafeBufferPointer<UInt32>, typeRank: UnsafeBufferPointer<UInt32>,
        flags: UnsafeBufferPointer<UInt8>, edgeRoles: UnsafeBufferPointer<UInt32>,
        typeNames: UnsafeBufferPointer<UInt32>, parentEdge: UnsafeMutableBufferPointer<UInt32>,
        parentNode: UnsafeMutableBufferPointer<UInt32>, priority: UnsafeMutableBufferPointer<UInt8>,
        unreached: UInt32, rootMark: UInt32
    ) {
        let tiers = PathPriority.allCases.count
        let edgeTier = PathPriority.lowPriorityReference.rawValue
        let lastTier = PathPriority.taskMemory.rawValue
        parentEdge.initialize(repeating: unreached)
        parentNode.initialize(repeating: 0)
        priority.initialize(repeating: UInt8(tiers))
        // 0: not expanded; 1: expanded (its edges were followed); 2: excluded.
        let state = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: nodeCount)
        state.initialize(repeating: 0)
        // One queue per tier. A node is queued again in a stronger tier when a stronger path
        // reaches it; it is expanded once, from the strongest tier that reached it (every
        // stronger tier's queue is empty before a weaker one is read, and expanding a node
        // queues nothing stronger than its own tier).
        let queues = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: tiers * nodeCount)
        // Each tier's queue head and tail, in a buffer: an array captured by `push` would be
        // checked for uniqueness on every write.
        let heads = UnsafeMutableBufferPointer<Int>.allocate(capacity: tiers)
        let tails = UnsafeMutableBufferPointer<Int>.allocate(capacity: tiers)
        heads.initialize(repeating: 0)
        tails.initialize(repeating: 0)
        // A node's claimable edges when it has more than one: (key, edge), sorted.
        var choices = UnsafeMutableBufferPointer<(key: UInt64, edge: UInt32)>.allocate(capacity: 64)
        defer {
            state.deallocate()
            queues.deallocate()
            heads.deallocate()
            tails.deallocate()
            choices.deallocate()
        }
        func push(_ node: UInt32, tier: Int) {
            queues[tier * nodeCount + tails[tier]] = node
            tails[tier] += 1
        }
        func claim(_ next: Int, edge: Int, from node: Int, level: UInt8) {
            parentEdge[next] = UInt32(truncatingIfNeeded: edge)
            parentNode[next] = UInt32(truncatingIfNeeded: node)
            priority[next] = level
            push(UInt32(truncatingIfNeeded: next), tier: Int(level))
        }
        for node in excluded where Int(node) < nodeCount { state[Int(node)] = 2 }
        for (root, level) in roots
        where state[Int(root)] == 0 && Int(level) < tiers && level < priority[Int(root)] {
            parentEdge[Int(root)] = rootMark
            priority[Int(root)] = level
            push(root, tier: Int(level))
        }
        var tier = 0
        while tier < tiers {
            guard heads[tier] < tails[tier] else {
                tier += 1
                continue
            }
            let node = Int(queues[tier * nodeCount + heads[tier]])
            heads[tier] += 1
            guard state[node] == 0, Int(priority[node]) == tier else { continue }
            state[node] = 1
            let start = Int(outStart[node])
            let end = Int(strongOutEnd[node])
            if end - start > choices.count {
                choices.deallocate()
                choices = .allocate(capacity: max(end - start, 2 * choices.count))
            }
            // Each claimable edge with its key, (priority, role rank), in one pass that also
            // says whether the keys come in order and whether two tie: the targets' type names
            // (a read in another array) join the key only where keys tie. A row of fields
            // (distinct roles) is sorted, its types never read; a collection's elements (one
            // role) are read once more, for their types.
            var count = 0
            var ordered = true
            var tied = false
            var previous: UInt64 = 0
            for edge in start..<end {
                let next = Int(targets[edge])
                guard state[next] == 0 else { continue }
                var level = UInt8(tier)
                if CompactGraph.isLowPriority(flags[edge]) { level = max(level, edgeTier) }
                if CompactGraph.isLastResort(flags[edge]) { level = max(level, lastTier) }
                guard level < priority[next] else { continue }
                let role = min(roleRank[Int(edgeRoles[edge])], 0xFF_FFFF)
                let key = UInt64(level) << 56 | UInt64(role) << 32
                if count > 0, key <= previous {
                    if key < previous { ordered = false } else { tied = true }
                }
                previous = key
                choices[count] = (key, UInt32(truncatingIfNeeded: edge))
                count += 1
            }
            guard count > 1 else {
                if count == 1 {
                    let edge = Int(choices[0].edge)
                    claim(
                        Int(targets[edge]), edge: edge, from: node,
                        level: UInt8(truncatingIfNeeded: choices[0].key >> 56))
                }
                continue
            }
            if !ordered {
                Self.sortChoices(UnsafeMutableBufferPointer(rebasing: choices[0..<count]))
                tied = false
                var index = 1
                while index < count, !tied {
                    tied = choices[index].key == choices[index - 1].key
                    index += 1
                }
            }
            var first = 0
            while tied, first < count {
                let key = choices[first].key
                var last = first + 1
                while last < count, choices[last].key == key { last += 1 }
                if last - first > 1 {
                    var runOrdered = true
                    var previousType: UInt64 = 0
                    for index in first..<last {
                        let target = Int(targets[Int(choices[index].edge)])
                        let type = UInt64(typeRank[Int(typeNames[target])])
                        choices[index].key = key | type
                        if index > first, type < previousType { runOrdered = false }
                        previousType = type
                    }
                    if !runOrdered {
                        Self.sortChoices(
                            UnsafeMutableBufferPointer(rebasing: choices[first..<last]))
                    }
                }
                first = last
            }
            for index in 0..<count {
                let edge = Int(choices[index].edge)
                let next = Int(targets[edge])
                let level = UInt8(truncatingIfNeeded: choices[index].key >> 56)
                // An earlier choice may have claimed the same target.
                guard level < priority[next] else { continue }
                claim(next, edge: edge, from: node, level: level)
            }
        }
    }

    /// Sorts a node's choices by key, then by position: insertion sort for a few, the
    /// standard sort otherwise.
    private static func sortChoices(
        _ choices: UnsafeMutableBufferPointer<(key: UInt64, edge: UInt32)>
    ) {
        func less(_ a: (key: UInt64, edge: UInt32), _ b: (key: UInt64, edge: UInt32)) -> Bool {
            a.key != b.key ? a.key < b.key : a.edge < b.edge
        }
        guard choices.count <= 16 else {
            var all = choices
            all.sort(by: less)
            return
        }
        for index in 1..<choices.count {
            let value = choices[index]
            var position = index
            while position > 0, less(value, choices[position - 1]) {
                choices[position] = choices[position - 1]
                position -= 1
            }
            choices[position] = value
        }
    }
}
