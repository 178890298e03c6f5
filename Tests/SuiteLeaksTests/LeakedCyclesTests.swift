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

/// A hub in a cycle with two spokes: its shortest loop (hub ⇄ left spoke) does not pass through
/// every type of the cycle.
final class TitledHub {
    var left: TitledLeftSpoke?
    var right: TitledRightSpoke?
}

final class TitledLeftSpoke {
    var hub: TitledHub?
}

final class TitledRightSpoke {
    var hub: TitledHub?
}

/// Holds a callback made by a generic function: its closure context's captures are read
/// conservatively, and its type name says nothing of them.
final class GenericCallbackOwner {
    var callback: (() -> Void)?
}

/// A closure capturing `value`, whose context's layout depends on `T`.
@inline(never)
func callback<T: AnyObject>(capturing value: T) -> () -> Void {
    { _ = value }
}

/// Makes the hub cycle and the generic closure cycle, and drops them.
@inline(never)
func makeShapedCycles() {
    let hub = TitledHub()
    hub.left = TitledLeftSpoke()
    hub.left?.hub = hub
    hub.right = TitledRightSpoke()
    hub.right?.hub = hub
    let owner = GenericCallbackOwner()
    owner.callback = callback(capturing: owner)
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

    /// What a check said, and what a snapshot says now of the objects of `type` (how many,
    /// and what holds the first few): why a check that did not report them did not.
    static func why(_ leaks: LeakedCycles, missed type: String) -> String {
        let heap = HeapCensus.snapshot()
        let objects = heap.objects(ofType: "SuiteLeaksTests.\(type)")
        let paths = objects.prefix(4).map {
            heap.retentionPath(to: $0)?.description ?? "no path from a holder"
        }
        return "\(leaks.text)\n\(objects.count) \(type) in a snapshot now; the first held by:\n"
            + paths.joined(separator: "\n")
    }

    @Test("A cycle nothing reaches is found, grouped, with its references named and sizes")
    func findsTheUnreachableCycle() throws {
        makeCycles()
        let leaks = LeakedCycles.check()
        let orphans = Self.groups(leaks, mentioning: "OrphanNode")
        let group = try #require(orphans.first, "\(Self.why(leaks, missed: "OrphanNode"))")
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
        let firstCheck = LeakedCycles.check()
        let first = try #require(
            Self.groups(firstCheck, mentioning: "OrphanNode").first,
            "\(Self.why(firstCheck, missed: "OrphanNode"))")
        makeCycles()
        let secondCheck = LeakedCycles.check()
        let second = try #require(
            Self.groups(secondCheck, mentioning: "OrphanNode").first,
            "\(Self.why(secondCheck, missed: "OrphanNode"))")
        #expect(first.fingerprint == second.fingerprint)
        #expect(second.cycleCount >= 2, "both cycles in one group")
    }

    @Test("A group's report round-trips through JSON and names where its objects were made")
    func reportCarriesCreationSites() throws {
        makeCycles()
        let leaks = LeakedCycles.check()
        let group = try #require(
            Self.groups(leaks, mentioning: "OrphanNode").first,
            "\(Self.why(leaks, missed: "OrphanNode"))")
        let decoded = try LeakReport.decode(from: group.report.jsonData())
        #expect(decoded.fingerprint == group.fingerprint)
        let frames = decoded.creationTraces.flatMap(\.frames)
        #expect(frames.contains { $0.contains("LeakedCyclesTests.swift:") }, "\(frames)")
        #expect(group.sites.contains { $0.site.description.hasPrefix("LeakedCyclesTests.swift:") })
        // Every site with its count, and the line that made the objects on each trace.
        let sites = try #require(decoded.creationSites)
        #expect(sites.reduce(0) { $0 + $1.count } == group.objectCount, "\(sites)")
        #expect(sites.allSatisfy { $0.typeName.hasSuffix("OrphanNode") && !$0.frames.isEmpty })
        #expect(
            sites.allSatisfy { $0.file?.hasSuffix("LeakedCyclesTests.swift") ?? false },
            "\(sites)")
        #expect(decoded.creationTraces.allSatisfy { $0.line != nil && $0.file != nil })
    }

    @Test("A group is titled by every type of its cycles, not the two its sample loop visits")
    func titleNamesEveryType() throws {
        makeShapedCycles()
        let leaks = LeakedCycles.check()
        let group = try #require(
            Self.groups(leaks, mentioning: "TitledHub").first,
            "\(Self.why(leaks, missed: "TitledHub"))")
        #expect(group.types.count == 3, "\(group.types)")
        #expect(group.sample.count == 2, "the shortest loop through the hub")
        #expect(
            leaks.text.contains("TitledHub ⇄ TitledLeftSpoke ⇄ TitledRightSpoke")
                || leaks.text.contains("TitledLeftSpoke ⇄ TitledHub ⇄ TitledRightSpoke")
                || leaks.text.contains("TitledHub ⇄ TitledRightSpoke ⇄ TitledLeftSpoke")
                || leaks.text.contains("TitledRightSpoke ⇄ TitledHub ⇄ TitledLeftSpoke"),
            "\(leaks.text)")
    }

    @Test(
        "A closure context is named by what it captures, and a reference read conservatively is drawn as such"
    )
    func closureContextsAndConservativeReferences() throws {
        makeShapedCycles()
        let leaks = LeakedCycles.check()
        let group = try #require(
            Self.groups(leaks, mentioning: "GenericCallbackOwner").first,
            "\(Self.why(leaks, missed: "GenericCallbackOwner"))")
        let context = try #require(group.sample.first { $0.typeName.hasPrefix("closure context") })
        // The census reads a generic closure's context without its capture list: its type name
        // says nothing, and its capture is a word read conservatively.
        let heap = HeapCensus.snapshot()
        let node = try #require(
            (0..<heap.objectCount).first {
                heap.graph.address(of: CompactGraph.NodeID($0)) == context.address
            })
        #expect(heap.graph.typeName(of: CompactGraph.NodeID(node)) == "closure context")
        #expect(context.ownership == .conservative)
        // The group names it by what it references, and draws the guess as one.
        #expect(context.typeName == "closure context (captures GenericCallbackOwner)")
        #expect(!leaks.text.contains("closure context ⇄"), "\(leaks.text)")
        #expect(!leaks.text.contains("closure context ─"), "\(leaks.text)")
        #expect(
            leaks.text.contains(
                "─(captures GenericCallbackOwner (conservative))⇢ GenericCallbackOwner"),
            "\(leaks.text)")
    }
}
