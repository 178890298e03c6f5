import RetainGraph
import StackTraces
import Testing
import _TestSupport

/// An object for the scoped-snapshot graphs: each is one node.
private final class Member {}

/// A live graph of `count` objects with random references of every kind, a few roots, and the
/// objects that keep it alive.
private struct RandomLiveGraph {
    let graph = LiveGraph()
    var members: [Member] = []
    var ids: [ObjectID] = []
    var roots: [ObjectID] = []

    init(count: Int, edgesPerNode: Int, rootCount: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<count {
            let member = Member()
            members.append(member)
            ids.append(graph.register(member))
        }
        for root in 0..<rootCount {
            roots.append(graph.registerRoot(.custom(name: "root\(root)")))
        }
        let kinds: [Ownership] = [.strong, .strong, .strong, .weak, .unowned]
        for (index, id) in ids.enumerated() {
            for slot in 0..<edgesPerNode {
                let target = ids[Int(random.next() % UInt64(count))]
                graph.addReference(
                    from: id, to: target, ownership: kinds[(index + slot) % kinds.count],
                    role: .storedProperty(name: "field\(slot)"))
            }
        }
        for root in roots {
            graph.addReference(
                from: root, to: ids[Int(random.next() % UInt64(count))], ownership: .strong,
                role: .declared("global"))
        }
    }
}

@Suite("Scoped snapshots: copying only what can hold an object")
struct ScopedSnapshotTests {
    @Test(
        "A retention scope explains each node exactly as the full graph does", arguments: [1, 2, 3])
    func retentionMatchesFullSnapshot(seed: UInt64) {
        let fixture = RandomLiveGraph(count: 400, edgesPerNode: 2, rootCount: 3, seed: seed)
        let full = fixture.graph.snapshot().analyze()
        var explained = 0
        for id in fixture.ids {
            let scoped = fixture.graph.snapshot(.retention(of: [id])).analyze()
            let expected = full.retention(of: id)
            #expect(scoped.retention(of: id) == expected)
            #expect(
                scoped.snapshot.fingerprint(
                    of: id, path: expected.rootPath, cycle: expected.cycle)
                    == full.snapshot.fingerprint(
                        of: id, path: expected.rootPath, cycle: expected.cycle))
            if expected != .unexplained { explained += 1 }
        }
        // The random graphs must exercise both answers for the comparison to mean anything.
        #expect(explained > 0 && explained < fixture.ids.count)
        withExtendedLifetime(fixture.members) {}
    }

    @Test(
        "A scoped snapshot keeps labels, traces, timer state, root kinds and reference identities, snapshot after snapshot"
    )
    func scopedSnapshotKeepsSparseData() throws {
        let graph = LiveGraph()
        let owner = Member()
        let timer = Member()
        let trace = StackTrace.capture(depth: 4)
        let ownerID = graph.register(owner, label: "owner", creationTrace: trace)
        let timerID = graph.register(timer, kind: .timer)
        graph.setTimerInfo(TimerInfo(repeats: true, interval: 2), for: timerID)
        let runLoop = graph.registerRoot(.runLoop(thread: "main"))
        let scheduled = try #require(
            graph.addReference(
                from: runLoop, to: timerID, ownership: .strong, role: .scheduled(mode: "default"),
                creationTrace: trace))
        graph.addReference(from: timerID, to: ownerID, ownership: .strong, role: .target)
        // Each scoped snapshot borrows the search marks of the rows it copies; the next search
        // must find them as if untouched.
        for _ in 0..<3 {
            let snapshot = graph.snapshot(.retention(of: [ownerID]))
            #expect(snapshot.nodes.map(\.id) == [ownerID, timerID, runLoop])
            #expect(snapshot.node(ownerID)?.label == "owner")
            #expect(snapshot.node(ownerID)?.creationTrace == trace)
            #expect(snapshot.node(timerID)?.timer?.interval == 2)
            #expect(snapshot.node(runLoop)?.kind == .root(.runLoop(thread: "main")))
            let path = try #require(snapshot.analyze().retention(of: ownerID).rootPath)
            #expect(path.map(\.role) == [.scheduled(mode: "default"), .target])
            #expect(path.first?.id == scheduled)
            #expect(path.first?.creationTrace == trace)
        }
        withExtendedLifetime((owner, timer)) {}
    }

    @Test("A retention scope copies the strong holders and the direct holders, nothing else")
    func retentionScopeContents() {
        let graph = LiveGraph()
        let objects = (0..<6).map { _ in Member() }
        let ids = objects.map { graph.register($0) }
        let root = graph.registerRoot(.runLoop(thread: "main"))
        // root ⇒ 0 ⇒ 1 ⇒ subject(2); 3 → 2 (weak); 4 → 3 (weak, two hops); 2 ⇒ 5 (held only).
        graph.addReference(from: root, to: ids[0], ownership: .strong, role: .declared("timer"))
        graph.addReference(from: ids[0], to: ids[1], ownership: .strong, role: .target)
        graph.addReference(
            from: ids[1], to: ids[2], ownership: .strong, role: .storedProperty(name: "a"))
        graph.addReference(
            from: ids[3], to: ids[2], ownership: .weak, role: .storedProperty(name: "b"))
        graph.addReference(
            from: ids[4], to: ids[3], ownership: .weak, role: .storedProperty(name: "c"))
        graph.addReference(
            from: ids[2], to: ids[5], ownership: .strong, role: .storedProperty(name: "d"))
        graph.addReference(
            from: ids[2], to: ids[0], ownership: .weak, role: .storedProperty(name: "e"))

        let snapshot = graph.snapshot(.retention(of: [ids[2]]))
        #expect(Set(snapshot.nodes.map(\.id)) == [root, ids[0], ids[1], ids[2], ids[3]])
        // Every reference between two copied nodes, the weak back-reference 2 → 0 included.
        #expect(snapshot.references.count == 5)
        #expect(snapshot.references(to: ids[0]).map(\.from).sorted() == [root, ids[2]].sorted())
        #expect(snapshot.analyze().retention(of: ids[2]).rootPath?.count == 3)
        withExtendedLifetime(objects) {}
    }

    @Test("A holders scope follows references of any kind up to its distance")
    func holdersWithinDistance() {
        let graph = LiveGraph()
        let objects = (0..<5).map { _ in Member() }
        let ids = objects.map { graph.register($0) }
        // 4 ⇒ 3 → 2 ⇒ 1 → 0: a chain into 0 alternating strong and weak.
        for index in 1..<5 {
            graph.addReference(
                from: ids[index], to: ids[index - 1],
                ownership: index.isMultiple(of: 2) ? .strong : .weak,
                role: .storedProperty(name: "next"))
        }
        for distance in 0...5 {
            let snapshot = graph.snapshot(.holders(of: [ids[0]], within: distance))
            #expect(Set(snapshot.nodes.map(\.id)) == Set(ids.prefix(min(distance, 4) + 1)))
            #expect(snapshot.references.count == min(distance, 4))
        }
        #expect(graph.snapshot(.holders(of: [ids[0]], within: -3)).nodes.map(\.id) == [ids[0]])
        withExtendedLifetime(objects) {}
    }

    @Test("Dead holders met by a scoped snapshot are pruned, with their anchored nodes")
    func scopedSnapshotPrunesDeadHolders() {
        let graph = LiveGraph()
        let subject = Member()
        let subjectID = graph.register(subject)
        var closureID = ObjectID.disabled
        do {
            let timer = Member()
            let timerID = graph.register(timer, kind: .timer)
            closureID = graph.registerAnchored(kind: .closure, typeName: "closure", anchor: timerID)
            graph.addReference(
                from: timerID, to: closureID, ownership: .strong, role: .actionClosure)
            graph.addReference(
                from: closureID, to: subjectID, ownership: .strong, role: .capture(name: "self"))
            #expect(graph.snapshot(.retention(of: [subjectID])).nodes.count == 3)
            withExtendedLifetime(timer) {}
        }
        let snapshot = graph.snapshot(.retention(of: [subjectID]))
        #expect(snapshot.nodes.map(\.id) == [subjectID])
        #expect(snapshot.references.isEmpty)
        // Pruned from the live graph too, not just left out of the copy.
        #expect(graph.counts().nodes == 1)
        #expect(graph.snapshot().node(closureID) == nil)
        withExtendedLifetime(subject) {}
    }

    @Test("Unknown, removed and dead start nodes give an empty snapshot")
    func unknownStartNodes() {
        let graph = LiveGraph()
        let member = Member()
        let id = graph.register(member)
        graph.removeNode(id)
        var deadID = ObjectID.disabled
        do {
            let dead = Member()
            deadID = graph.register(dead)
        }
        for scope in [
            SnapshotScope.retention(of: [id, deadID, ObjectID(rawValue: 999), .disabled])
        ] {
            let snapshot = graph.snapshot(scope)
            #expect(snapshot.nodes.isEmpty && snapshot.references.isEmpty)
        }
        #expect(graph.snapshot(.retention(of: [])).nodes.isEmpty)
        withExtendedLifetime(member) {}
    }

    @Test("The reverse index survives removals, sweeps and slot reuse")
    func reverseIndexStaysConsistent() {
        let fixture = RandomLiveGraph(count: 300, edgesPerNode: 3, rootCount: 2, seed: 9)
        var random = SplitMix64(seed: 77)
        // Remove a third of the nodes (their references are swept in batches), then add new
        // references, which reuse the freed slots.
        for id in fixture.ids where random.next() % 3 == 0 { fixture.graph.removeNode(id) }
        let survivors = fixture.ids.filter {
            fixture.graph.snapshot(.holders(of: [$0], within: 0)).node($0) != nil
        }
        for _ in 0..<600 {
            let from = survivors[Int(random.next() % UInt64(survivors.count))]
            let to = survivors[Int(random.next() % UInt64(survivors.count))]
            let reference = fixture.graph.addReference(
                from: from, to: to, ownership: .strong, role: .storedProperty(name: "late"))
            if random.next() % 4 == 0, let reference { fixture.graph.removeReference(reference) }
        }
        let full = fixture.graph.snapshot()
        for id in survivors {
            let scoped = fixture.graph.snapshot(.holders(of: [id], within: 1))
            let expected = full.references(to: id).map(\.id)
            #expect(scoped.references(to: id).map(\.id) == expected)
        }
        withExtendedLifetime(fixture.members) {}
    }
}
