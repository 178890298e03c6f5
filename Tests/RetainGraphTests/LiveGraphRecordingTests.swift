import RetainGraph
import Testing
import _TestSupport

/// Node and reference counts of a graph, as a comparable pair.
func counts(_ graph: LiveGraph) -> [Int] {
    let (nodes, references) = graph.counts()
    return [nodes, references]
}

@Suite("LiveGraph recording")
struct LiveGraphRecordingTests {
    @Test("Registering the same object twice returns one identity; a kind upgrades a plain node")
    func registrationIsIdempotent() throws {
        let graph = LiveGraph()
        let owner = TestOwner()
        let first = graph.register(owner, label: "first label")
        let second = graph.register(owner, kind: .timer, label: "second label")
        #expect(first == second)
        #expect(graph.id(of: owner) == first)
        let node = try #require(graph.snapshot().node(first))
        #expect(node.kind == .timer)
        #expect(node.label == "first label")
        #expect(node.typeName == "_TestSupport.TestOwner")
        #expect(node.shortTypeName == "TestOwner")
        #expect(node.address == UInt(bitPattern: ObjectIdentifier(owner)))
        #expect(counts(graph) == [1, 0])
    }

    @Test("Detached roots are one per kind; object roots are keyed by their object")
    func roots() {
        let graph = LiveGraph()
        let process = graph.registerRoot(.process)
        #expect(graph.registerRoot(.process) == process)
        let custom = graph.registerRoot(.custom(name: "cache"))
        #expect(custom != process)
        let loopObject = TestRootObject()
        let loop = graph.registerRoot(.runLoop(thread: "main"), for: loopObject)
        #expect(graph.registerRoot(.runLoop(thread: "main"), for: loopObject) == loop)
        let snapshot = graph.snapshot()
        #expect(Set(snapshot.roots.map(\.id)) == [process, custom, loop])
        #expect(snapshot.node(process)?.typeName == "Process")
        withExtendedLifetime(loopObject) {}
    }

    @Test("Object-to-object references register both ends and appear in the snapshot")
    func objectReferences() throws {
        let graph = LiveGraph()
        let owner = TestOwner()
        let holder = TestHolder()
        let reference = try #require(
            graph.addReference(
                from: holder, to: owner, ownership: .strong, role: .storedProperty(name: "owner")))
        let snapshot = graph.snapshot()
        let recorded = try #require(snapshot.references.first)
        #expect(snapshot.references.count == 1)
        #expect(recorded.id == reference)
        #expect(recorded.from == graph.id(of: holder) && recorded.to == graph.id(of: owner))
        #expect(recorded.role == .storedProperty(name: "owner"))
        withExtendedLifetime((owner, holder)) {}
    }

    @Test("A stale reference identity removes nothing, even after its slot was reused")
    func staleReferenceRemovalIsANoOp() throws {
        let graph = LiveGraph()
        let a = graph.registerRoot(.custom(name: "a"))
        let b = graph.registerRoot(.custom(name: "b"))
        let c = graph.registerRoot(.custom(name: "c"))
        let old = try #require(
            graph.addReference(from: a, to: b, ownership: .strong, role: .target))
        graph.removeReference(old)
        let fresh = try #require(
            graph.addReference(from: a, to: b, ownership: .weak, role: .proxyTarget))
        graph.removeReference(old)
        graph.removeReference(old)
        #expect(counts(graph) == [3, 1])
        #expect(graph.snapshot().references.map(\.id) == [fresh])
        // A reference whose node was removed is gone, and removing it again does nothing.
        let toC = try #require(
            graph.addReference(from: a, to: c, ownership: .strong, role: .target))
        graph.removeNode(c)
        graph.removeReference(toC)
        #expect(counts(graph) == [2, 1])
        #expect(graph.addReference(from: a, to: c, ownership: .strong, role: .target) == nil)
    }

    @Test("removeReferences(from:where:) removes only the matching references of that holder")
    func removeMatchingReferences() {
        let graph = LiveGraph()
        let root = graph.registerRoot(.custom(name: "root"))
        let other = graph.registerRoot(.custom(name: "other"))
        let timer = graph.registerRoot(.custom(name: "timer"))
        graph.addReference(from: root, to: timer, ownership: .strong, role: .scheduled(mode: "a"))
        graph.addReference(from: root, to: timer, ownership: .strong, role: .scheduled(mode: "b"))
        graph.addReference(from: root, to: other, ownership: .strong, role: .target)
        graph.addReference(from: other, to: timer, ownership: .strong, role: .scheduled(mode: "a"))
        graph.removeReferences(from: root) { $0.role.name == "scheduled" }
        let left = graph.snapshot().references
        #expect(left.count == 2)
        #expect(left.contains { $0.from == root && $0.role == .target })
        #expect(left.contains { $0.from == other && $0.role == .scheduled(mode: "a") })
    }

    @Test("A disabled graph records nothing and keeps what it had")
    func disabledGraphRecordsNothing() {
        let graph = LiveGraph(isEnabled: false)
        let owner = TestOwner()
        let holder = TestHolder()
        #expect(graph.register(owner) == .disabled)
        #expect(graph.registerRoot(.process) == .disabled)
        #expect(
            graph.registerAnchored(kind: .closure, typeName: "closure", anchor: .disabled)
                == .disabled)
        #expect(
            graph.addReference(from: holder, to: owner, ownership: .strong, role: .target) == nil)
        #expect(graph.id(of: owner) == nil)
        #expect(counts(graph) == [0, 0])
        graph.isEnabled = true
        let id = graph.register(owner)
        #expect(id != .disabled)
        graph.isEnabled = false
        #expect(graph.register(holder) == .disabled)
        #expect(graph.addReference(from: id, to: id, ownership: .strong, role: .target) == nil)
        #expect(graph.snapshot().nodes.map(\.id) == [id])
        withExtendedLifetime((owner, holder)) {}
    }

    @Test("Labels and timer information are recorded on the node")
    func labelsAndTimerInfo() throws {
        let graph = LiveGraph()
        let timer = TestHolder()
        let id = graph.register(timer, kind: .timer)
        graph.setLabel("clock", for: id)
        graph.setTimerInfo(TimerInfo(repeats: true, interval: 0.5, isScheduled: true), for: id)
        graph.updateTimerInfo(for: id) { $0.fireCount += 2 }
        let node = try #require(graph.snapshot().node(id))
        #expect(node.label == "clock")
        #expect(node.timer?.fireCount == 2 && node.timer?.repeats == true)
        withExtendedLifetime(timer) {}
    }
}
