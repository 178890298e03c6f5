import Dispatch
import HeapCensus
import Synchronization
import Testing
import _TestSupport

/// An object your code makes and frees by the thousand, on several threads at once.
final class ChurnedItem: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// An object your code makes by the thousand on several threads at once, and keeps.
final class CrowdedItem: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// The census's table under churn, as a user sees it: public API only. Freeing objects in any
/// order, on threads that free at the same moment, must forget exactly the freed ones. An entry
/// lost or left behind (a removal that leaves a gap in a run of the table, or forgets the wrong
/// block) shows as a count that is off: a freed block glibc hands to a new object of the same
/// type is then recorded twice, or a live one not at all.
@Suite("The census forgets exactly the objects freed, in any order, on any thread")
struct CensusTableChurnTests {
    static let typeName = "HeapCensusTests.ChurnedItem"

    static func liveItems() -> Int {
        HeapCensus.counts().countsByType().first { $0.typeName == typeName }?.count ?? 0
    }

    @Test("Four threads making and freeing objects in shuffled order leave the kept ones counted")
    func shuffledFreesOnFourThreadsLeaveExactCounts() {
        #expect(HeapCensus.start() || HeapCensus.isRunning)
        let threads = 4
        let rounds = 8
        let perRound = 5_000
        // Each thread keeps every fourth object of each round and frees the rest, in an order
        // its seed shuffles; the kept ones are handed back to be counted, then freed.
        let kept = Mutex<[[ChurnedItem]]>(Array(repeating: [], count: threads))
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var generator = SplitMix64(seed: UInt64(thread) &+ 2_026)
            var mine: [ChurnedItem] = []
            for round in 0..<rounds {
                var items = (0..<perRound).map { ChurnedItem(serial: round * perRound + $0) }
                items.shuffle(using: &generator)
                for (position, item) in items.enumerated() where position % 4 == 0 {
                    mine.append(item)
                }
                // The others are freed one by one, in the shuffled order.
                while let item = items.popLast() { _ = item }
            }
            kept.withLock { $0[thread] = mine }
        }
        let expected = kept.withLock { $0.reduce(0) { $0 + $1.count } }
        #expect(expected == threads * rounds * perRound / 4)
        #expect(Self.liveItems() == expected)
        kept.withLock { $0 = [] }
        #expect(Self.liveItems() == 0)
    }

    @Test("Four threads making objects at once, each table part growing under them, count them all")
    func simultaneousAllocationsWhileTablePartsGrowAreAllCounted() {
        #expect(HeapCensus.start() || HeapCensus.isRunning)
        let typeName = "HeapCensusTests.CrowdedItem"
        func live() -> Int {
            HeapCensus.counts().countsByType().first { $0.typeName == typeName }?.count ?? 0
        }
        let threads = 4
        let perThread = 60_000
        // Every part of the table passes its load limit and grows several times while the
        // threads store into it: an entry stored without the part's lock, or into the slots a
        // growth is copying, is lost, and the count falls short.
        let made = Mutex<[[CrowdedItem]]>(Array(repeating: [], count: threads))
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var mine: [CrowdedItem] = []
            mine.reserveCapacity(perThread)
            for serial in 0..<perThread { mine.append(CrowdedItem(serial: serial)) }
            made.withLock { $0[thread] = mine }
        }
        #expect(live() == threads * perThread)
        made.withLock { $0 = [] }
        #expect(live() == 0)
    }
}
