import ObjectGraph
import Testing

/// Paths of equal priority and length chosen by content (issue 31: the same attach answered
/// differently from run to run): the same graph, its nodes numbered and its edges added in any
/// order, gives the same path text.
struct PathOrderTests {
    /// A graph's content: nodes by name (with their type names), roots, and edges by role.
    struct Content {
        var nodes: [(name: String, typeName: String)] = []
        var roots: [(name: String, root: String)] = []
        var edges: [(from: String, to: String, role: ReferenceRole, lowPriority: Bool)] = []

        /// The graph, nodes and edges added in the order `random` shuffles them to; `locality`
        /// renumbers the nodes as the builder does for a heap.
        func graph(random: inout DominatorFixtures.Random, locality: Bool) -> (
            CompactGraph, [String: CompactGraph.NodeID]
        ) {
            var builder = CompactGraph.Builder()
            var added: [String: CompactGraph.NodeID] = [:]
            for node in shuffled(nodes, &random) {
                added[node.name] = builder.addNode(
                    kind: .object, typeName: node.typeName, address: UInt(random.below(1 << 20)))
            }
            for root in shuffled(roots, &random) {
                builder.addRoot(added[root.name]!, kind: .custom(name: root.root))
            }
            for edge in shuffled(edges, &random) {
                builder.addEdge(
                    from: added[edge.from]!, to: added[edge.to]!, ownership: .strong,
                    role: edge.role, isLowPriority: edge.lowPriority)
            }
            let graph = builder.build(numberingForLocality: locality)
            return (graph, added.mapValues { graph.node(added: $0) })
        }

        private func shuffled<Element>(
            _ elements: [Element], _ random: inout DominatorFixtures.Random
        )
            -> [Element]
        {
            var result = elements
            for index in result.indices.reversed() where index > 0 {
                result.swapAt(index, random.below(index + 1))
            }
            return result
        }
    }

    /// Ties at every step: two roots, two properties, two element types, each pair leading to
    /// the same object at the same distance, plus a low-priority shortcut.
    static let content: Content = {
        var content = Content()
        content.nodes = [
            ("registry", "App.Registry"), ("cache", "App.Cache"),
            ("boxR", "App.Box"), ("boxC", "App.Box"),
            ("holder", "App.Holder"), ("left", "App.Beta"), ("right", "App.Alpha"),
            ("list", "[Any]"), ("zeta", "App.Zeta"), ("alpha", "App.Alpha"),
            ("target", "App.Target"), ("leaf", "App.Leaf"),
        ]
        content.roots = [("registry", "registry"), ("cache", "cache")]
        content.edges = [
            ("registry", "boxR", .storedProperty(name: "box"), false),
            ("cache", "boxC", .storedProperty(name: "box"), false),
            ("boxR", "holder", .storedProperty(name: "value"), false),
            ("boxC", "holder", .storedProperty(name: "value"), false),
            ("holder", "left", .storedProperty(name: "b"), false),
            ("holder", "right", .storedProperty(name: "a"), false),
            ("holder", "list", .storedProperty(name: "c"), false),
            ("left", "target", .storedProperty(name: "item"), false),
            ("right", "target", .storedProperty(name: "item"), false),
            ("list", "zeta", .element(collection: "[Any]", path: ""), false),
            ("list", "alpha", .element(collection: "[Any]", path: ""), false),
            ("zeta", "leaf", .storedProperty(name: "leaf"), false),
            ("alpha", "leaf", .storedProperty(name: "leaf"), false),
            ("holder", "leaf", .storedProperty(name: "cached"), true),
        ]
        return content
    }()

    /// The path to `node` as reports print it: root, then `(role) type` per step.
    static func pathText(_ graph: CompactGraph, to node: CompactGraph.NodeID) -> String {
        guard let steps = graph.pathFromRoot(to: node) else { return "unreachable" }
        let root = steps.first?.from ?? node
        var text = graph.rootName(of: root) ?? "?"
        text += " ⇒ " + graph.typeName(of: root)
        for step in steps {
            text += " ⇒ (\(graph.label(ofEdge: step.edge))) \(graph.typeName(of: step.to))"
        }
        return text
    }

    @Test func equalPathsAreChosenByRootRoleAndTypeNameNotByNumbering() {
        var random = DominatorFixtures.Random(seed: 31)
        let (graph, nodes) = Self.content.graph(random: &random, locality: false)
        #expect(
            Self.pathText(graph, to: nodes["target"]!)
                == "cache ⇒ App.Cache ⇒ (.box) App.Box ⇒ (.value) App.Holder"
                + " ⇒ (.a) App.Alpha ⇒ (.item) App.Target")
        #expect(
            Self.pathText(graph, to: nodes["leaf"]!)
                == "cache ⇒ App.Cache ⇒ (.box) App.Box ⇒ (.value) App.Holder ⇒ (.c) [Any]"
                + " ⇒ (element of [Any]) App.Alpha ⇒ (.leaf) App.Leaf")
    }

    @Test func theSameContentBuiltInAnyOrderGivesTheSamePaths() {
        var random = DominatorFixtures.Random(seed: 7)
        let (first, firstNodes) = Self.content.graph(random: &random, locality: true)
        let expected = firstNodes.mapValues { Self.pathText(first, to: $0) }
        for run in 0..<40 {
            let (graph, nodes) = Self.content.graph(random: &random, locality: run % 2 == 0)
            for (name, node) in nodes {
                #expect(Self.pathText(graph, to: node) == expected[name], "run \(run): \(name)")
            }
        }
    }

    @Test func aHolderWithManyEqualElementsKeepsTheirOrder() {
        // A collection's elements share a role and a type: the first element wins, as added.
        var builder = CompactGraph.Builder()
        let root = builder.addNode(kind: .object, typeName: "[App.Item]")
        builder.addRoot(root, name: "items")
        let items = (0..<100).map {
            builder.addNode(kind: .object, typeName: "App.Item", key: UInt64($0))
        }
        let shared = builder.addNode(kind: .object, typeName: "App.Shared")
        for item in items.reversed() {
            builder.addEdge(
                from: root, to: item, ownership: .strong,
                role: .element(collection: "[App.Item]", path: ""))
        }
        for item in items {
            builder.addEdge(
                from: item, to: shared, ownership: .strong, role: .storedProperty(name: "shared"))
        }
        let graph = builder.build(numberingForLocality: false)
        let path = graph.pathFromRoot(to: graph.node(added: shared))
        #expect(path?.count == 2)
        #expect(path.map { graph.key(of: $0[0].to) } == 99)
    }
}
