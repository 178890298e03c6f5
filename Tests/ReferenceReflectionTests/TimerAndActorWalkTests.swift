import Foundation
import ReferenceReflection
import RetainGraph
import Testing

@Suite("Actors and plain Foundation timers")
struct TimerAndActorWalkTests {
    @Test("an actor's stored properties are read like a class's")
    func actorFields() {
        let leaf = Leaf()
        let observer = Leaf()
        let actor = LeafActor(leaf: leaf, observer: observer)
        let walked = Walked([actor], known: [leaf, observer])
        #expect(walked.holds(actor, leaf, named: "leaf", .strong))
        #expect(walked.holds(actor, observer, named: "observer", .weak))
    }

    @Test(
        "Owner.timer ⇒ Foundation.Timer ⇒ (._fire capturing) Owner is found for a raw Foundation timer"
    )
    func foundationTimerCapturingOwner() throws {
        let owner = TimerOwner()
        owner.startCapturingSelfStrongly()
        let timer = try #require(owner.timer)
        let walked = Walked([owner], known: [timer])
        let toTimer = try #require(walked.reference(from: owner, named: "timer"))
        #expect(toTimer.ownership == .strong)
        #expect(toTimer.to == walked.id(timer))
        #expect(walked.node(toTimer.to)?.kind == .timer)
        // The block's only capture is the owner: the compiler made it the block's context.
        let toOwner = try #require(walked.reference(from: timer, named: "_fire"))
        #expect(toOwner.to == walked.id(owner))
        #expect(toOwner.ownership == .strong)
        #expect(toOwner.role == .closureCapture(property: "_fire", captured: "TimerOwner"))
        let snapshot = walked.graph.snapshot().addingDiscoveredReferences(from: walked.result)
        let cycle = snapshot.cycle(
            through: walked.id(owner), components: snapshot.stronglyConnectedComponents())
        #expect(cycle?.count == 2)
        timer.invalidate()
    }

    @Test("a Foundation timer whose block captures [weak self] holds its owner weakly")
    func foundationTimerCapturingWeakOwner() throws {
        let owner = TimerOwner()
        owner.startCapturingSelfWeakly()
        let timer = try #require(owner.timer)
        let walked = Walked([owner], known: [timer])
        let toClosure = try #require(walked.reference(from: timer, named: "_fire"))
        let captures = walked.result.references(from: toClosure.to)
        #expect(captures.contains { $0.to == walked.id(owner) && $0.ownership == .weak })
        #expect(!captures.contains { $0.ownership == .strong && $0.to == walked.id(owner) })
        timer.invalidate()
    }
}
