import Foundation
import ProcessAttach
import Testing

/// Healthy and leaked instances of one type, mixed (issue 31): "who holds it" and growth say
/// how each group is held, so the few leaked never hide behind the many healthy.
@Suite("Healthy and leaked instances, mixed", .timeLimit(.minutes(10)))
struct MixedHoldersTests {
    @Test("Who holds 100 watchers: 97 by the registry, the 3 leaked in unreachable cycles")
    func whoHoldsGroupsByHolding() throws {
        let target = try AttachTargets.start("attach-mixed-holders")
        let heap = try HeapSnapshot.capture(processID: target.pid)
        let watchers = heap.objects(ofType: "attach_mixed_holders.Watcher")
        #expect(watchers.count == 100)
        let groups = heap.holdingGroups(of: watchers)
        #expect(groups.map(\.count) == [97, 3])
        guard groups.count == 2 else { return }
        guard case .path(let path) = groups[0].holding, case .globalVariable = path.holder else {
            Issue.record("the 97 are held by \(groups[0].summary(in: heap))")
            return
        }
        guard case .unreachableCycle(let cycle, _) = groups[1].holding else {
            Issue.record("the 3 are \(groups[1].summary(in: heap))")
            return
        }
        #expect(cycle.contains { $0.role.isCapture })
        let text = heap.whoHoldsText("attach_mixed_holders.Watcher")
        #expect(text.contains("100 live objects, held 2 ways"))
        #expect(text.contains("\n97 held by global variable attach_mixed_holders.registry"))
        #expect(text.contains("\n3 in unreachable cycles ("))
        #expect(target.isRunningUntraced)
    }

    @Test("Growth says how the new instances are held: 29 in cycles, 1 held by the pool")
    func growthGroupsTheNewInstances() throws {
        let target = try AttachTargets.start("attach-mixed-holders")
        let before = try HeapSnapshot.capture(processID: target.pid)
        target.send("lease 30")
        _ = try target.waitForLine { $0 == "leased 31" }
        let after = try HeapSnapshot.capture(processID: target.pid)
        let growth = HeapComparison(from: before, to: after)
        let leases = try #require(
            growth.grown.first { $0.typeName == "attach_mixed_holders.PooledLease" })
        // The one that was `current` before died: 1 → 30. Of the 30 new ones, 29 leak and one
        // is held.
        #expect(leases.growth == 29)
        #expect(leases.newHolders.map(\.count) == [29, 1])
        guard leases.newHolders.count == 2 else { return }
        guard case .unreachableCycle = leases.newHolders[0].holding else {
            Issue.record("the 29 are \(leases.newHolders[0].summary(in: after))")
            return
        }
        guard case .path(let path) = leases.newHolders[1].holding else {
            Issue.record("the 1 is \(leases.newHolders[1].summary(in: after))")
            return
        }
        #expect(path.references.last?.role == .storedProperty(name: "current"))
        #expect(growth.text.contains("attach_mixed_holders.PooledLease: +29 (1 → 30)"))
        let lines = growth.text.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("  29 in unreachable cycles (") })
        #expect(
            lines.contains { $0.hasPrefix("  1 held by global variable attach_mixed_holders.pool") }
        )
    }
}
