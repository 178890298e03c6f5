extension CompactGraph {
    /// The strongly connected components of a compact graph's strong edges.
    ///
    /// A component of more than one node, or of one node holding itself strongly, is a retain
    /// cycle: nothing in it can be freed while the others live. Components are numbered in the
    /// order the search completes them: a component's strong edges lead only to components of
    /// smaller numbers or to itself.
    ///
    /// ```swift
    /// let components = graph.strongComponents()
    /// for component in 0..<components.count where components.isCycle(component) {
    ///     print(components.members(of: component).map(graph.typeName(of:)))
    /// }
    /// ```
    public struct Components: Sendable {
        /// For each node, its component.
        let componentOfNode: [UInt32]
        /// For each component, where its members start in ``memberNodes``; one extra end entry.
        let memberStart: [UInt32]
        /// The members of every component, component after component.
        let memberNodes: [NodeID]
        /// For each component, whether it is a cycle.
        let cycleFlags: [Bool]

        /// The number of components, cycles or not.
        public var count: Int { cycleFlags.count }

        /// The component of `node`.
        ///
        /// - Complexity: O(1).
        public func component(of node: NodeID) -> Int { Int(componentOfNode[Int(node)]) }

        /// Whether `component` is a retain cycle.
        ///
        /// - Complexity: O(1).
        public func isCycle(_ component: Int) -> Bool { cycleFlags[component] }

        /// Whether `node` sits in a retain cycle.
        ///
        /// - Complexity: O(1).
        public func isInCycle(_ node: NodeID) -> Bool {
            cycleFlags[Int(componentOfNode[Int(node)])]
        }

        /// The members of `component`, ascending.
        ///
        /// - Complexity: O(1) (a slice of a flat array).
        public func members(of component: Int) -> ArraySlice<NodeID> {
            memberNodes[Int(memberStart[component])..<Int(memberStart[component + 1])]
        }

        /// The components that are retain cycles.
        ///
        /// - Complexity: O(number of components).
        public var cycles: [Int] { cycleFlags.indices.filter { cycleFlags[$0] } }
    }

    /// Finds the strongly connected components over strong edges.
    ///
    /// Uses Pearce's variant of Tarjan's algorithm ("A space-efficient algorithm for finding
    /// strongly connected components", 2016), iteratively: one number per node serves as the
    /// visit index while a node is open and as its component once it is closed, so there is no
    /// separate low-link or on-stack array; the explicit stack has no depth limit, so a cycle
    /// of a million nodes is found like a cycle of two. Strong edges come first in each node's
    /// row, so weak and unowned edges are never read.
    ///
    /// - Returns: The components, numbered in completion order.
    /// - Complexity: O(*n* + *e*) time; 4 bytes per node plus the two stacks.
    public func strongComponents() -> Components {
        let nodeCount = kinds.count
        guard nodeCount > 0 else {
            return Components(
                componentOfNode: [], memberStart: [0], memberNodes: [], cycleFlags: [])
        }
        // rindex: 0 = unvisited; while open, a visit index (1, 2, ...); once closed, a component
        // number counted down from nodeCount - 1, always above every open node's index.
        var rindex = [UInt32](repeating: 0, count: nodeCount)
        var index: UInt32 = 1
        var component = UInt32(nodeCount - 1)
        var waiting: [NodeID] = []  // visited, not yet assigned, not roots of their component
        var frames: [(node: NodeID, edge: UInt32, isRoot: Bool)] = []

        for start in 0..<nodeCount where rindex[start] == 0 {
            rindex[start] = index
            index &+= 1
            frames.append((NodeID(start), outStart[start], true))
            while let frame = frames.last {
                let node = Int(frame.node)
                var edge = frame.edge
                var isRoot = frame.isRoot
                let end = strongOutEnd[node]
                var descended = false
                while edge < end {
                    let next = Int(targets[Int(edge)])
                    if rindex[next] == 0 {
                        frames[frames.count - 1] = (frame.node, edge, isRoot)
                        rindex[next] = index
                        index &+= 1
                        frames.append((NodeID(next), outStart[next], true))
                        descended = true
                        break
                    }
                    if rindex[next] < rindex[node] {
                        rindex[node] = rindex[next]
                        isRoot = false
                    }
                    edge &+= 1
                }
                if descended { continue }
                frames.removeLast()
                if isRoot {
                    index &-= 1
                    while let top = waiting.last, rindex[node] <= rindex[Int(top)] {
                        waiting.removeLast()
                        rindex[Int(top)] = component
                        index &-= 1
                    }
                    rindex[node] = component
                    component &-= 1
                } else {
                    waiting.append(NodeID(node))
                }
                // Back in the parent: finish the edge that led here, then move past it.
                if let parent = frames.last {
                    var (parentNode, parentEdge, parentIsRoot) = parent
                    if rindex[node] < rindex[Int(parentNode)] {
                        rindex[Int(parentNode)] = rindex[node]
                        parentIsRoot = false
                    }
                    parentEdge &+= 1
                    frames[frames.count - 1] = (parentNode, parentEdge, parentIsRoot)
                }
            }
        }
        // `component` wrapped below zero once the last node was assigned: count in UInt32.
        return groupComponents(
            rindex: rindex, componentCount: Int(UInt32(nodeCount - 1) &- component))
    }

    /// Turns Pearce's closing numbers into components numbered from 0, with members grouped.
    private func groupComponents(rindex: [UInt32], componentCount: Int) -> Components {
        let nodeCount = rindex.count
        var componentOfNode = rindex
        var memberStart = [UInt32](repeating: 0, count: componentCount + 1)
        for node in 0..<nodeCount {
            let number = UInt32(nodeCount - 1) &- rindex[node]
            componentOfNode[node] = number
            memberStart[Int(number) + 1] &+= 1
        }
        var cycleFlags = [Bool](repeating: false, count: componentCount)
        for component in 0..<componentCount {
            cycleFlags[component] = memberStart[component + 1] > 1
            memberStart[component + 1] &+= memberStart[component]
        }
        var cursor = memberStart
        var memberNodes = [NodeID](repeating: 0, count: nodeCount)
        for node in 0..<nodeCount {
            let number = Int(componentOfNode[node])
            memberNodes[Int(cursor[number])] = NodeID(node)
            cursor[number] &+= 1
            // A single node holding itself strongly is a cycle too.
            if !cycleFlags[number],
                strongOutEdges(of: NodeID(node)).contains(where: {
                    targets[$0] == NodeID(node)
                })
            {
                cycleFlags[number] = true
            }
        }
        return Components(
            componentOfNode: componentOfNode, memberStart: memberStart, memberNodes: memberNodes,
            cycleFlags: cycleFlags)
    }
}
