import Foundation
import ReferenceReflection
import RetainGraph
import Testing
import TrackedTimers

/// An owner that stores an instrumented timer without declaring the property to the graph.
final class UndeclaredOwner: @unchecked Sendable {
    var timer: RunLoopTimer?
    var ticks = 0
}

@Suite("Undeclared edges around instrumented timers")
struct TrackedTimerDiscoveryTests {
    @Test(
        "S1: the undeclared owner.timer property closes the declared timer ⇒ owner edge into a cycle"
    )
    func strongTargetCycle() throws {
        let graph = LiveGraph()
        let owner = UndeclaredOwner()
        let timer = try RunLoopTimer(interval: 3600, repeats: true, target: owner, graph: graph) {
            owner, _ in owner.ticks += 1
        }
        owner.timer = timer
        defer { timer.invalidate() }
        let ownerID = graph.register(owner)
        let declared = graph.snapshot()
        #expect(!declared.stronglyConnectedComponents().isInCycle(ownerID))

        let enriched = ReferenceWalker(graph: graph).enrich(declared, objects: [owner, timer])
        let toTimer = enriched.references(from: ownerID).first {
            $0.role == .storedProperty(name: "timer")
        }
        #expect(toTimer?.isDiscovered == true)
        #expect(toTimer?.to == timer.graphID)
        #expect(enriched.stronglyConnectedComponents().isInCycle(ownerID))
    }

    @Test("S6b: a closure timer capturing self strongly, with no capture declared, is a cycle")
    func closureCapturingSelfCycle() throws {
        let graph = LiveGraph()
        let owner = UndeclaredOwner()
        let timer = try RunLoopTimer(interval: 3600, repeats: true, graph: graph) { _ in
            owner.ticks += 1
        }
        owner.timer = timer
        defer { timer.invalidate() }
        let ownerID = graph.register(owner)
        let enriched = ReferenceWalker(graph: graph).enrich(
            graph.snapshot(), objects: [owner, timer])
        let components = enriched.stronglyConnectedComponents()
        #expect(components.isInCycle(ownerID))
        let cycle = try #require(enriched.cycle(through: ownerID, components: components))
        #expect(cycle.contains { $0.role == .storedProperty(name: "timer") && $0.isDiscovered })
        // The closure's only capture is the owner: the timer's action captures it.
        #expect(
            cycle.contains {
                $0.role == .closureCapture(property: "action.always", captured: "UndeclaredOwner")
                    && $0.ownership == .strong && $0.to == ownerID
            }, "\(cycle.map { "\($0.role)" })")
    }

    @Test("S6a: the same closure capturing [weak self] makes no cycle")
    func closureCapturingWeakSelf() throws {
        let graph = LiveGraph()
        let owner = UndeclaredOwner()
        let timer = try RunLoopTimer(interval: 3600, repeats: true, graph: graph) {
            [weak owner] _ in
            owner?.ticks += 1
        }
        owner.timer = timer
        defer { timer.invalidate() }
        let ownerID = graph.register(owner)
        let enriched = ReferenceWalker(graph: graph).enrich(
            graph.snapshot(), objects: [owner, timer])
        #expect(!enriched.stronglyConnectedComponents().isInCycle(ownerID))
        #expect(
            enriched.references.contains {
                $0.to == ownerID && $0.ownership == .weak && $0.isDiscovered
            }
        )
    }
}
