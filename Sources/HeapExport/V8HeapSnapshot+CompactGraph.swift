import ObjectGraph

// The one adapter from the graph to the V8 model: a live graph's snapshot, a census snapshot,
// an attached process's heap and a leak report's scope are all a `CompactGraph`, so this file
// is every place the module reads one (node kinds, type names, sizes, addresses, ownership,
// roles, root kinds).

extension V8HeapSnapshot {
    /// Exports a compact graph: each object a node named by its type, each holder outside the
    /// heap a GC-root group.
    ///
    /// - Objects become ``NodeType/object`` nodes named by
    ///   ``/ObjectGraph/CompactGraph/typeName(of:)`` (closure contexts and boxes whose type
    ///   name does not say so are prefixed with `closure context` or `box`: DevTools shows its
    ///   own `closure` type as "Function"), of self size ``/ObjectGraph/CompactGraph/size(of:)``.
    /// - References that retain their target (strong, and conservative ones, marked so) become
    ///   ``EdgeType/property`` edges named by their role (`.timer`, `captured self`, `element
    ///   of an array`); weak, unowned and unowned(unsafe) ones become ``EdgeType/weak`` edges,
    ///   as do words of a task's memory into objects another retaining reference reaches (they
    ///   may be stale: the dominator tree does not count them either, so DevTools' retained
    ///   sizes are ``/ObjectGraph/CompactGraph/dominatorTree()``'s).
    /// - Roots go under one group per kind of root (``groupName(of:)``: `(globals)`, `(Tasks)`,
    ///   `(run loops)`…). A root that is a holder rather than an object (a node of kind
    ///   ``/ObjectGraph/CompactGraph/NodeKind/root``: a global variable, the `Task`s the
    ///   runtime keeps, a run loop) is not a node of its own: its group holds what it holds,
    ///   through edges named after it (the variable's name, `run loop of thread "main"`). A
    ///   root that is an object is held by its group through an edge named after the root.
    ///
    /// ```swift
    /// var numbering = ObjectNumbering()
    /// let snapshot = V8HeapSnapshot(graph: LiveGraph.shared.snapshot().graph, numbering: &numbering)
    /// try snapshot.write(toFile: "live.heapsnapshot")
    /// ```
    ///
    /// - Parameters:
    ///   - graph: The graph.
    ///   - numbering: Gives each object its stable id (by address and type); pass the same
    ///     numbering for every snapshot of a comparison. Nodes without an address are numbered
    ///     after every address seen so far.
    ///   - groupEdge: How the synthetic root holds each group (see
    ///     ``addRootGroup(named:through:)``).
    ///   - creationTrace: The creation trace of a node, innermost frame first, if it has one.
    /// - Complexity: O(*n* + *e*) for *n* nodes and *e* edges, plus one hash per distinct type
    ///   name and role.
    public init(
        graph: CompactGraph, numbering: inout ObjectNumbering, groupEdge: EdgeType = .shortcut,
        creationTrace: (CompactGraph.NodeID) -> [Frame]? = { _ in nil }
    ) {
        self.init(expectedNodes: graph.nodeCount + 8, expectedEdges: graph.edgeCount + 8)
        let nodes = UInt32(graph.nodeCount)
        // Holders (root nodes that are not objects) are folded into their groups.
        var isHolder = [Bool](repeating: false, count: Int(nodes))
        var groups: [String: Int] = [:]
        var rootGroups: [(node: CompactGraph.NodeID, group: String, kind: RootKind)] = []
        for (node, kind) in graph.roots {
            let group = Self.groupName(of: kind)
            if groups[group] == nil {
                groups[group] = addRootGroup(named: group, through: groupEdge)
            }
            rootGroups.append((node, group, kind))
            if graph.kind(of: node) == .root { isHolder[Int(node)] = true }
        }
        // Objects, in node order: index[node] is the V8 node of an object.
        var index = [Int](repeating: -1, count: Int(nodes))
        // The interned name and the type name's hash, by type name number and node kind.
        var names: [UInt32: (index: UInt32, typeHash: Int)] = [:]
        var traces: [[Frame]: UInt32] = [:]
        numbering.reserveCapacity(numbering.count + Int(nodes))
        for node in 0..<nodes where !isHolder[Int(node)] {
            let kind = graph.kind(of: node)
            let key = graph.typeNameNumber(of: node) << 3 | UInt32(kind.rawValue & 7)
            let name: (index: UInt32, typeHash: Int)
            if let known = names[key] {
                name = known
            } else {
                let typeName = graph.typeName(of: node)
                name = (intern(Self.objectName(typeName, kind: kind)), typeName.hashValue)
                names[key] = name
            }
            let number = numbering.number(forAddress: graph.address(of: node), type: name.typeHash)
            var trace: UInt32 = 0
            if let frames = creationTrace(node), !frames.isEmpty {
                if let known = traces[frames] {
                    trace = known
                } else {
                    trace = addTrace(frames)
                    traces[frames] = trace
                }
            }
            index[Int(node)] = addNode(
                type: .object, nameIndex: name.index, id: Self.objectID(number),
                selfSize: UInt32(clamping: graph.size(of: node)), trace: trace)
        }
        // Groups hold their roots (or, for holders, what the holders hold).
        for (node, group, kind) in rootGroups {
            guard let groupIndex = groups[group] else { continue }
            let edgeName = graph.label(of: node) ?? kind.description
            if isHolder[Int(node)] {
                for edge in graph.outEdges(of: node) {
                    let target = index[Int(graph.target(of: CompactGraph.EdgeID(edge)))]
                    guard target >= 0 else { continue }
                    addEdge(from: groupIndex, type: .property, name: edgeName, to: target)
                }
            } else if index[Int(node)] >= 0 {
                addEdge(from: groupIndex, type: .property, name: edgeName, to: index[Int(node)])
            }
        }
        // References between objects, named by role and marked by ownership.
        // Interned names by role number and ownership (0 = not yet interned): roles are few.
        var edgeNames: [UInt32] = []
        // Words of a task's memory into objects something else reaches retain nothing, as in
        // the dominator tree (DevTools would otherwise draw the Retainers through them).
        let redundant = graph.redundantLastResortEdges()
        var nextRedundant = 0
        for node in 0..<nodes where !isHolder[Int(node)] {
            for edge in graph.outEdges(of: node) {
                let edge = CompactGraph.EdgeID(edge)
                let to = index[Int(graph.target(of: edge))]
                guard to >= 0 else { continue }
                let ownership = graph.ownership(ofEdge: edge)
                let key = Int(graph.roleNumber(ofEdge: edge)) &* 8 &+ Int(ownership.byte)
                if key >= edgeNames.count {
                    edgeNames.append(
                        contentsOf: repeatElement(0, count: key + 64 - edgeNames.count))
                }
                var name = edgeNames[key]
                if name == 0 {
                    name = intern(Self.edgeName(graph.role(ofEdge: edge), ownership))
                    edgeNames[key] = name
                }
                // (Edges come in ascending order, as the redundant ones are listed.)
                while nextRedundant < redundant.count, redundant[nextRedundant] < edge {
                    nextRedundant += 1
                }
                let retains =
                    ownership.retainsTarget
                    && (nextRedundant == redundant.count || redundant[nextRedundant] != edge)
                addEdge(
                    from: index[Int(node)], type: retains ? .property : .weak,
                    nameOrIndex: name, to: to)
            }
        }
    }

    /// The GC-root group a root of `kind` goes under, V8 style: `(globals)`, `(Tasks)`,
    /// `(Foundation timers)`, `(dispatch blocks)`, `(outside the Swift heap)`, `(run loops)`,
    /// `(dispatch queues)`, `(types)`, `(process)`, or `(name)` for a custom root.
    public static func groupName(of kind: RootKind) -> String {
        switch kind {
        case .heapHolder(let holder): return "(\(holder.kind.groupName))"
        case .runLoop: return "(run loops)"
        case .dispatchQueue: return "(dispatch queues)"
        case .immortalType: return "(types)"
        case .process: return "(process)"
        case .custom(let name): return "(\(name))"
        }
    }

    /// An edge's name: its role in words, with the ownership when it is neither strong nor
    /// weak (the edge type says those).
    static func edgeName(_ role: ReferenceRole, _ ownership: Ownership) -> String {
        let description = role.description
        let name = description.isEmpty ? "(reference)" : description
        switch ownership {
        case .strong, .weak: return name
        case .conservative, .unowned, .unownedUnsafe: return "\(name) (\(ownership.rawValue))"
        }
    }

    /// The name a node of `kind` with type name `typeName` gets: the type name, saying what
    /// a closure context or a box is when the type name does not (`thunk of closure context
    /// (captures Owner)` and `wake-up closure of a Task.sleep (runtime)` already do).
    static func objectName(_ typeName: String, kind: CompactGraph.NodeKind) -> String {
        switch kind {
        case .closure where !typeName.contains("closure"):
            return typeName.isEmpty ? "closure context" : "closure context \(typeName)"
        case .box where !typeName.hasPrefix("box"):
            return typeName.isEmpty ? "box" : "box \(typeName)"
        default:
            return typeName.isEmpty ? "(unnamed object)" : typeName
        }
    }
}
