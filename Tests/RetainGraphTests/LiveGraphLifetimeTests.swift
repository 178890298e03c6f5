import RetainGraph
import Testing
import _TestSupport

@Suite("LiveGraph lifetimes: pruning, anchoring, identity")
struct LiveGraphLifetimeTests {
    @Test("A dead object's node and its references vanish from the next snapshot")
    func deadNodesArePruned() {
        let graph = LiveGraph()
        let holder = TestHolder()
        let holderID = graph.register(holder)
        var victimID = ObjectID.disabled
        do {
            let victim = TestOwner()
            victimID = graph.register(victim)
            graph.addReference(
                from: holderID, to: victimID, ownership: .strong,
                role: .storedProperty(name: "victim"))
            graph.addReference(
                from: victimID, to: holderID, ownership: .weak, role: .capture(name: "self"))
            #expect(counts(graph) == [2, 2])
            withExtendedLifetime(victim) {}
        }
        let snapshot = graph.snapshot()
        #expect(snapshot.node(victimID) == nil)
        #expect(snapshot.references.isEmpty)
        #expect(counts(graph) == [1, 0])
        withExtendedLifetime(holder) {}
    }

    @Test("Anchored nodes go with their anchor when the anchor's object dies")
    func anchoredNodesDieWithTheirObject() {
        let graph = LiveGraph()
        let owner = TestOwner()
        let ownerID = graph.register(owner)
        var closures: [ObjectID] = []
        do {
            let timer = TestHolder()
            let timerID = graph.register(timer, kind: .timer)
            let closure = graph.registerAnchored(
                kind: .closure, typeName: "closure", anchor: timerID)
            let inner = graph.registerAnchored(kind: .closure, typeName: "closure", anchor: closure)
            closures = [closure, inner]
            graph.addReference(from: timerID, to: closure, ownership: .strong, role: .actionClosure)
            graph.addReference(
                from: closure, to: inner, ownership: .strong, role: .capture(name: "f"))
            graph.addReference(
                from: inner, to: ownerID, ownership: .strong, role: .capture(name: "self"))
            #expect(counts(graph) == [4, 3])
            withExtendedLifetime(timer) {}
        }
        let snapshot = graph.snapshot()
        #expect(closures.allSatisfy { snapshot.node($0) == nil })
        #expect(snapshot.nodes.map(\.id) == [ownerID])
        #expect(snapshot.references.isEmpty)
        withExtendedLifetime(owner) {}
    }

    @Test("Anchored nodes go with their anchor when the anchor is removed explicitly")
    func anchoredNodesDieWithRemovedAnchor() {
        let graph = LiveGraph()
        let owner = TestOwner()
        let timer = TestHolder()
        let ownerID = graph.register(owner)
        let timerID = graph.register(timer, kind: .timer)
        let closure = graph.registerAnchored(kind: .closure, typeName: "closure", anchor: timerID)
        graph.addReference(from: timerID, to: closure, ownership: .strong, role: .actionClosure)
        graph.addReference(
            from: closure, to: ownerID, ownership: .strong, role: .capture(name: "self"))
        graph.removeNode(timerID)
        let snapshot = graph.snapshot()
        #expect(snapshot.node(closure) == nil)
        #expect(snapshot.references.isEmpty)
        #expect(counts(graph) == [1, 0])
        #expect(
            graph.registerAnchored(kind: .closure, typeName: "closure", anchor: timerID)
                == .disabled)
        withExtendedLifetime((owner, timer)) {}
    }

    @Test(
        "A dead object's address is not reused while its node exists; a newcomer there later gets a new identity and none of the old references"
    )
    func addressReuseMakesANewIdentity() throws {
        let graph = LiveGraph()
        let holder = TestHolder()
        let holderID = graph.register(holder)
        var oldID = ObjectID.disabled
        var address: UInt = 0
        do {
            let first = TestOwner(tag: 1)
            oldID = graph.register(first)
            address = UInt(bitPattern: ObjectIdentifier(first))
            graph.addReference(from: holderID, to: oldID, ownership: .strong, role: .target)
        }
        // The graph pins the dead object's memory until a read prunes its node, so nothing can
        // be born at its address before then.
        var misses: [TestOwner] = (0..<1_000).map { TestOwner(tag: $0) }
        #expect(!misses.contains { UInt(bitPattern: ObjectIdentifier($0)) == address })
        #expect(graph.counts().nodes == 1)  // the holder: the dead object's node went
        // The allocator hands a freed block of the same size back quickly; keep the misses alive
        // so it must move on.
        var reused: TestOwner?
        for tag in 0..<100_000 {
            let candidate = TestOwner(tag: tag)
            if UInt(bitPattern: ObjectIdentifier(candidate)) == address {
                reused = candidate
                break
            }
            misses.append(candidate)
        }
        let newcomer = try #require(reused, "the allocator never reused the address")
        #expect(graph.id(of: newcomer) == nil)
        let newID = graph.register(newcomer)
        #expect(newID != oldID && newID > oldID)
        let snapshot = graph.snapshot()
        #expect(snapshot.node(oldID) == nil)
        #expect(snapshot.node(newID)?.address == address)
        #expect(snapshot.references(to: newID).isEmpty)
        #expect(
            graph.addReference(from: holderID, to: oldID, ownership: .strong, role: .target) == nil)
        withExtendedLifetime((holder, misses)) {}
    }

    @Test("removeAll forgets everything but never reuses an identity")
    func removeAllKeepsIdentitiesUnique() throws {
        let graph = LiveGraph()
        let a = TestOwner()
        let b = TestHolder()
        let aID = graph.register(a)
        let oldReference = try #require(
            graph.addReference(from: aID, to: aID, ownership: .strong, role: .target))
        graph.removeAll()
        #expect(counts(graph) == [0, 0])
        #expect(graph.id(of: a) == nil)
        let bID = graph.register(b)
        let aAgain = graph.register(a)
        #expect(bID != aID && aAgain != aID)
        let fresh = try #require(
            graph.addReference(from: bID, to: aAgain, ownership: .strong, role: .target))
        graph.removeReference(oldReference)
        #expect(graph.snapshot().references.map(\.id) == [fresh])
        graph.removeNode(aID)
        #expect(counts(graph) == [2, 1])
        withExtendedLifetime((a, b)) {}
    }

    @Test("Many removals are swept in batches and counts stay exact")
    func batchedSweepKeepsCountsExact() {
        let graph = LiveGraph()
        let objects = (0..<500).map { TestOwner(tag: $0) }
        let ids = objects.map { graph.register($0) }
        for (from, to) in zip(ids, ids.dropFirst()) {
            graph.addReference(from: from, to: to, ownership: .strong, role: .target)
        }
        for id in ids where id.rawValue.isMultiple(of: 2) { graph.removeNode(id) }
        let snapshot = graph.snapshot()
        #expect(snapshot.nodes.count == 250)
        #expect(snapshot.references.isEmpty)
        #expect(counts(graph) == [250, 0])
        withExtendedLifetime(objects) {}
    }
}
