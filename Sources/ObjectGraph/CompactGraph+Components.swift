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
        var componentCount = 0
        // Pearce's closing numbers, turned in place into components numbered from 0.
        let componentOfNode = [UInt32](unsafeUninitializedCapacity: nodeCount) {
            buffer, initialized in
            componentCount = withOutEdges { $0.pearceComponents(into: buffer) }
            let last = UInt32(truncatingIfNeeded: nodeCount - 1)
            for node in 0..<nodeCount { buffer[node] = last &- buffer[node] }
            initialized = nodeCount
        }
        return groupComponents(componentOfNode, componentCount: componentCount)
    }

    /// Groups the members of each component and flags the cycles.
    private func groupComponents(_ componentOfNode: [UInt32], componentCount: Int) -> Components {
        let nodeCount = componentOfNode.count
        var memberStart = [UInt32](repeating: 0, count: componentCount + 1)
        for node in 0..<nodeCount { memberStart[Int(componentOfNode[node]) + 1] &+= 1 }
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
        }
        // A single node holding itself strongly is a cycle too.
        for node in 0..<nodeCount where !cycleFlags[Int(componentOfNode[node])] {
            for edge in Int(outStart[node])..<Int(strongOutEnd[node])
            where targets[edge] == NodeID(node) {
                cycleFlags[Int(componentOfNode[node])] = true
            }
        }
        return Components(
            componentOfNode: componentOfNode, memberStart: memberStart, memberNodes: memberNodes,
            cycleFlags: cycleFlags)
    }
}
