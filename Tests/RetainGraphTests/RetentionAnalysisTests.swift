import RetainGraph
import Testing
import _TestSupport

@Suite("Root paths and retention")
struct RetentionAnalysisTests {
    @Test("Seed S4: a repeating timer on a run loop holds its target with no cycle")
    func rootPathWithoutCycle() throws {
        var graph = GraphBuilder()
        let runLoop = graph.root(.runLoop(thread: "main"))
        let timer = graph.object(
            "Foundation.Timer", kind: .timer, timer: TimerInfo(repeats: true, interval: 1))
        let owner = graph.object("App.ClockViewController")
        graph.strong(runLoop, timer, .scheduled(mode: "kCFRunLoopDefaultMode"))
        graph.strong(timer, owner, .target)
        let analysis = graph.snapshot.analyze()
        #expect(analysis.components.cycles.isEmpty)
        guard case .rootPath(let path) = analysis.retention(of: owner) else {
            Issue.record("expected a root path only, got \(analysis.retention(of: owner))")
            return
        }
        #expect(path.map(\.role) == [.scheduled(mode: "kCFRunLoopDefaultMode"), .target])
        #expect(path.first?.from == runLoop && path.last?.to == owner)
        #expect(analysis.retention(of: owner).cycle == nil)
    }

    @Test("Seed S1: a scheduled timer and its owner hold each other")
    func rootPathAndCycle() throws {
        var graph = GraphBuilder()
        let runLoop = graph.root()
        let timer = graph.object("Foundation.Timer", kind: .timer)
        let owner = graph.object("App.Owner")
        graph.strong(runLoop, timer, .scheduled(mode: "default"))
        graph.strong(timer, owner, .target)
        graph.strong(owner, timer, .storedProperty(name: "timer"))
        let retention = graph.snapshot.analyze().retention(of: owner)
        guard case .rootPathAndCycle(let path, let cycle) = retention else {
            Issue.record("expected path and cycle, got \(retention)")
            return
        }
        #expect(path.count == 2)
        #expect(cycle.count == 2 && isClosedLoop(cycle))
        // "App.Owner" sorts before "Foundation.Timer": the rotation starts at the owner.
        #expect(cycle.first?.from == owner)
    }

    @Test("A cycle 20 hops from the nearest root is found with its 21-reference path")
    func cycleFarFromRoot() throws {
        var graph = GraphBuilder()
        let root = graph.root(.process)
        let chain = graph.chain(20, typeName: "App.Hop")
        let pair = graph.cycle(["App.Left", "App.Right"])
        graph.strong(root, chain[0], .registryEntry(name: "singleton"))
        graph.strong(chain[19], pair[0])
        let analysis = graph.snapshot.analyze()
        let retention = analysis.retention(of: pair[1])
        let path = try #require(retention.rootPath)
        #expect(path.count == 22)
        #expect(path.first?.from == root && path.last?.to == pair[1])
        let cycle = try #require(retention.cycle)
        #expect(cycle.count == 2 && cycle.first?.from == pair[0])
        #expect(analysis.retention(of: chain[5]).cycle == nil)
    }

    @Test("The shortest path picks the fewest hops and ignores weak shortcuts")
    func shortestPathPicksFewestHops() throws {
        var graph = GraphBuilder()
        let mainLoop = graph.root(.runLoop(thread: "main"))
        let process = graph.root(.process)
        let long = graph.chain(6, typeName: "App.Long")
        let medium = graph.chain(2, typeName: "App.Medium")
        let leaked = graph.object("App.Leaked")
        graph.strong(mainLoop, long[0])
        graph.strong(long[5], leaked)
        graph.strong(process, medium[0])
        graph.strong(medium[1], leaked)
        graph.weak(mainLoop, leaked, .storedProperty(name: "weakShortcut"))
        let snapshot = graph.snapshot
        let path = try #require(snapshot.shortestStrongPath(to: leaked))
        #expect(path.map(\.from) == [process, medium[0], medium[1]])
        #expect(snapshot.shortestRootPaths().path(to: mainLoop) == [])
    }

    @Test(
        "Disconnected garbage: an unreachable chain is unexplained, an unreachable cycle is .cycle")
    func disconnectedGarbage() throws {
        var graph = GraphBuilder()
        let root = graph.root()
        let held = graph.object("App.Held")
        graph.strong(root, held)
        let chain = graph.chain(3, typeName: "App.Orphan")
        let island = graph.cycle(["App.IslandA", "App.IslandB", "App.IslandC"])
        graph.weak(held, chain[0])
        let analysis = graph.snapshot.analyze()
        for id in chain {
            #expect(analysis.retention(of: id) == .unexplained)
            #expect(!analysis.rootPaths.isReachable(id))
        }
        guard case .cycle(let cycle) = analysis.retention(of: island[1]) else {
            Issue.record("expected a cycle")
            return
        }
        #expect(cycle.count == 3 && cycle.first?.from == island[0])
        let retained = Set(analysis.retainedNodes().map(\.node.id))
        #expect(retained == Set([held] + island))
    }

    @Test("A node unknown to the snapshot is unexplained and unreachable")
    func unknownNode() {
        let analysis = GraphBuilder().snapshot.analyze()
        let stranger = ObjectID(rawValue: 999)
        #expect(analysis.retention(of: stranger) == .unexplained)
        #expect(!analysis.rootPaths.isReachable(stranger))
        #expect(analysis.components.component(containing: stranger).isEmpty)
    }

    @Test("references(to:) lists every holder; references(from:) every held")
    func incomingAndOutgoing() {
        var graph = GraphBuilder()
        let hub = graph.object("App.Hub")
        let holders = (0..<5).map { _ in graph.object("App.Holder") }
        for (index, holder) in holders.enumerated() {
            graph.edge(holder, hub, ownership: index.isMultiple(of: 2) ? .strong : .weak)
        }
        graph.strong(hub, holders[0], .storedProperty(name: "owner"))
        let snapshot = graph.snapshot
        #expect(Set(snapshot.references(to: hub).map(\.from)) == Set(holders))
        #expect(snapshot.references(to: holders[0]).map(\.from) == [hub])
        #expect(snapshot.references(to: holders[1]).isEmpty)
        #expect(snapshot.references(from: hub).map(\.to) == [holders[0]])
        #expect(snapshot.references(to: ObjectID(rawValue: 12_345)).isEmpty)
    }

    @Test("References naming unknown nodes are dropped; duplicate nodes keep the first")
    func danglingReferencesAreDropped() {
        let a = Node(id: ObjectID(rawValue: 2), typeName: "App.A")
        let b = Node(id: ObjectID(rawValue: 1), typeName: "App.B")
        let duplicate = Node(id: ObjectID(rawValue: 2), typeName: "App.Duplicate")
        let snapshot = GraphSnapshot(
            nodes: [a, b, duplicate],
            references: [
                Reference(from: a.id, to: b.id, ownership: .strong, role: .target),
                Reference(from: a.id, to: ObjectID(rawValue: 7), ownership: .strong, role: .target),
            ])
        #expect(snapshot.nodes.map(\.id) == [b.id, a.id])
        #expect(snapshot.node(a.id)?.typeName == "App.A")
        #expect(snapshot.references.count == 1)
    }
}
