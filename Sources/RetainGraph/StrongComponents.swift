/// The strongly connected components of a snapshot's strong references.
///
/// A component of more than one node, or one node holding itself strongly, is a retain cycle:
/// nothing in it can be freed while the others live.
public struct StrongComponents: Sendable {
    /// For each node index of the snapshot, the index of its component.
    let componentOfNode: [Int32]
    /// For each component, whether it is a cycle.
    let isCycle: [Bool]
    /// The node indices of each component.
    let members: [[Int32]]
    let snapshot: GraphSnapshot

    /// The retain cycles: components of several nodes, or of one node holding itself strongly.
    /// Each lists its members in ascending identity order.
    public var cycles: [[ObjectID]] {
        members.indices.filter { isCycle[$0] }.map { component in
            members[component].map { snapshot.nodes[Int($0)].id }.sorted()
        }
    }

    /// The identities in the same component as `id` (including `id`), or `[]` if unknown.
    public func component(containing id: ObjectID) -> [ObjectID] {
        guard let index = snapshot.index(of: id) else { return [] }
        return members[Int(componentOfNode[index])].map { snapshot.nodes[Int($0)].id }.sorted()
    }

    /// Whether `id` sits in a retain cycle.
    public func isInCycle(_ id: ObjectID) -> Bool {
        guard let index = snapshot.index(of: id) else { return false }
        return isCycle[Int(componentOfNode[index])]
    }
}

extension GraphSnapshot {
    /// Finds the strongly connected components over strong references.
    ///
    /// Uses Tarjan's algorithm with an explicit stack instead of recursion, so there is no depth
    /// limit: a cycle of a million objects is found like a cycle of two. (A depth-bounded search,
    /// such as FBRetainCycleDetector's default of 10, misses longer cycles.)
    ///
    /// - Complexity: O(*n* + *r*) time and O(*n*) extra memory.
    public func stronglyConnectedComponents() -> StrongComponents {
        let count = nodes.count
        var order = [Int32](repeating: -1, count: count)
        var low = [Int32](repeating: 0, count: count)
        var onStack = [Bool](repeating: false, count: count)
        var component = [Int32](repeating: -1, count: count)
        var members: [[Int32]] = []
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
                    guard references[Int(next)].kind == .strong else { continue }
                    let w = Int(targetIndex[Int(next)])
                    if order[w] == -1 {
                        order[w] = counter
                        low[w] = counter
                        counter += 1
                        stack.append(Int32(w))
                        onStack[w] = true
                        frames.append((Int32(w), rowStart[w]))
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
                let id = Int32(members.count)
                var group: [Int32] = []
                while let top = stack.popLast() {
                    onStack[Int(top)] = false
                    component[Int(top)] = id
                    group.append(top)
                    if top == node { break }
                }
                members.append(group)
                isCycle.append(group.count > 1 || holdsItselfStrongly(v))
            }
        }
        return StrongComponents(
            componentOfNode: component, isCycle: isCycle, members: members, snapshot: self)
    }

    func holdsItselfStrongly(_ index: Int) -> Bool {
        for position in Int(rowStart[index])..<Int(rowStart[index + 1])
        where targetIndex[position] == Int32(index) && references[position].kind == .strong {
            return true
        }
        return false
    }
}
