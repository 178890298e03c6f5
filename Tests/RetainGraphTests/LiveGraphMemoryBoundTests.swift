import RetainGraph
import Testing
import _TestSupport

@Suite("LiveGraph bounds its own memory when nobody reads it")
struct LiveGraphMemoryBoundTests {
    @Test("Dead objects' memory is given back without a read: the allocator reuses their addresses")
    func deadObjectsMemoryIsReusedWithoutReads() {
        // Written as a user would: register short-lived objects and never read the graph.
        let graph = LiveGraph()
        var addresses = Set<UInt>()
        for tag in 0..<20_000 {
            let object = TestOwner(tag: tag)
            graph.register(object)
            addresses.insert(UInt(bitPattern: ObjectIdentifier(object)))
        }
        // Were every dead object's memory pinned until a read, each of the 20,000 objects
        // would have an address of its own. Pruned by the graph itself (at most about 4,096
        // dead ones wait at a time), their blocks are handed out again (about half of the
        // addresses were new ones in quiet runs here, up to 15,000 with other suites running).
        #expect(addresses.count < 18_000)
    }

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
