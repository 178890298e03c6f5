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
    /// For each node index of the snapshot, the index of its component.
    let componentOfNode: [Int32]
    /// For each component, whether it is a cycle.
    let isCycle: [Bool]
    /// The node indices of all components, component after component.
    let memberNodes: [Int32]
    /// For each component, where its members start in ``memberNodes``; one extra end entry.
    let memberStart: [Int32]
    let snapshot: GraphSnapshot

    /// The number of components, cycles or not.
    public var count: Int { isCycle.count }

    /// The retain cycles: components of several nodes, or of one node holding itself strongly.
    /// Each lists its members in ascending identity order.
    ///
    /// - Complexity: O(*c* log *c*) for *c* nodes in cycles.
    public var cycles: [[ObjectID]] {
        isCycle.indices.filter { isCycle[$0] }.map(identities(of:))
    }

    /// The identities in the same component as `id` (including `id`), or `[]` if unknown.
    ///
    /// - Complexity: O(*k* log *k*) for a component of *k* nodes.
    public func component(containing id: ObjectID) -> [ObjectID] {
        guard let index = snapshot.index(of: id) else { return [] }
        return identities(of: Int(componentOfNode[index]))
    }

    /// Whether `id` sits in a retain cycle.
    ///
    /// - Complexity: O(1) for dense identities, O(log *n*) otherwise.
    public func isInCycle(_ id: ObjectID) -> Bool {
        guard let index = snapshot.index(of: id) else { return false }
        return isCycle[Int(componentOfNode[index])]
    }

    private func identities(of component: Int) -> [ObjectID] {
        memberNodes[Int(memberStart[component])..<Int(memberStart[component + 1])]
            .map { snapshot.nodes[Int($0)].id }.sorted()
    }
}

extension GraphSnapshot {
    /// Finds the strongly connected components over strong references.
    ///
    /// Uses Tarjan's algorithm with an explicit stack instead of recursion, so there is no depth
    /// limit: a cycle of a million objects is found like a cycle of two. (A depth-bounded search,
    /// such as FBRetainCycleDetector's default of 10, misses longer cycles.) Components are
    /// stored flat, so a graph of a million singleton components makes no per-component
    /// allocation.
    ///
    /// - Complexity: O(*n* + *r*) time and O(*n*) extra memory.
    public func stronglyConnectedComponents() -> StrongComponents {
        let count = nodes.count
        var order = [Int32](repeating: -1, count: count)
        var low = [Int32](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var component = [Int32](repeating: -1, count: count)
        var memberNodes: [Int32] = []
        memberNodes.reserveCapacity(count)
        var memberStart: [Int32] = [0]
        var isCycle: [Bool] = []
        var stack: [Int32] = []
        var frames: [(node: Int32, next: Int32)] = []
        var counter: Int32 = 0

        for start in 0..<count where order[start] == -1 {
            order[start] = counter
            low[start] = counter
            counter += 1
            stack.append(Int32(start))
            onStack[start] = true
            frames.append((Int32(start), rowStart[start]))

            while let (node, next) = frames.last {
                let v = Int(node)
                if next < rowStart[v + 1] {
                    frames[frames.count - 1].next = next + 1
                    let target = strongTarget[Int(next)]
                    guard target >= 0 else { continue }
                    let w = Int(target)
                    if order[w] == -1 {
                        order[w] = counter
                        low[w] = counter
                        counter += 1
                        stack.append(target)
                        onStack[w] = true
                        frames.append((target, rowStart[w]))
                    } else if onStack[w] {
                        low[v] = min(low[v], order[w])
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last {
                    low[Int(parent.node)] = min(low[Int(parent.node)], low[v])
                }
                guard low[v] == order[v] else { continue }
                let id = Int32(isCycle.count)
                let first = memberNodes.count
                while let top = stack.popLast() {
                    onStack[Int(top)] = false
                    component[Int(top)] = id
                    memberNodes.append(top)
                    if top == node { break }
                }
                memberStart.append(Int32(memberNodes.count))
                isCycle.append(memberNodes.count - first > 1 || holdsItselfStrongly(v))
            }
        }
        return StrongComponents(
            componentOfNode: component, isCycle: isCycle, memberNodes: memberNodes,
            memberStart: memberStart, snapshot: self)
    }

    func holdsItselfStrongly(_ index: Int) -> Bool {
        for position in Int(rowStart[index])..<Int(rowStart[index + 1])
        where strongTarget[position] == Int32(index) {
            return true
        }
        return false
    }
}
