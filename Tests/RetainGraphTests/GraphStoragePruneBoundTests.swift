import Testing
import _TestSupport

@testable import RetainGraph

@Suite("Graph storage: the prune bound")
struct GraphStoragePruneBoundTests {
    /// The nodes the graph holds right now, living or dead, without pruning.
    func recordedNodes(_ graph: LiveGraph) -> Int { graph.storage.withLock { $0.nodeCount } }

    @Test("With no reads the node count never exceeds max(4,096, twice the count after a prune)")
    func nodeCountStaysUnderTheBound() {
        let graph = LiveGraph()
        let living = (0..<5_000).map { TestOwner(tag: $0) }
        for owner in living { graph.register(owner) }
        var highest = 0
        for tag in 0..<40_000 {
            graph.register(TestOwner(tag: tag))
            highest = max(highest, recordedNodes(graph))
        }
        // A prune leaves the 5,000 living nodes and the one being registered (its caller holds
        // it), so the bound is 2 × 5,001 nodes.
        #expect(highest <= 2 * (living.count + 1))
        #expect(highest >= GraphStorage.minimumPruneThreshold)  // it did let nodes pile up
        #expect(graph.storage.withLock { $0.pruneThreshold } == 2 * (living.count + 1))
        withExtendedLifetime(living) {}
    }

    @Test("A read's prune resets the threshold to twice what it left")
    func readResetsTheThreshold() {
        let graph = LiveGraph()
        do {
            let living = (0..<3_000).map { TestOwner(tag: $0) }
            for owner in living { graph.register(owner) }
            #expect(graph.counts().nodes == living.count)
            #expect(graph.storage.withLock { $0.pruneThreshold } == 6_000)
        }
        #expect(graph.counts().nodes == 0)
        #expect(
            graph.storage.withLock { $0.pruneThreshold } == GraphStorage.minimumPruneThreshold)
    }
}
