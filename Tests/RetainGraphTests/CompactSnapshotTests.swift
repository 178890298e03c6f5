import RetainGraph
import StackTraces
import Testing

@Suite("Snapshots over the compact graph")
struct CompactSnapshotTests {
    final class Owner {}
    final class Helper {}

    @Test("A live snapshot gives back every node's type, label, kind and every reference's role")
    func liveSnapshotRoundTrips() throws {
        let graph = LiveGraph()
        let owner = Owner()
        let helper = Helper()
        let trace = StackTrace.capture(depth: 4)
        let ownerID = graph.register(owner, label: "screen")
        let helperID = graph.register(helper, kind: .proxy)
        let queue = graph.registerRoot(.dispatchQueue(label: "work"))
        let held = try #require(
            graph.addReference(
                from: queue, to: helperID, ownership: .strong, role: .resumed, creationTrace: trace)
        )
        graph.addReference(
            from: helperID, to: ownerID, ownership: .weak, role: .storedProperty(name: "x"))
        graph.addReference(from: helperID, to: ownerID, ownership: .strong, role: .declared(".x"))
        graph.addReference(from: ownerID, to: helperID, ownership: .unowned, role: .target)

        let snapshot = graph.snapshot()
        #expect(snapshot.nodes.map(\.id) == [ownerID, helperID, queue])
        let ownerNode = try #require(snapshot.node(ownerID))
        #expect(ownerNode.typeName.hasSuffix("CompactSnapshotTests.Owner"))
        #expect(ownerNode.label == "screen")
        #expect(ownerNode.kind == .object)
        #expect(snapshot.node(helperID)?.kind == .proxy)
        #expect(snapshot.node(queue)?.kind == .root(.dispatchQueue(label: "work")))
        #expect(snapshot.roots.map(\.id) == [queue])

        // Two roles with the same description stay two roles; strong references come first.
        let fromHelper = Array(snapshot.references(from: helperID))
        #expect(fromHelper.map(\.role) == [.declared(".x"), .storedProperty(name: "x")])
        #expect(fromHelper.map(\.ownership) == [.strong, .weak])
        let fromQueue = try #require(snapshot.references(from: queue).first)
        #expect(fromQueue.id == held)
        #expect(fromQueue.creationTrace == trace)
        #expect(snapshot.references(to: helperID).map(\.role) == [.resumed, .target])
        #expect(snapshot.references.count == 4)

        // The path from the queue to the owner goes through the strong declared reference.
        let path = try #require(snapshot.shortestStrongPath(to: ownerID))
        #expect(path.map(\.role) == [.resumed, .declared(".x")])
        withExtendedLifetime((owner, helper)) {}
    }

    @Test(
        "After objects die and new ones reuse their rows, a snapshot still orders nodes by identity and keeps every reference, root and trace"
    )
    func snapshotAfterRowReuse() throws {
        let graph = LiveGraph()
        let survivor = Owner()
        let survivorID = graph.register(survivor, label: "survivor")
        do {
            let doomed = (0..<50).map { _ in Owner() }
            for object in doomed { graph.register(object) }
            withExtendedLifetime(doomed) {}
        }
        #expect(graph.snapshot().nodes.map(\.id) == [survivorID])  // the dead rows are freed
        // New nodes take the freed rows: rows no longer follow identities.
        let helpers = (0..<30).map { _ in Helper() }
        let ids = helpers.map { graph.register($0) }
        let root = graph.registerRoot(.dispatchQueue(label: "work"))
        let trace = StackTrace.capture(depth: 4)
        let fromRoot = try #require(
            graph.addReference(
                from: root, to: ids[0], ownership: .strong, role: .resumed, creationTrace: trace))
        for index in 1..<ids.count {
            graph.addReference(
                from: ids[index], to: ids[index - 1], ownership: .weak,
                role: .storedProperty(name: "previous"))
            graph.addReference(
                from: ids[index - 1], to: ids[index], ownership: .strong,
                role: .storedProperty(name: "next"))
        }
        graph.addReference(from: survivorID, to: ids[3], ownership: .strong, role: .target)

        let snapshot = graph.snapshot()
        #expect(snapshot.nodes.map(\.id) == ([survivorID, root] + ids).sorted())
        #expect(snapshot.roots.map(\.id) == [root])
        #expect(snapshot.node(survivorID)?.label == "survivor")
        #expect(snapshot.references.count == 1 + 2 * 29 + 1)
        let middle = Array(snapshot.references(from: ids[10]))
        #expect(middle.map(\.to) == [ids[11], ids[9]])
        #expect(middle.map(\.ownership) == [.strong, .weak])
        #expect(
            snapshot.references(to: ids[3]).map(\.from).sorted()
                == [survivorID, ids[2], ids[4]].sorted())
        let path = try #require(snapshot.analyze().retention(of: ids[29]).rootPath)
        #expect(path.count == 30)
        #expect(path.first?.id == fromRoot)
        #expect(path.first?.creationTrace == trace)
        #expect(path.dropFirst().allSatisfy { $0.role == .storedProperty(name: "next") })
        graph.removeReference(fromRoot)
        #expect(graph.snapshot().analyze().retention(of: ids[29]).rootPath == nil)
        withExtendedLifetime((survivor, helpers)) {}
    }

    @Test("A reference identity read from a snapshot removes the reference from the live graph")
    func snapshotReferenceIDsRemoveReferences() throws {
        let graph = LiveGraph()
        let owner = Owner()
        let helper = Helper()
        graph.addReference(from: owner, to: helper, ownership: .strong, role: .target)
        let reference = try #require(graph.snapshot().references.first?.id)
        graph.removeReference(reference)
        #expect(graph.snapshot().references.isEmpty)
        #expect(graph.snapshot().nodes.count == 2)
        withExtendedLifetime((owner, helper)) {}
    }

    @Test("Timer state and creation traces of synthetic nodes survive the compact columns")
    func sparseNodeDataSurvives() {
        let trace = StackTrace.capture(depth: 4)
        let timer = TimerInfo(repeats: true, interval: 0.5, isScheduled: true, fireCount: 3)
        let nodes = [
            Node(id: ObjectID(rawValue: 40), typeName: "App.B"),
            Node(
                id: ObjectID(rawValue: 7), typeName: "Foundation.Timer", kind: .timer,
                address: 0x70, creationTrace: trace, timer: timer),
        ]
        let snapshot = GraphSnapshot(nodes: nodes, references: [])
        #expect(snapshot.nodes == [nodes[1], nodes[0]])
        #expect(snapshot.node(ObjectID(rawValue: 7))?.timer?.fireCount == 3)
        #expect(snapshot.node(ObjectID(rawValue: 7))?.creationTrace == trace)
        #expect(snapshot.node(ObjectID(rawValue: 40))?.address == nil)
    }
}
