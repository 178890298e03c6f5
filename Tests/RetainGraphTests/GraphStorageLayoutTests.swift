import Testing
import _TestSupport

@testable import RetainGraph

@Suite("Graph storage layout")
struct GraphStorageLayoutTests {
    @Test("A recorded reference without a stack trace costs at most 64 bytes of slab")
    func slotIsSmall() {
        // One slot per reference, plus 4 bytes in the free list while the slot is free.
        let stride = MemoryLayout<GraphStorage.Slot>.stride
        print("GraphStorage.Slot stride: \(stride) bytes")
        #expect(stride + MemoryLayout<UInt32>.stride <= 64)
    }

    @Test("Least rotation and period of rank sequences")
    func rotationHelpers() {
        #expect(GraphSnapshot.leastRotation(of: [3, 1, 2]) == 1)
        #expect(GraphSnapshot.leastRotation(of: [2, 1, 1, 2, 1]) == 1)
        #expect(GraphSnapshot.leastRotation(of: [1, 1, 1]) == 0)
        #expect(GraphSnapshot.period(of: [1, 2, 1, 2]) == 2)
        #expect(GraphSnapshot.period(of: [1, 2, 1]) == 3)
        #expect(GraphSnapshot.period(of: [5, 5, 5]) == 1)
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
