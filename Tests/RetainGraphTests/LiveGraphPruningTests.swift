import RetainGraph
import Testing
import _TestSupport

@Suite("LiveGraph prunes its dead objects when nobody reads it")
struct LiveGraphPruningTests {
    @Test("Self-pruning keeps living objects and their references, and drops only the dead")
    func pruningKeepsTheLiving() throws {
        let graph = LiveGraph()
        let holder = TestHolder()
        let holderID = graph.register(holder)
        let living = (0..<3_000).map { TestOwner(tag: $0) }
        for owner in living {
            graph.addReference(
                from: holderID, to: graph.register(owner), ownership: .strong,
                role: .storedProperty(name: "owners"))
        }
        for tag in 0..<30_000 {
            let dying = TestOwner(tag: tag)
            let id = graph.register(dying)
            graph.addReference(
                from: holderID, to: id, ownership: .weak, role: .storedProperty(name: "last"))
        }
        for owner in living { #expect(graph.id(of: owner) != nil) }
        let snapshot = graph.snapshot()
        #expect(snapshot.nodes.count == 1 + living.count)
        #expect(snapshot.references.count == living.count)
        #expect(snapshot.references.allSatisfy { $0.ownership == .strong && $0.from == holderID })
        withExtendedLifetime((holder, living)) {}
    }
}
