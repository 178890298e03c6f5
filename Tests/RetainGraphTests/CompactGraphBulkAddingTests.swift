import RetainGraph
import Testing

@Suite struct CompactGraphBulkAddingTests {
    @Test func nodesAndEdgesAddedInBulkBuildTheSameGraphAsOneByOne() {
        var bulk = CompactGraph.Builder()
        let owner = bulk.intern("App.Owner")
        let closure = bulk.intern("closure context")
        let captures = bulk.intern(ReferenceRole.capture(name: "Owner"))
        let added = bulk.addNodes(
            kinds: [.object, .closure, .object], typeNameNumbers: [owner, closure, owner],
            addresses: [0x1000, 0x2000, 0x3000])
        #expect(added == 0..<3)
        bulk.addEdges(
            sources: [0, 1, 2], targets: [1, 0, 0], ownerships: [.strong, .strong, .weak],
            roleNumbers: [bulk.intern(ReferenceRole.storedProperty(name: "handler")), captures, 0],
            origin: .heap)
        let graph = bulk.build(numberingForLocality: false)

        #expect(graph.nodeCount == 3)
        #expect(graph.edgeCount == 3)
        #expect(graph.typeName(of: 1) == "closure context")
        #expect(graph.kind(of: 1) == .closure)
        #expect(graph.address(of: 2) == 0x3000)
        #expect(graph.label(of: 0) == nil)
        let fromClosure = graph.outgoing(from: 1)
        #expect(fromClosure.map(\.to) == [0])
        #expect(fromClosure.map { graph.label(ofEdge: $0.edge) } == ["captures Owner"])
        #expect(
            fromClosure.allSatisfy { graph.isFoundInHeap($0.edge) && graph.isDiscovered($0.edge) })
        #expect(graph.incoming(to: 0).map { graph.ownership(ofEdge: $0.edge) } == [.strong, .weak])
        let components = graph.strongComponents()
        #expect(components.isInCycle(0) && components.isInCycle(1) && !components.isInCycle(2))
    }

    @Test func bulkAddingAfterSingleNodesAppendsAndNumbersOnward() {
        var builder = CompactGraph.Builder()
        let first = builder.addNode(kind: .root, typeName: "queue")
        let type = builder.intern("App.Entry")
        let added = builder.addNodes(
            kinds: [.object, .object], typeNameNumbers: [type, type], addresses: [0x10, 0x20])
        #expect(first == 0)
        #expect(added == 1..<3)
        builder.addEdge(from: first, to: 1, ownership: .strong, role: .declared("work"))
        builder.addEdges(
            sources: [1], targets: [2], ownerships: [.unowned], roleNumbers: [0],
            origin: .reflection)
        builder.addRoot(first, kind: .dispatchQueue(label: "main"))
        let graph = builder.build()
        let entry = graph.node(added: 2)
        let path = graph.pathFromRoot(to: graph.node(added: 1))
        #expect(path?.count == 1)
        #expect(graph.pathFromRoot(to: entry) == nil, "held only through an unowned edge")
        let unowned = graph.incoming(to: entry)
        #expect(unowned.map { graph.ownership(ofEdge: $0.edge) } == [.unowned])
        #expect(unowned.allSatisfy { graph.isDiscovered($0.edge) && !graph.isFoundInHeap($0.edge) })
    }

    @Test func labelsAndKeysGivenToSomeNodesReadBackAfterBulkAddingAndRenumbering() {
        var builder = CompactGraph.Builder()
        let type = builder.intern("App.Entry")
        builder.addNodes(
            kinds: [.object, .object], typeNameNumbers: [type, type], addresses: [0x10, 0x20])
        let queue = builder.addNode(kind: .root, typeName: "queue", label: "main", key: 7)
        builder.addNodes(
            kinds: [.object], typeNameNumbers: [type], addresses: [0x30], sizes: [48])
        let plain = builder.addNode(kind: .object, typeName: "App.Plain")
        builder.addRoot(queue, kind: .dispatchQueue(label: "main"))
        for entry: CompactGraph.NodeID in [0, 1, 3, 4] {
            builder.addEdge(from: queue, to: entry, ownership: .strong, role: .declared("item"))
        }
        for numbering in [false, true] {
            let graph = builder.build(numberingForLocality: numbering)
            let labelled = graph.node(added: queue)
            #expect(graph.label(of: labelled) == "main")
            #expect(graph.key(of: labelled) == 7)
            for other: CompactGraph.NodeID in [0, 1, 3, plain] {
                let node = graph.node(added: other)
                #expect(graph.label(of: node) == nil)
                #expect(graph.key(of: node) == 0)
            }
            #expect(graph.size(of: graph.node(added: 3)) == 48)
            #expect(graph.size(of: graph.node(added: plain)) == 0)
            #expect(graph.typeName(of: graph.node(added: plain)) == "App.Plain")
        }
    }

    @Test func nodesWithoutLabelsOrKeysReadBackAsNone() {
        var builder = CompactGraph.Builder()
        let type = builder.intern("App.Entry")
        builder.addNodes(
            kinds: [.object, .object], typeNameNumbers: [type, type], addresses: [0x10, 0x20])
        builder.addNode(kind: .object, typeName: "App.Other", address: 0x30)
        let graph = builder.build()
        for node in 0..<CompactGraph.NodeID(graph.nodeCount) {
            #expect(graph.label(of: node) == nil)
            #expect(graph.key(of: node) == 0)
        }
    }

    @Test func labelsTakeNoRoomForTheNodesBeforeTheFirstLabelledOne() {
        var builder = CompactGraph.Builder()
        let type = builder.intern("App.Entry")
        builder.addNodes(
            kinds: [CompactGraph.NodeKind](repeating: .object, count: 1_000),
            typeNameNumbers: [UInt32](repeating: type, count: 1_000),
            addresses: (1...1_000).map { UInt($0) * 16 })
        let global = builder.addNode(kind: .root, typeName: "global", label: "App.cache")
        let stack = builder.addNode(kind: .root, typeName: "stack")
        let thread = builder.addNode(kind: .root, typeName: "thread", label: "worker")
        builder.addRoot(global, kind: .process)
        builder.addEdge(from: global, to: 0, ownership: .strong, role: .declared("cache"))
        #expect(builder.labels.count == 3)
        let kept = builder.build(numberingForLocality: false)
        #expect(kept.labelStart == 1_000)
        #expect(kept.labels.count == 3)
        #expect(kept.everyLabel.count == kept.nodeCount)
        for numbering in [false, true] {
            let graph = builder.build(numberingForLocality: numbering)
            #expect(graph.label(of: graph.node(added: global)) == "App.cache")
            #expect(graph.label(of: graph.node(added: stack)) == nil)
            #expect(graph.label(of: graph.node(added: thread)) == "worker")
            #expect((0..<1_000).allSatisfy { graph.label(of: graph.node(added: $0)) == nil })
            #expect(graph.everyLabel.filter { $0 != 0 }.count == 2)
        }
    }
}
