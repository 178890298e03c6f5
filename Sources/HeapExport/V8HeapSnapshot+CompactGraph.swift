import RetainGraph

// The adapter from RetainGraph's compact graph to the V8 model: every place this module reads a
// `CompactGraph` is in this file (node kinds, type names, edge kinds and labels, roots).

extension V8HeapSnapshot {
    /// Exports a compact graph: each node an object named by its type, each root under the GC
    /// root group its name gives.
    ///
    /// Nodes become ``NodeType/object`` nodes named by ``/RetainGraph/CompactGraph/typeName(of:)``
    /// (closure contexts and boxes whose type name does not say so are prefixed with
    /// `closure context` or `box`, since DevTools shows its own `closure` type as "Function").
    /// Strong edges become ``EdgeType/property`` edges named by their label; weak, unowned and
    /// unowned(unsafe) edges become ``EdgeType/weak`` edges. Each root is held by the group
    /// `rootGroup(name)` returns for its root name, through an edge named after the root.
    ///
    /// ```swift
    /// let snapshot = V8HeapSnapshot(graph: graph, sizes: sizes, ids: ids)
    /// try snapshot.write(toFile: "live.heapsnapshot")
    /// ```
    ///
    /// - Parameters:
    ///   - graph: The graph.
    ///   - sizes: Each node's size in bytes, by node number; missing sizes are 0 (DevTools
    ///     leaves objects of size 0 out of its Summary).
    ///   - ids: Each node's stable number, by node number (written as ``objectID(_:)``, which
    ///     DevTools keeps in 32 bits: numbers below 2³¹); missing ones are the node number + 1.
    ///   - rootGroup: The group a root goes under, from its name; by default `(name)`.
    ///   - groupEdge: How the synthetic root holds each group (see
    ///     ``addRootGroup(named:through:)``).
    public init(
        graph: CompactGraph, sizes: [UInt32], ids: [UInt64] = [],
        rootGroup: (String) -> String = { "(\($0))" }, groupEdge: EdgeType = .shortcut
    ) {
        self.init(expectedNodes: graph.nodeCount + 8, expectedEdges: graph.edgeCount + 8)
        var groups: [String: Int] = [:]
        let roots = graph.roots
        for root in roots where groups[rootGroup(root.name)] == nil {
            groups[rootGroup(root.name)] = addRootGroup(
                named: rootGroup(root.name), through: groupEdge)
        }
        let first = nodeCount
        let nodes = graph.nodeCount
        var names: [UInt32: UInt32] = [:]
        for node in 0..<UInt32(nodes) {
            let typeNumber = graph.typeNameNumber(of: node)
            let kind = graph.kind(of: node)
            let key = typeNumber << 3 | UInt32(kind.rawValue & 7)
            let name: UInt32
            if let known = names[key] {
                name = known
            } else {
                name = intern(Self.objectName(graph.typeName(of: node), kind: kind))
                names[key] = name
            }
            let number = Int(node) < ids.count ? ids[Int(node)] : UInt64(node) + 1
            addNode(
                type: .object, nameIndex: name, id: Self.objectID(number),
                selfSize: Int(node) < sizes.count ? sizes[Int(node)] : 0)
        }
        for root in roots {
            guard let group = groups[rootGroup(root.name)] else { continue }
            addEdge(from: group, type: .property, name: root.name, to: first + Int(root.node))
        }
        var labels: [UInt32: (strong: UInt32, weak: UInt32)] = [:]
        for node in 0..<UInt32(nodes) {
            for edge in graph.outEdges(of: node) {
                let edge = CompactGraph.EdgeID(edge)
                let kind = graph.kind(ofEdge: edge)
                let number = graph.labelNumber(ofEdge: edge)
                let known =
                    labels[number]
                    ?? {
                        let label = graph.label(ofEdge: edge)
                        let strong = intern(label.isEmpty ? "(reference)" : label)
                        let pair = (strong, intern(label.isEmpty ? "(weak)" : label))
                        labels[number] = pair
                        return pair
                    }()
                let to = first + Int(graph.target(of: edge))
                switch kind {
                case .strong:
                    addEdge(
                        from: first + Int(node), type: .property, nameOrIndex: known.strong, to: to)
                case .weak:
                    addEdge(from: first + Int(node), type: .weak, nameOrIndex: known.weak, to: to)
                case .unowned, .unownedUnsafe:
                    let label = graph.label(ofEdge: edge)
                    addEdge(
                        from: first + Int(node), type: .weak,
                        name:
                            "\(label.isEmpty ? "(reference)" : label) (\(kind == .unowned ? "unowned" : "unowned(unsafe)"))",
                        to: to)
                }
            }
        }
    }

    /// The name a node of `kind` with type name `typeName` gets: the type name, saying what
    /// a closure context or a box is when the type name does not.
    static func objectName(_ typeName: String, kind: CompactGraph.NodeKind) -> String {
        switch kind {
        case .closure where !typeName.hasPrefix("closure"):
            return typeName.isEmpty ? "closure context" : "closure context \(typeName)"
        case .box where !typeName.hasPrefix("box"):
            return typeName.isEmpty ? "box" : "box \(typeName)"
        default:
            return typeName.isEmpty ? "(unnamed object)" : typeName
        }
    }
}
