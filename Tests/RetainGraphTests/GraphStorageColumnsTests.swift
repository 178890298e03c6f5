import RetainGraph
import StackTraces
import Testing
import _TestSupport

@testable import RetainGraph

private final class Item {}

@Suite("Graph storage in columns: slot reuse and indexes")
struct GraphStorageColumnsTests {
    @Test("A reused node slot shows only its new node's label, type, trace and references")
    func reusedSlotsCarryNothingOver() {
        let graph = LiveGraph()
        let keeper = TestHolder()
        let keeperID = graph.register(keeper, label: "keeper")
        do {
            // Labelled, traced, holding and held: everything a slot's side tables can carry.
            let doomed = (0..<100).map { _ in TestOwner() }
            for (index, object) in doomed.enumerated() {
                let id = graph.register(
                    object, kind: .timer, label: "old \(index)",
                    creationTrace: StackTrace.capture())
                graph.addReference(
                    from: keeperID, to: id, ownership: .weak, role: .storedProperty(name: "old"))
                graph.addReference(
                    from: id, to: keeperID, ownership: .strong, role: .capture(name: "old"))
                graph.setTimerInfo(TimerInfo(repeats: true, interval: 1), for: id)
            }
            withExtendedLifetime(doomed) {}
        }
        #expect(counts(graph) == [1, 0])  // the prune frees the 100 slots
        let fresh = (0..<100).map { _ in Item() }
        let freshIDs = fresh.map { graph.register($0) }
        let snapshot = graph.snapshot()
        #expect(snapshot.nodes.count == 101)
        for id in freshIDs {
            let node = snapshot.node(id)
            #expect(node?.label == nil)
            #expect(node?.kind == .object)
            #expect(node?.typeName.hasSuffix("Item") == true)
            #expect(node?.creationTrace == nil)
            #expect(node?.timer == nil)
            #expect(snapshot.references(to: id).isEmpty)
            #expect(snapshot.references(from: id).isEmpty)
        }
        #expect(snapshot.node(keeperID)?.label == "keeper")
        #expect(snapshot.references.isEmpty)
        withExtendedLifetime((keeper, fresh)) {}
    }

    @Test("The slot index finds exactly the keys a dictionary would, through heavy churn")
    func slotIndexMatchesADictionary() {
        var nodes = ChunkedArray<NodeSlot>()
        var index = SlotIndex(byAddress: false)
        var model: [UInt64: UInt32] = [:]
        var free: [UInt32] = []
        var random = SystemRandomNumberGenerator()
        var nextKey: UInt64 = 1
        var peak = 0
        for step in 0..<20_000 {
            // Grow for a while, then mostly shrink, so that runs form and break up.
            let odds = step < 12_000 ? 7 : 3
            let inserting = model.isEmpty || Int.random(in: 0..<10, using: &random) < odds
            if inserting {
                let slot: UInt32
                if let reused = free.popLast() {
                    slot = reused
                } else {
                    slot = UInt32(nodes.count)
                    nodes.append(NodeSlot())
                }
                nodes[Int(slot)].id = nextKey
                index.insert(slot, in: nodes)
                model[nextKey] = slot
                nextKey += 1
                peak = max(peak, model.count)
            } else if let (key, slot) = model.randomElement(using: &random) {
                index.remove(slot, in: nodes)
                nodes[Int(slot)].id = 0
                model[key] = nil
                free.append(slot)
            }
        }
        #expect(index.count == model.count)
        for key in 1..<nextKey { #expect(index.find(key, in: nodes) == model[key]) }
        // At most half full at its peak, and never shrunk (like a Swift dictionary).
        #expect(index.buckets.count >= 2 * peak)
        #expect(index.buckets.count <= max(16, 4 * peak))
    }

    @Test("Chunked arrays keep their elements across chunk boundaries")
    func chunkedArrayAcrossChunks() {
        var array = ChunkedArray<Int>()
        for value in 0..<10_000 { array.append(value * 3) }
        array[4_095] += 1
        array[4_096] += 2
        #expect(array.count == 10_000)
        #expect(array[4_095] == 4_095 * 3 + 1)
        #expect(array[4_096] == 4_096 * 3 + 2)
        var seen = 0
        array.forEachChunk { chunk, base in
            for offset in chunk.indices where base + offset != 4_095 && base + offset != 4_096 {
                #expect(chunk[offset] == (base + offset) * 3)
            }
            seen += chunk.count
        }
        #expect(seen == 10_000)
        let expected = 3 * (10_000 * 9_999 / 2) + 3
        #expect(array.reduce(0, +) == expected)
    }
}
