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

    @Test("registering an object and scheduling timers on a root take no weak reference to either")
    func graphTakesNoWeakReference() {
        let graph = LiveGraph()
        let owner = Pinned()
        let root = Pinned()
        let weakCounts = (_getWeakRetainCount(owner), _getWeakRetainCount(root))
        let id = graph.register(owner)
        let timer = Pinned()
        let tracker = TimerTracker(
            object: timer, kind: .timer, label: nil, timer: TimerInfo(repeats: true, interval: 1),
            creationTrace: nil, graph: graph)
        tracker.recordScheduled(
            on: .custom(name: "loop"), rootObject: root, role: .scheduled(mode: "default"),
            nextFireDate: nil)
        #expect(graph.counts() == (nodes: 3, references: 1))
        #expect(graph.id(of: owner) == id)
        #expect(_getWeakRetainCount(owner) == weakCounts.0)
        #expect(_getWeakRetainCount(root) == weakCounts.1)
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
