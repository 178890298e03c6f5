import Testing

@testable import RetainGraph

private final class Pinned {}

/// The graph's reference to the objects it watches: keeps the memory, not the object, and
/// takes no weak reference (so the object gets no side table).
@Suite("Object pins")
struct ObjectPinTests {
    @Test("a pin loads its object while it lives, and nothing once it died")
    func loadsOnlyWhileAlive() {
        var object: Pinned? = Pinned()
        let pin = ObjectPin(object!)
        defer { pin.release() }
        #expect(pin.load() === object)
        #expect(pin.holds(object!))
        object = nil
        #expect(pin.load() == nil)
    }

    @Test("a pin keeps no object alive and takes an unowned count, not a weak one")
    func takesAnUnownedCount() {
        let object = Pinned()
        let strong = _getRetainCount(object)
        let unowned = _getUnownedRetainCount(object)
        let weak = _getWeakRetainCount(object)
        let pin = ObjectPin(object)
        #expect(_getRetainCount(object) == strong)
        #expect(_getUnownedRetainCount(object) == unowned + 1)
        #expect(_getWeakRetainCount(object) == weak)
        pin.release()
        #expect(_getUnownedRetainCount(object) == unowned)
    }

    @Test("registering objects, timer targets, closure owners and roots take no weak reference")
    func graphTakesNoWeakReference() {
        let graph = LiveGraph()
        let owner = Pinned()
        let root = Pinned()
        let target = Pinned()
        let weakCounts = [owner, root, target].map { _getWeakRetainCount($0) }
        let id = graph.register(owner)
        let timer = Pinned()
        let tracker = TimerTracker(
            object: timer, kind: .timer, label: nil, timer: TimerInfo(repeats: true, interval: 1),
            creationTrace: nil, graph: graph)
        tracker.recordScheduled(
            on: .custom(name: "loop"), rootObject: root, role: .scheduled(mode: "default"),
            nextFireDate: nil)
        tracker.recordTarget(target, ownership: .strong, role: .target)
        tracker.recordClosure(capturing: owner, ownership: .weak, name: "self")
        // owner, root, target, timer, closure; root ⇒ timer, timer ⇒ target, timer ⇒ closure,
        // closure → owner
        #expect(graph.counts() == (nodes: 5, references: 4))
        #expect(graph.id(of: owner) == id)
        #expect([owner, root, target].map { _getWeakRetainCount($0) } == weakCounts)
        tracker.retire()
        withExtendedLifetime(timer) {}
    }

    @Test("a timer's pin on a dead target keeps only its memory, until the timer lets go")
    func deadTargetMemoryGoesWithTheTimersHold() {
        let graph = LiveGraph()
        let timer = Pinned()
        let tracker = TimerTracker(
            object: timer, kind: .timer, label: nil, timer: TimerInfo(repeats: true, interval: 1),
            creationTrace: nil, graph: graph)
        var target: Pinned? = Pinned()
        weak let weakTarget = target
        let unowned = _getUnownedRetainCount(target!)
        tracker.recordTarget(target!, ownership: .weak, role: .target)
        #expect(_getUnownedRetainCount(target!) == unowned + 1)
        #expect(graph.counts() == (nodes: 2, references: 1))
        target = nil
        #expect(weakTarget == nil)  // dead: the pin kept it from nothing
        #expect(graph.counts() == (nodes: 1, references: 0))  // no edge to a dead target
        tracker.recordInvalidated()  // releases the pin (the timer lets go of its target)
        #expect(graph.counts() == (nodes: 1, references: 0))
        tracker.retire()
        withExtendedLifetime(timer) {}
    }

    @Test("an object node goes at the first read after its object died; its memory with it")
    func deadObjectNodeIsPruned() {
        let graph = LiveGraph()
        var object: Pinned? = Pinned()
        graph.register(object!)
        #expect(graph.counts().nodes == 1)
        object = nil
        #expect(graph.counts().nodes == 0)
    }
}
