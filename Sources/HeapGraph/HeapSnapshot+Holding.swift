import ObjectGraph
import RetainGraphUtilities

/// Objects held the same way: one shape of retention path (the same holder, the same roles
/// through the same types), or one shape of unreachable cycle they sit in or hang from.
///
/// "Who holds it" over many objects is a question about groups: a hundred watchers of which
/// three leak are one group of ninety-seven held by the registry and one of three in unreachable
/// cycles, and the small group is the one to read. Shapes never hold addresses; a run of the same
/// step (`.next ⇒ Node` repeated down a list) counts as one, so a list's nodes are one group.
public struct HoldingGroup: Sendable {
    /// How the group's objects are held.
    public enum Holding: Sendable {
        /// A holder outside the heap reaches them, along this path to ``example``.
        case path(RetentionPath)
        /// No holder reaches them: they sit in (or hang from, through `then`) a strong cycle of
        /// objects nothing holds: a leak no root explains.
        case unreachableCycle(cycle: [HeapReference], then: [HeapReference])
        /// Nothing found holds them strongly: only weak references, or they were dying.
        case unheld
    }

    /// The group's objects, in address order.
    public let objects: [HeapObjectID]
    /// How they are held, shown for ``example``.
    public let holding: Holding
    /// The object the path or cycle is shown for: of those held along a path, the one
    /// nearest its holder (the shortest path: a list's first node, not its millionth), the
    /// lowest address among equals; else the first.
    public let example: HeapObjectID
    /// The number of objects.
    public var count: Int { objects.count }

    /// What holds the group, on one line: `held by global variable App.registry`, `in
    /// unreachable cycles (.onDisconnect captures PooledLease)`.
    public func summary(in heap: HeapSnapshot) -> String {
        switch holding {
        case .path(let path):
            // A task its reader named (`a Task suspended in poll() at Poller.swift:42, …`).
            if path.holder == .task, let task = path.objects.first,
                let place = heap.graph.label(of: CompactGraph.NodeID(task.id.rawValue))
            {
                return "held by \(place)"
            }
            let holder = path.holder.description
            // `held from outside the Swift heap (…)` says "held" itself.
            return holder.hasPrefix("held ") ? holder : "held by \(holder)"
        case .unreachableCycle(let cycle, _):
            let steps = cycle.map {
                "\($0.label) ⇒ \(TypeNames.withoutModule(heap[$0.to].typeName))"
            }
            return "in unreachable cycles (\(steps.joined(separator: ", ")))"
        case .unheld:
            return "held by nothing found (only weak references, or dying)"
        }
    }

    /// The group as a person reads it: its count and summary, then the path (or the cycle) of
    /// its example object.
    public func lines(in heap: HeapSnapshot) -> [String] {
        let object = heap[example]
        let address = "0x" + String(object.address, radix: 16)
        var lines = ["\(count) \(summary(in: heap)); e.g. \(object.typeName) at \(address)"]
        switch holding {
        case .path(let path):
            lines += path.lines().dropFirst().map { "  " + $0 }
        case .unreachableCycle(let cycle, let then):
            for (index, reference) in cycle.enumerated() {
                let holder = heap[reference.from].typeName
                lines.append("  \(index == 0 ? "┌─" : "│ ") \(holder) ⇒ \(reference.label)")
            }
            lines.append("  └→ back to \(heap[cycle.first?.from ?? example].typeName)")
            for reference in then {
                lines.append("     then \(reference.label) ⇒ \(heap[reference.to].typeName)")
            }
        case .unheld:
            break
        }
        return lines
    }
}

extension HeapSnapshot {
    /// `objects` grouped by how they are held, the largest group first (then the strongest
    /// path): see ``HoldingGroup``.
    ///
    /// - Complexity: O(*n* + *r*) once per snapshot for the path tree (and the strong
    ///   components when an object is unreachable), then about O(1) per object: each node's
    ///   path shape is found once, from its holder's.
    public func holdingGroups(of objects: [HeapObjectID]) -> [HoldingGroup] {
        let tree = graph.paths()
        var shapes = PathShapes(graph: graph)
        var components: CompactGraph.Components?
        // Group numbers by key: reachable objects by their path's shape number alone (most
        // objects, one dictionary probe of a number each); unreachable ones by their cycle's
        // key. Keys are kept in the order first met.
        var groupOfShape: [UInt32: Int] = [:]
        var groupOfCycleKey: [[UInt32]: Int] = [:]
        var keys: [[UInt32]] = []
        var members: [[HeapObjectID]] = []
        for object in objects where contains(object) {
            let node = CompactGraph.NodeID(object.rawValue)
            let group: Int
            if tree.isReachable(node) {
                let shape = shapes.shape(of: node, in: tree)
                if let known = groupOfShape[shape] {
                    group = known
                } else {
                    group = keys.count
                    groupOfShape[shape] = group
                    keys.append([0, shape])
                    members.append([])
                }
            } else {
                if components == nil { components = graph.strongComponents() }
                let key = unreachableKey(of: node, components: components!)
                if let known = groupOfCycleKey[key] {
                    group = known
                } else {
                    group = keys.count
                    groupOfCycleKey[key] = group
                    keys.append(key)
                    members.append([])
                }
            }
            members[group].append(object)
        }
        var groups: [HoldingGroup] = []
        for (key, objects) in zip(keys, members) {
            let inOrder = inAddressOrder(objects)
            guard var example = inOrder.first else { continue }
            if key.first == 0 {
                // The shallowest: the first of the least depth, in address order.
                var least = shapes.depth(of: CompactGraph.NodeID(example.rawValue))
                for object in inOrder.dropFirst() where least > 0 {
                    let depth = shapes.depth(of: CompactGraph.NodeID(object.rawValue))
                    if depth < least { (example, least) = (object, depth) }
                }
            }
            let holding: HoldingGroup.Holding
            if key.first == 0, let path = retentionPath(to: example, in: tree) {
                holding = .path(path)
            } else if key.first == 1, let components,
                let (cycle, then) = cycleHolding(
                    CompactGraph.NodeID(example.rawValue), components: components)
            {
                holding = .unreachableCycle(cycle: cycle, then: then)
            } else {
                holding = .unheld
            }
            groups.append(HoldingGroup(objects: inOrder, holding: holding, example: example))
        }
        return groups.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.example < $1.example
        }
    }

    /// `objects` sorted by address; as given when they already are (``objects(ofType:)`` gives
    /// them so), after one pass that checks.
    private func inAddressOrder(_ objects: [HeapObjectID]) -> [HeapObjectID] {
        let addresses = graph.addresses
        guard addresses.count >= objectCount else {
            return objects.sorted { self[$0].address < self[$1].address }
        }
        func address(_ object: HeapObjectID) -> UInt { addresses[Int(object.rawValue)] }
        var sorted = true
        var index = 1
        while sorted, index < objects.count {
            sorted = address(objects[index - 1]) <= address(objects[index])
            index += 1
        }
        return sorted ? objects : objects.sorted { address($0) < address($1) }
    }

    /// An unreachable object's group key: the shape of the strong cycle it sits in or hangs
    /// from (its members' types), and the steps from the cycle to it; `[2]` for none.
    private func unreachableKey(of node: CompactGraph.NodeID, components: CompactGraph.Components)
        -> [UInt32]
    {
        guard let (cycleNode, steps) = nearestCycle(above: node, components: components) else {
            return [2]
        }
        let component = components.component(of: cycleNode)
        let types = components.members(of: component).map { graph.typeNameNumber(of: $0) }.sorted()
        return [1, UInt32(types.count)] + types
            + steps.flatMap {
                [graph.roleNumber(ofEdge: $0.edge), graph.typeNameNumber(of: $0.to)]
            }
    }

    /// The nearest node on a strong cycle that holds `node` through strong references (`node`
    /// itself when it is on one), and the steps from it down to `node`; nil within 32 steps.
    private func nearestCycle(above node: CompactGraph.NodeID, components: CompactGraph.Components)
        -> (CompactGraph.NodeID, [CompactGraph.Step])?
    {
        var current = node
        var steps: [CompactGraph.Step] = []
        var seen: Set<CompactGraph.NodeID> = [node]
        for _ in 0..<32 {
            if components.isCycle(components.component(of: current)) {
                return (current, steps.reversed())
            }
            guard
                let holder = graph.incoming(to: current).first(where: {
                    graph.ownership(ofEdge: $0.edge).retainsTarget && isObject($0.from)
                }), seen.insert(holder.from).inserted
            else { return nil }
            steps.append(holder)
            current = holder.from
        }
        return nil
    }

    private func cycleHolding(_ node: CompactGraph.NodeID, components: CompactGraph.Components)
        -> ([HeapReference], [HeapReference])?
    {
        guard let (cycleNode, steps) = nearestCycle(above: node, components: components),
            let cycle = graph.cycle(through: cycleNode, components: components)
        else { return nil }
        return (cycle.map(reference), steps.map(reference))
    }
}

/// Each node's path shape, found once from its holder's: a shape is its holder's shape plus one
/// step (the role and the target's type), except that a step equal to the holder's last one
/// keeps the holder's shape (a list's nodes all share one).
struct PathShapes {
    let graph: CompactGraph
    /// Per node: its shape, or -1 until found.
    private var shapeOfNode: [Int32]
    /// Shape number by (parent shape, step role, step type); each shape's last step.
    private var numbers: [[UInt32]: UInt32] = [:]
    private var lastStep: [(role: UInt32, type: UInt32)] = []

    /// Per node whose shape is known: the number of steps of its path.
    private var depthOfNode: [Int32]

    init(graph: CompactGraph) {
        self.graph = graph
        shapeOfNode = [Int32](repeating: -1, count: graph.nodeCount)
        depthOfNode = [Int32](repeating: 0, count: graph.nodeCount)
    }

    /// The number of steps of `node`'s path, once ``shape(of:in:)`` has found its shape.
    func depth(of node: CompactGraph.NodeID) -> Int32 { depthOfNode[Int(node)] }

    /// The shape of `node`'s path in `tree` (a node the tree reaches).
    mutating func shape(of node: CompactGraph.NodeID, in tree: CompactGraph.PathTree) -> UInt32 {
        // Up to a node whose shape is known (or a root), then down, without recursion.
        var chain: [CompactGraph.Step] = []
        var current = node
        while shapeOfNode[Int(current)] < 0, let step = tree.parent(of: current) {
            chain.append(step)
            current = step.from
        }
        var shape: UInt32
        var depth = depthOfNode[Int(current)]
        if shapeOfNode[Int(current)] >= 0 {
            shape = UInt32(shapeOfNode[Int(current)])
        } else {
            // A root: its own shape, keyed by the root node itself.
            shape = intern([UInt32.max, current], role: .max, type: .max)
            shapeOfNode[Int(current)] = Int32(shape)
        }
        while let step = chain.popLast() {
            let role = graph.roleNumber(ofEdge: step.edge)
            let type = graph.typeNameNumber(of: step.to)
            // A task's label (where it waits, when its reader named it) is part of the shape:
            // what tasks waiting at different lines hold are different groups.
            let label = isTaskHolder(step.from) ? graph.labelNumber(of: step.to) : 0
            if label != 0 {
                shape = intern([shape, role, type, label], role: role, type: type)
            } else if lastStep[Int(shape)] != (role, type) {
                shape = intern([shape, role, type], role: role, type: type)
            }
            depth += 1
            shapeOfNode[Int(step.to)] = Int32(shape)
            depthOfNode[Int(step.to)] = depth
        }
        return shape
    }

    private func isTaskHolder(_ node: CompactGraph.NodeID) -> Bool {
        guard case .heapHolder(let holder)? = graph.rootKind(of: node) else { return false }
        return holder == .task
    }

    private mutating func intern(_ key: [UInt32], role: UInt32, type: UInt32) -> UInt32 {
        if let known = numbers[key] { return known }
        let number = UInt32(lastStep.count)
        numbers[key] = number
        lastStep.append((role, type))
        return number
    }
}
