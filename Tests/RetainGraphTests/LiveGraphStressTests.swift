import Foundation
import RetainGraph
import Testing
import _TestSupport

/// What one stress thread recorded and still expects to be live.
private final class WorkerLedger: @unchecked Sendable {
    var objects: [ObjectID: TestOwner] = [:]
    var references: [ReferenceID: (from: ObjectID, to: ObjectID)] = [:]
    var sharedIDs: [ObjectID] = []
    var snapshotsTaken = 0
    var inconsistentSnapshots = 0

    func forget(_ id: ObjectID) {
        objects[id] = nil
        references = references.filter { $0.value.from != id && $0.value.to != id }
    }
}

@Suite("LiveGraph Stress")
struct LiveGraphStressTests {
    static let threadCount = 8
    static let operationsPerThread = 1_500

    @Test("Stress: 8 threads record, remove and snapshot concurrently; counts stay consistent")
    func concurrentRecordingStress() throws {
        let graph = LiveGraph()
        let shared = (0..<4).map { TestHolder(tag: $0) }
        let ledgers = (0..<Self.threadCount).map { _ in WorkerLedger() }
        let group = DispatchGroup()
        for (index, ledger) in ledgers.enumerated() {
            group.enter()
            let thread = Thread {
                Self.work(graph: graph, shared: shared, ledger: ledger, seed: UInt64(index + 1))
                group.leave()
            }
            thread.name = "stress-\(index)"
            thread.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success)

        // Every thread saw the same identities for the shared objects.
        let sharedIDs = Set(ledgers.map(\.sharedIDs))
        #expect(sharedIDs.count == 1)
        #expect(ledgers.allSatisfy { $0.snapshotsTaken > 0 && $0.inconsistentSnapshots == 0 })

        let expectedNodes = shared.count + ledgers.reduce(0) { $0 + $1.objects.count }
        let expectedReferences = ledgers.reduce(0) { $0 + $1.references.count }
        #expect(counts(graph) == [expectedNodes, expectedReferences])
        let snapshot = graph.snapshot()
        #expect(snapshot.nodes.count == expectedNodes)
        let recorded = Set(snapshot.references.compactMap(\.id))
        let expected = Set(ledgers.flatMap(\.references.keys))
        #expect(recorded == expected)
        withExtendedLifetime((shared, ledgers)) {}
    }

    private static func work(
        graph: LiveGraph, shared: [TestHolder], ledger: WorkerLedger, seed: UInt64
    ) {
        var random = SplitMix64(seed: seed)
        ledger.sharedIDs = shared.map { graph.register($0) }
        for step in 0..<operationsPerThread {
            switch random.next() % 10 {
            case 0, 1, 2:
                let object = TestOwner(tag: step)
                ledger.objects[graph.register(object, label: "s\(seed)")] = object
            case 3, 4, 5:
                let ids = Array(ledger.objects.keys)
                guard let from = ids.randomElement(using: &random) else { continue }
                let to =
                    random.next() % 3 == 0
                    ? ledger.sharedIDs[Int(random.next() % UInt64(shared.count))]
                    : ids.randomElement(using: &random) ?? from
                if let reference = graph.addReference(
                    from: from, to: to, ownership: random.next() % 4 == 0 ? .weak : .strong,
                    role: .storedProperty(name: "p"))
                {
                    ledger.references[reference] = (from, to)
                }
            case 6:
                guard let reference = ledger.references.keys.randomElement(using: &random)
                else { continue }
                graph.removeReference(reference)
                ledger.references[reference] = nil
            case 7:
                // Explicit removal.
                guard let id = ledger.objects.keys.randomElement(using: &random) else { continue }
                graph.removeNode(id)
                ledger.forget(id)
            case 8:
                // Death without removal: the graph must prune it.
                guard let id = ledger.objects.keys.randomElement(using: &random) else { continue }
                ledger.forget(id)
            default:
                guard step % 10 == 0 else { continue }
                let snapshot = graph.snapshot()
                ledger.snapshotsTaken += 1
                let known = Set(snapshot.nodes.map(\.id))
                if !snapshot.references.allSatisfy({
                    known.contains($0.from) && known.contains($0.to)
                }) {
                    ledger.inconsistentSnapshots += 1
                }
                _ = snapshot.analyze().components.cycles.count
            }
        }
    }
}
