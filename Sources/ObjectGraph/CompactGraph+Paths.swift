extension CompactGraph {
    /// For every node a root reaches through retaining edges, the path a person should read:
    /// the project's one path finder.
    ///
    /// Made by one breadth-first search from every root at once, with priorities as data (as
    /// LeakCanary's shark prefers references that are not low priority): each root has a
    /// ``PathPriority`` (``RootKind/pathPriority``: declared roots first, then holders a census
    /// names, then references nothing names), each low-priority edge (a conservative word, or
    /// an edge its discoverer marked so) makes a path ``PathPriority/lowPriorityReference``,
    /// and a path is as weak as its weakest step. Every node is reached first by its strongest
    /// paths: a path from a run loop the program declared is preferred to one from a global
    /// the census found, which is preferred to one from unattributed references, even when it
    /// is longer; among paths of the same priority, the one with the fewest references wins.
    /// Among paths of the same priority and length, the one whose steps compare lowest by
    /// content wins (roots by description, then each reference by role description and its
    /// target's type name: see `CompactGraph+PathOrder.swift`), so the same heap read twice,
    /// with its objects at other addresses, gives the same paths.
    ///
    /// ```swift
    /// let paths = graph.paths()
    /// if let path = paths.path(to: leaked) { print(path.map { graph.label(ofEdge: $0.edge) }) }
    /// ```
    public struct PathTree: Sendable {
        /// For each node: the edge that reached it, ``unreached``, or ``rootMark``.
        let parentEdge: [EdgeID]
        /// For each node: the holder of ``parentEdge``.
        let parentNode: [NodeID]
        /// For each node: its path's priority (``PathPriority`` raw value).
        let priority: [UInt8]
        static let unreached = EdgeID.max
        static let rootMark = EdgeID.max - 1

        /// Whether some root reaches `node` through retaining edges (roots reach themselves).
        ///
        /// - Complexity: O(1).
        public func isReachable(_ node: NodeID) -> Bool {
            parentEdge[Int(node)] != Self.unreached
        }

        /// The priority of the path to `node`: no stronger path exists. Meaningless for a node
        /// no root reaches.
        ///
        /// - Complexity: O(1).
        public func priority(of node: NodeID) -> PathPriority {
            PathPriority(rawValue: priority[Int(node)]) ?? .unattributed
        }

        /// The last step of `node`'s path: its holder and the edge, or nil for a root or a node
        /// no root reaches.
        ///
        /// - Complexity: O(1).
        public func parent(of node: NodeID) -> Step? {
            let edge = parentEdge[Int(node)]
            guard edge != Self.unreached, edge != Self.rootMark else { return nil }
            return Step(from: parentNode[Int(node)], edge: edge, to: node)
        }

        /// The path from a root to `node`, root first.
        ///
        /// - Returns: `[]` when `node` is a root, `nil` when no root reaches it.
        /// - Complexity: O(length of the path).
        public func path(to node: NodeID) -> [Step]? {
            var current = Int(node)
            guard parentEdge[current] != Self.unreached else { return nil }
            var steps: [Step] = []
            while parentEdge[current] != Self.rootMark {
                let holder = parentNode[current]
                steps.append(Step(from: holder, edge: parentEdge[current], to: NodeID(current)))
                current = Int(holder)
            }
            return steps.reversed()
        }

        /// The number of references on every node's path, in one pass: `0` for a root,
        /// `UInt32.max` for a node no root reaches.
        ///
        /// To show the few nodes with the shortest paths among many (every instance of a type
        /// in a list a million long, say), ask this once instead of ``path(to:)`` for each.
        ///
        /// ```swift
        /// let lengths = graph.paths().pathLengths()
        /// let nearest = instances.min { lengths[Int($0)] < lengths[Int($1)] }
        /// ```
        ///
        /// - Complexity: O(*n*) time and 4 bytes per node.
        public func pathLengths() -> [UInt32] {
            var lengths = [UInt32](repeating: .max, count: parentEdge.count)
            var chain: [Int] = []
            for node in lengths.indices
            where lengths[node] == .max && parentEdge[node] != Self.unreached {
                // Up to a root or a node whose length is known, then back down.
                var current = node
                while lengths[current] == .max, parentEdge[current] != Self.rootMark {
                    chain.append(current)
                    current = Int(parentNode[current])
                }
                if lengths[current] == .max { lengths[current] = 0 }
                var length = lengths[current]
                while let next = chain.popLast() {
                    length += 1
                    lengths[next] = length
                }
            }
            return lengths
        }
    }

    /// The path tree (the name of earlier versions).
    @available(*, deprecated, renamed: "PathTree")
    public typealias RootPathTree = PathTree

    /// The graph's path tree (see ``PathTree``), found on the first call and shared by every
    /// copy of the graph afterwards.
    ///
    /// - Complexity: O(*n* + *e*) time (plus sorting a node's edges where it has a choice of
    ///   several) and 9 bytes per node, once per graph; O(1) afterwards.
    public func paths() -> PathTree {
        pathIndex.value { findPaths(excluding: []) }
    }

    /// A path tree that never passes through `excluded` (for example a collection of the
    /// caller's that holds objects only to ask about them).
    ///
    /// - Complexity: O(*n* + *e*) time (plus sorting a node's edges where it has a choice of
    ///   several) and 10 bytes per node, on every call.
    public func paths(excluding excluded: some Sequence<NodeID>) -> PathTree {
        findPaths(excluding: Array(excluded))
    }

    /// The graph's path tree (the name of earlier versions).
    @available(*, deprecated, renamed: "paths()")
    public func rootPaths() -> PathTree { paths() }

    /// The path from a root to `node`, root first: "who holds it" (``PathTree/path(to:)`` of
    /// ``paths()``).
    ///
    /// - Returns: `[]` when `node` is a root, `nil` when no root holds it through retaining
    ///   edges (for example, when it is reachable only through weak ones).
    /// - Complexity: O(length of the path), after the graph's one search.
    public func pathFromRoot(to node: NodeID) -> [Step]? { paths().path(to: node) }

    /// The path from a root to `node` (the name of earlier versions).
    @available(*, deprecated, renamed: "pathFromRoot(to:)")
    public func strongPathFromRoot(to node: NodeID) -> [Step]? { pathFromRoot(to: node) }

    private func findPaths(excluding excluded: [NodeID]) -> PathTree {
        let nodeCount = kinds.count
        var parentNode: [NodeID] = []
        var priority: [UInt8] = []
        let roots = rootsInContentOrder()
        let order = PathOrder(self)
        let parentEdge = [EdgeID](unsafeUninitializedCapacity: nodeCount) { edges, count in
            parentNode = [NodeID](unsafeUninitializedCapacity: nodeCount) { nodes, initialized in
                priority = [UInt8](unsafeUninitializedCapacity: nodeCount) { levels, levelCount in
                    edgeFlags.withUnsafeBufferPointer { flags in
                        edgeRoles.withUnsafeBufferPointer { edgeRoles in
                            typeNames.withUnsafeBufferPointer { typeNames in
                                order.roleRank.withUnsafeBufferPointer { roleRank in
                                    order.typeRank.withUnsafeBufferPointer { typeRank in
                                        withOutEdges { kernel in
                                            kernel.orderedBreadthFirst(
                                                roots: roots, excluded: excluded,
                                                roleRank: roleRank, typeRank: typeRank,
                                                flags: flags, edgeRoles: edgeRoles,
                                                typeNames: typeNames, parentEdge: edges,
                                                parentNode: nodes, priority: levels,
                                                unreached: PathTree.unreached,
                                                rootMark: PathTree.rootMark)
                                        }
                                    }
                                }
                            }
                        }
                    }
                    levelCount = nodeCount
                }
                initialized = nodeCount
            }
            count = nodeCount
        }
        return PathTree(parentEdge: parentEdge, parentNode: parentNode, priority: priority)
    }
}
