import Testing
import _TestSupport

@testable import RetainGraph

private final class Box {}

@Suite("Graph storage layout")
struct GraphStorageLayoutTests {
    @Test("A recorded reference without a stack trace costs 24 bytes of slab")
    func slotIsSmall() {
        // One slot per reference (the reverse index included), plus 4 bytes in the free list
        // while the slot is free.
        #expect(MemoryLayout<GraphStorage.Slot>.stride == 24)
    }

    @Test("A recorded node costs a 32-byte row plus two half-full 4-byte index buckets")
    func nodeRowIsSmall() {
        #expect(MemoryLayout<NodeSlot>.stride == 32)
        var graph = GraphStorage()
        let objects = (0..<1_000).map { _ in Box() }
        for object in objects {
            _ = graph.register(object, type: Box.self, kind: .object, label: nil, trace: nil)
        }
        // Each index is kept at most half full: 4-byte buckets, 8 to 16 bytes per node.
        #expect(graph.byID.buckets.count == 2_048)
        #expect(graph.byAddress.buckets.count == 2_048)
        #expect(graph.nodes.count == 1_000)
        graph.removeAll()  // releases the pins
    }

    @Test("Least rotation and period of rank sequences")
    func rotationHelpers() {
        #expect(CycleRotation.leastRotation(of: [3, 1, 2]) == 1)
        #expect(CycleRotation.leastRotation(of: [2, 1, 1, 2, 1]) == 1)
        #expect(CycleRotation.leastRotation(of: [1, 1, 1]) == 0)
        #expect(CycleRotation.period(of: [1, 2, 1, 2]) == 2)
        #expect(CycleRotation.period(of: [1, 2, 1]) == 3)
        #expect(CycleRotation.period(of: [5, 5, 5]) == 1)
    }

    @Test("Sparse identities are indexed by binary search, dense ones by table, alike")
    func sparseAndDenseIdentities() {
        for step: UInt64 in [1, 3, 1_000_003] {
            var graph = GraphBuilder(firstID: 10, idStep: step)
            let ids = graph.cycle(["App.A", "App.B", "App.C"])
            let snapshot = graph.snapshot
            #expect(ids.allSatisfy { snapshot.node($0) != nil })
            #expect(snapshot.node(ObjectID(rawValue: 9)) == nil)
            #expect(snapshot.node(ObjectID(rawValue: 10 + step * 3)) == nil)
            #expect(snapshot.stronglyConnectedComponents().cycles == [ids])
        }
    }
}
