import HeapCensus
import LeakTracking
import ObjectGraph
import SuiteLeaks
import Testing

/// Objects of these types exist only in these tests, so the checks below look at them alone
/// (other tests of the process may leave cycles of their own behind).
final class OrphanNode {
    var next: OrphanNode?
    var payload = [UInt8](repeating: 7, count: 64)
}

final class WeaklyKeptNode {
    var next: WeaklyKeptNode?
}

final class UnownedKeptNode {
    var next: UnownedKeptNode?
}

final class KeptNode {
    var next: KeptNode?
}

final class WeakGlobalNode {
    var next: WeakGlobalNode?
}

final class RetainedNode {
    var next: RetainedNode?
}

final class ClosureOwner {
    var callback: (() -> Void)?
}

/// Holds references the checks must see as keeping cycles reachable.
final class Keeper {
    weak var weakly: WeaklyKeptNode?
    unowned(safe) var unownedly: UnownedKeptNode
    init(_ node: UnownedKeptNode) { unownedly = node }
}

nonisolated(unsafe) var keptNode: KeptNode?
nonisolated(unsafe) var keeper: Keeper?
/// A weak global: its storage holds a side table, not the object, so no search of globals
/// finds it; the object's weak count does.
nonisolated(unsafe) weak var weakGlobal: WeakGlobalNode?

/// Makes cycles nothing reaches and drops the references this function holds.
@inline(never)
func makeCycles() {
    let first = OrphanNode()
    first.next = OrphanNode()
    first.next?.next = first
    let owner = ClosureOwner()
    owner.callback = { _ = owner }
}

/// Makes, once per process, cycles that a global, a weak reference and an unowned reference
/// still reach (made again, they would orphan the first ones: real leaks).
let reachableCyclesMade: Bool = {
    let weakly = WeaklyKeptNode()
    weakly.next = WeaklyKeptNode()
    weakly.next?.next = weakly
    let unownedly = UnownedKeptNode()
    unownedly.next = UnownedKeptNode()
    unownedly.next?.next = unownedly
    let kept = KeptNode()
    kept.next = KeptNode()
    kept.next?.next = kept
    keptNode = kept
    keeper = Keeper(unownedly)
    keeper?.weakly = weakly
    let global = WeakGlobalNode()
    global.next = WeakGlobalNode()
    global.next?.next = global
    weakGlobal = global
    // Held by a retain no memory holds (as C code keeps a context): an unexplained count.
    let retained = RetainedNode()
    retained.next = RetainedNode()
    retained.next?.next = retained
    _ = Unmanaged.passRetained(retained)
    return true
}()

@Suite("Leaked cycles of a heap (census started in this process)")
struct LeakedCyclesTests {
    init() { HeapCensus.start() }

    /// The groups whose sample mentions a type whose name contains `name`.
    static func groups(_ leaks: LeakedCycles, mentioning name: String) -> [CycleGroup] {
        leaks.groups.filter { group in group.shape.contains { $0.contains(name) } }
    }

    @Test("A cycle nothing reaches is found, grouped, with its references named and sizes")
    func findsTheUnreachableCycle() throws {
        makeCycles()
        let leaks = LeakedCycles.check()
        let orphans = Self.groups(leaks, mentioning: "OrphanNode")
        let group = try #require(orphans.first, "\(leaks.text)")
        #expect(orphans.count == 1)
        #expect(group.cycleCount >= 1)
        #expect(group.shape.allSatisfy { $0.hasSuffix("OrphanNode") })
        #expect(group.sample.count == 2)
        #expect(group.sample.allSatisfy { $0.role.description.contains("next") })
        #expect(group.bytes > 0)
        #expect(group.retainedBytes >= UInt64(group.bytes), "payload arrays are retained too")
        #expect(group.fingerprint == group.report.fingerprint)
        #expect(group.report.retention == .cycle)
        #expect(group.report.cycle?.count == 2)
        let closures = Self.groups(leaks, mentioning: "ClosureOwner")
        #expect(closures.count == 1, "a closure capturing its owner: \(leaks.text)")
        #expect(leaks.text.contains("OrphanNode ⇄ OrphanNode") || leaks.text.contains("OrphanNode"))
    }

    @Test(
        "Cycles that a global, a weak or unowned reference, or an unexplained count keep are not reported"
    )
    func doesNotReportReachableCycles() {
        #expect(reachableCyclesMade)
        let leaks = LeakedCycles.check()
        #expect(Self.groups(leaks, mentioning: "KeptNode").isEmpty, "\(leaks.text)")
        #expect(Self.groups(leaks, mentioning: "WeaklyKeptNode").isEmpty, "\(leaks.text)")
        #expect(Self.groups(leaks, mentioning: "UnownedKeptNode").isEmpty, "\(leaks.text)")
        #expect(Self.groups(leaks, mentioning: "WeakGlobalNode").isEmpty, "\(leaks.text)")
        #expect(Self.groups(leaks, mentioning: "RetainedNode").isEmpty, "\(leaks.text)")
        #expect(weakGlobal != nil)
        withExtendedLifetime(keeper) {}
    }

    @Test("The same shape has the same fingerprint every time it is found")
    func fingerprintsAreStable() throws {
        makeCycles()
        let first = try #require(Self.groups(LeakedCycles.check(), mentioning: "OrphanNode").first)
        makeCycles()
        let second = try #require(Self.groups(LeakedCycles.check(), mentioning: "OrphanNode").first)
        #expect(first.fingerprint == second.fingerprint)
        #expect(second.cycleCount >= 2, "both cycles in one group")
    }

    @Test("A group's report round-trips through JSON and names where its objects were made")
    func reportCarriesCreationSites() throws {
        makeCycles()
        let group = try #require(
            Self.groups(LeakedCycles.check(), mentioning: "OrphanNode").first)
        let decoded = try LeakReport.decode(from: group.report.jsonData())
        #expect(decoded.fingerprint == group.fingerprint)
        let frames = decoded.creationTraces.flatMap(\.frames)
        #expect(frames.contains { $0.contains("LeakedCyclesTests.swift:") }, "\(frames)")
        #expect(group.sites.contains { $0.site.description.hasPrefix("LeakedCyclesTests.swift:") })
    }
}
