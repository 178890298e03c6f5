import HeapCensus
import RetainGraph
import Testing

/// Two objects that hold each other: a reference cycle in the heap.
final class CycleHalf: @unchecked Sendable {
    var other: CycleHalf?
}

/// A type no other test allocates: the census meets it for the first time in its test.
final class FirstSeen: @unchecked Sendable {
    let leaf = Leaf()
}

/// Held by a global variable for the test below.
final class GloballyHeld: @unchecked Sendable {
    let leaf = Leaf()
}

nonisolated(unsafe) var globallyHeld: GloballyHeld?

@Suite(.serialized) struct HeapGraphAnalysisTests {
    init() { HeapCensus.start() }

    @Test func aReferenceCycleInTheHeapIsAStrongComponentOfItsGraph() throws {
        let first = CycleHalf()
        let second = CycleHalf()
        first.other = second
        second.other = first
        defer { first.other = nil }
        let heap = HeapCensus.snapshot()
        let a = CompactGraph.NodeID(try #require(heap.id(of: first)).rawValue)
        let b = CompactGraph.NodeID(try #require(heap.id(of: second)).rawValue)
        let components = heap.graph.strongComponents()
        #expect(components.component(of: a) == components.component(of: b))
        #expect(components.isInCycle(a))
        let cycle = try #require(heap.graph.cycle(through: a, components: components))
        #expect(Set(cycle.map(\.from)) == [a, b])
        #expect(
            cycle.allSatisfy { heap.graph.role(ofEdge: $0.edge) == .storedProperty(name: "other") })
        #expect(cycle.allSatisfy { heap.graph.isFoundInHeap($0.edge) })
    }

    @Test func aGlobalThatHoldsAnObjectIsARootAndPathsStartThere() throws {
        globallyHeld = GloballyHeld()
        defer { globallyHeld = nil }
        let heap = HeapCensus.snapshot()
        let holder = try #require(globallyHeld)
        let held = CompactGraph.NodeID(try #require(heap.id(of: holder)).rawValue)
        let leaf = CompactGraph.NodeID(try #require(heap.id(of: holder.leaf)).rawValue)
        let path = try #require(heap.graph.pathFromRoot(to: leaf))
        let root = try #require(path.first?.from)
        // The root is a holder node after the objects: the global variable itself.
        #expect(Int(root) >= heap.objectCount)
        guard case .heapHolder(.globalVariable(let name))? = heap.graph.rootKind(of: root) else {
            Issue.record("the path starts at \(String(describing: heap.graph.rootKind(of: root)))")
            return
        }
        #expect(name.contains("globallyHeld"))
        #expect(path.map(\.to) == [held, leaf])
        #expect(
            path.map { heap.graph.role(ofEdge: $0.edge) } == [
                .heldBy(.globalVariable), .storedProperty(name: "leaf"),
            ])
        #expect(heap.graph.typeName(of: leaf) == "HeapCensusTests.Leaf")
        #expect(heap.graph.address(of: leaf) == address(of: holder.leaf))
    }

    @Test func objectsOfATypeMetForTheFirstTimeAreReadWithTheirReferences() throws {
        let objects = (0..<64).map { _ in FirstSeen() }
        let heap = HeapCensus.snapshot()
        for object in objects {
            let id = try #require(heap.id(of: object))
            #expect(heap[id].typeName == "HeapCensusTests.FirstSeen")
            let references = heap.references(from: id)
            #expect(references.map(\.role) == [.storedProperty(name: "leaf")])
            #expect(references.first.map { heap[$0.to].address } == address(of: object.leaf))
        }
    }
}

private func address(of object: AnyObject) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
}
