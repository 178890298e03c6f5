import RetainGraph
import Testing
import _TestSupport

@Suite("Compact graph: building")
struct CompactGraphBuildingTests {
    @Test("Nodes keep their kind, type name, label, address and key through renumbering")
    func nodesKeepTheirAttributes() {
        var builder = CompactGraph.Builder()
        let loose = builder.addNode(kind: .object, typeName: "App.Loose", address: 0x30, key: 30)
        let owner = builder.addNode(
            kind: .object, typeName: "App.Owner", label: "owner", address: 0x10, key: 10)
        let queue = builder.addNode(kind: .root, typeName: "Queue", key: 1)
        builder.addRoot(queue, kind: .dispatchQueue(label: "main"))
        builder.addEdge(from: queue, to: owner, ownership: .strong, role: .declared("handler"))
        let graph = builder.build()

        #expect(graph.nodeCount == 3)
        let numbered = [loose, owner, queue].map(graph.node(added:))
        #expect(Set(numbered) == [0, 1, 2])
        // The root is numbered first, what it holds next, the unreached node last.
        #expect(numbered == [2, 1, 0])
        let ownerNode = graph.node(added: owner)
        #expect(graph.typeName(of: ownerNode) == "App.Owner")
        #expect(graph.label(of: ownerNode) == "owner")
        #expect(graph.address(of: ownerNode) == 0x10)
        #expect(graph.key(of: ownerNode) == 10)
        #expect(graph.kind(of: ownerNode) == .object)
        #expect(graph.label(of: graph.node(added: loose)) == nil)
        #expect(graph.address(of: graph.node(added: queue)) == nil)
        #expect(graph.roots.map(\.kind.description) == ["dispatch queue \"main\""])
        #expect(graph.rootName(of: graph.node(added: queue)) == "dispatch queue \"main\"")
        #expect(!graph.isRoot(ownerNode))
    }

    @Test("Type names and roles are interned: a thousand nodes of one type store one name")
    func namesAreInterned() {
        var builder = CompactGraph.Builder(expectedNodes: 1_000, expectedEdges: 999)
        let type = builder.intern("App.Entry")
        let role = builder.intern(ReferenceRole.element(collection: "[Entry]", path: ""))
        for node in 0..<1_000 {
            builder.addNode(kind: .object, typeNameNumber: type)
            if node > 0 {
                builder.addEdge(from: 0, to: UInt32(node), ownership: .strong, roleNumber: role)
            }
        }
        let graph = builder.build()
        #expect(graph.strings.count == 2)  // "" and the type
        #expect(graph.roles.count == 2)  // the empty role and the element
        #expect(graph.typeName(of: 999) == "App.Entry")
        #expect(graph.outgoing(from: 0).count == 999)
        #expect(graph.outgoing(from: 0).allSatisfy { graph.roleNumber(ofEdge: $0.edge) == role })
        #expect(graph.role(ofEdge: 0) == .element(collection: "[Entry]", path: ""))
        #expect(graph.label(ofEdge: 0) == "element of [Entry]")
    }

    @Test("Edges added in any order land in their holder's row, strong ones first")
    func edgesAreSortedByHolderStrongFirst() {
        var builder = CompactGraph.Builder()
        for _ in 0..<4 { builder.addNode(kind: .object, typeName: "T") }
        builder.addEdge(from: 2, to: 3, ownership: .weak, role: .declared("weak"))
        builder.addEdge(from: 0, to: 1, ownership: .unowned, role: .declared("unowned"))
        builder.addEdge(from: 2, to: 0, ownership: .strong, role: .declared("strong"))
        builder.addEdge(
            from: 0, to: 2, ownership: .strong, role: .declared("a"), origin: .reflection)
        builder.addEdge(
            from: 1, to: 9, ownership: .strong, role: .declared("to a node that does not exist"))
        let graph = builder.build(numberingForLocality: false)

        #expect(graph.edgeCount == 4)
        let fromTwo = graph.outgoing(from: 2)
        #expect(fromTwo.map(\.to) == [0, 3])
        #expect(fromTwo.map { graph.ownership(ofEdge: $0.edge) } == [.strong, .weak])
        #expect(graph.strongOutEdges(of: 2).count == 1)
        let fromZero = graph.outgoing(from: 0)
        #expect(fromZero.map(\.to) == [2, 1])
        #expect(graph.isDiscovered(fromZero[0].edge))
        #expect(!graph.isDiscovered(fromZero[1].edge))
        #expect(graph.label(ofEdge: fromZero[1].edge) == "unowned")
        #expect(graph.outgoing(from: 1).isEmpty)
        for step in fromTwo + fromZero { #expect(graph.source(of: step.edge) == step.from) }
    }

    @Test(
        "Many edges in shuffled order, some to no node, land as a row-by-row sort would put them",
        arguments: [false, true])
    func shuffledEdgesLandInStableRows(numbering: Bool) {
        var random = SplitMix64(seed: 35)
        let nodes = 300
        var builder = CompactGraph.Builder()
        for _ in 0..<nodes { builder.addNode(kind: .object, typeName: "T") }
        let ownerships: [Ownership] = [.strong, .weak, .unowned, .strong]
        // What each holder's row must be: its strong edges, then the others, each in the
        // order added (edges to a node that does not exist dropped).
        var strongRows = [[(to: Int, tag: UInt32)]](repeating: [], count: nodes)
        var otherRows = [[(to: Int, tag: UInt32)]](repeating: [], count: nodes)
        for tag in UInt32(1)...5_000 {
            let from = Int.random(in: 0..<nodes, using: &random)
            let to = Int.random(in: 0..<(nodes + 10), using: &random)
            let ownership = ownerships[Int.random(in: 0..<4, using: &random)]
            builder.addEdge(
                from: CompactGraph.NodeID(from), to: CompactGraph.NodeID(to),
                ownership: ownership, tag: tag)
            guard to < nodes else { continue }
            if ownership == .strong {
                strongRows[from].append((to, tag))
            } else {
                otherRows[from].append((to, tag))
            }
        }
        let graph = builder.build(numberingForLocality: numbering)
        #expect(graph.edgeCount == strongRows.joined().count + otherRows.joined().count)
        for from in 0..<nodes {
            let row = graph.outgoing(from: graph.node(added: CompactGraph.NodeID(from)))
            let expected = strongRows[from] + otherRows[from]
            #expect(row.map { graph.tag(ofEdge: $0.edge) } == expected.map(\.tag))
            #expect(
                row.map(\.to) == expected.map { graph.node(added: CompactGraph.NodeID($0.to)) })
            #expect(
                graph.strongOutEdges(of: graph.node(added: CompactGraph.NodeID(from))).count
                    == strongRows[from].count)
        }
    }

    @Test("In-edges answer who holds a node, strong holders first")
    func incomingEdgesListEveryHolder() {
        var builder = CompactGraph.Builder()
        for _ in 0..<4 { builder.addNode(kind: .object, typeName: "T") }
        builder.addEdge(from: 1, to: 0, ownership: .weak, role: .declared("delegate"))
        builder.addEdge(from: 3, to: 0, ownership: .strong, role: .declared("owner"))
        builder.addEdge(from: 2, to: 0, ownership: .unownedUnsafe, role: .declared("raw"))
        let graph = builder.build(numberingForLocality: false)
        let holders = graph.incoming(to: 0)
        #expect(holders.map(\.from) == [3, 1, 2])
        #expect(holders.map { graph.label(ofEdge: $0.edge) } == ["owner", "delegate", "raw"])
        #expect(
            holders.map { graph.ownership(ofEdge: $0.edge) } == [.strong, .weak, .unownedUnsafe])
        #expect(graph.incoming(to: 3).isEmpty)
    }

    @Test("The in-edge rows are built by the first question that needs them, once for all copies")
    func incomingRowsAreBuiltOnFirstUse() {
        var builder = CompactGraph.Builder()
        for _ in 0..<3 { builder.addNode(kind: .object, typeName: "T") }
        builder.addEdge(from: 0, to: 2, ownership: .strong, role: .declared("a"))
        builder.addEdge(from: 1, to: 2, ownership: .strong, role: .declared("b"))
        let graph = builder.build(numberingForLocality: false)
        let copy = graph
        let withoutRows = graph.arrayBytes
        // Components and root paths read out-edges only.
        _ = graph.strongComponents()
        _ = graph.paths()
        #expect(graph.arrayBytes == withoutRows)
        #expect(copy.incoming(to: 2).map(\.from) == [0, 1])
        // 8 bytes per node and 8 per edge, seen through the original too.
        #expect(graph.arrayBytes == withoutRows + 8 * 3 + 4 + 8 * 2)
        #expect(graph.incoming(to: 2).map { graph.label(ofEdge: $0.edge) } == ["a", "b"])
    }

    @Test("Edges added in bulk as parallel arrays equal edges added one by one")
    func bulkEdgesMatchSingleEdges() {
        func graph(bulk: Bool) -> CompactGraph {
            var builder = CompactGraph.Builder()
            for _ in 0..<5 { builder.addNode(kind: .object, typeName: "T") }
            let role = builder.intern(ReferenceRole.storedProperty(name: "next"))
            let sources: [UInt32] = [4, 0, 1, 2, 3, 0]
            let targets: [UInt32] = [0, 1, 2, 3, 4, 3]
            let ownerships: [Ownership] = [.strong, .strong, .weak, .strong, .strong, .unowned]
            if bulk {
                builder.addEdges(
                    sources: sources, targets: targets, ownerships: ownerships,
                    roleNumbers: Array(repeating: role, count: 6), origin: .reflection)
            } else {
                for edge in 0..<6 {
                    builder.addEdge(
                        from: sources[edge], to: targets[edge], ownership: ownerships[edge],
                        roleNumber: role, origin: .reflection)
                }
            }
            builder.addRoot(2, name: "root")
            return builder.build()
        }
        let one = graph(bulk: false)
        let other = graph(bulk: true)
        for node in UInt32(0)..<5 {
            #expect(one.outgoing(from: node) == other.outgoing(from: node))
            #expect(one.incoming(to: node) == other.incoming(to: node))
        }
        #expect(one.node(added: 2) == 0)
        #expect((0..<UInt32(6)).allSatisfy { one.isDiscovered($0) && other.isDiscovered($0) })
    }

    @Test("Parallel arrays of different lengths add only the edges all of them describe")
    func bulkEdgesOfUnequalLengthsAreCut() {
        var builder = CompactGraph.Builder()
        for _ in 0..<3 { builder.addNode(kind: .object, typeName: "T") }
        builder.addEdges(
            sources: [0, 1, 2], targets: [1, 2], ownerships: [.strong, .weak, .strong],
            roleNumbers: [0, 0, 0, 0], origin: .declared)
        let graph = builder.build(numberingForLocality: false)
        #expect(graph.edgeCount == 2)
        #expect(graph.outgoing(from: 1).map(\.to) == [2])
        #expect(graph.outgoing(from: 2).isEmpty)
    }

    @Test("Edge tags are kept only when some edge has one")
    func edgeTagsAreKept() {
        var builder = CompactGraph.Builder()
        for _ in 0..<3 { builder.addNode(kind: .object, typeName: "T") }
        builder.addEdge(from: 0, to: 1, ownership: .strong)
        builder.addEdge(from: 1, to: 2, ownership: .strong, tag: 42)
        let graph = builder.build(numberingForLocality: false)
        #expect(graph.outgoing(from: 0).map { graph.tag(ofEdge: $0.edge) } == [0])
        #expect(graph.outgoing(from: 1).map { graph.tag(ofEdge: $0.edge) } == [42])
    }

    @Test("An empty builder builds an empty graph whose analyses find nothing")
    func emptyGraph() {
        let graph = CompactGraph.Builder().build()
        #expect(graph.nodeCount == 0)
        #expect(graph.edgeCount == 0)
        #expect(graph.strongComponents().count == 0)
        #expect(graph.roots.isEmpty)
    }
}
