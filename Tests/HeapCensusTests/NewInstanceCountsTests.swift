import HeapCensus
import Testing

/// Your code's objects: some kept from before, some freed and made again.
final class ChurnedLease {}

/// `HeapCounts.newInstanceCounts(since:ofTypesNamed:)` as a user calls it: public API only.
@Suite("Instances made between two counts, even where the count stays the same")
struct NewInstanceCountsTests {
    @Test("Freeing five old leases and making five new ones counts five new, not zero")
    func churnIsCountedAsNewInstances() {
        HeapCensus.start()
        var leases = (0..<10).map { _ in ChurnedLease() }
        let name = "HeapCensusTests.ChurnedLease"
        let before = HeapCensus.counts()
        // The live count stays 10: five made (while the old ones live, so at new addresses),
        // then five old ones freed.
        leases += (0..<5).map { _ in ChurnedLease() }
        leases.removeFirst(5)
        let after = HeapCensus.counts()
        let new = after.newInstanceCounts(since: before, ofTypesNamed: [name])
        #expect(after.countsByType().first { $0.typeName == name }?.count == 10)
        #expect(new[name] == 5, "\(new)")
        #expect(after.newInstanceCounts(since: after, ofTypesNamed: [name]).isEmpty)
        withExtendedLifetime(leases) {}
    }
}
