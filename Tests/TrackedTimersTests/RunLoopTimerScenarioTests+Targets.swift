import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// The Objective-C trampoline: the type itself is the timer's target, the block its userInfo.
enum BlockTrampoline {
    static func invoke(_ block: () -> Void) { block() }
}

/// S11's wrapper: owns the timer, is its target, keeps a weak target inside, and needs
/// `clearUp()` from the owner's `deinit`.
final class TimerWrapper {
    weak var target: Owner?
    var timer: RunLoopTimer?

    init(target: Owner, graph: LiveGraph) throws {
        self.target = target
        graph.addReference(
            from: self, to: target, ownership: .weak, role: .storedProperty(name: "target"))
        timer = try RunLoopTimer(interval: 0.005, repeats: true, forwarder: self, graph: graph) {
            wrapper, _ in
            guard let target = wrapper.target else { return false }
            target.tick()
            return true
        }.scheduleOnCurrentRunLoop().held(by: self, as: "timer")
    }

    func clearUp() {
        timer?.invalidate()
        timer = nil
    }
}

/// Hands an owner to another thread, then lets the test drop it.
final class Handoff: @unchecked Sendable {
    var owner: Owner?
    init(_ owner: Owner) { self.owner = owner }
}

/// An owner holding an S11 wrapper, which may or may not remember to call `clearUp()`.
final class WrapperOwner {
    var wrapper: TimerWrapper?
    let callsClearUp: Bool
    init(callsClearUp: Bool) { self.callsClearUp = callsClearUp }
    deinit { if callsClearUp { wrapper?.clearUp() } }
}

@Suite("RunLoopTimer scenarios S10, S11, S14, S16")
struct RunLoopTimerTargetScenarioTests {
    @Test("S10: a type as the target is an immortal root; the [weak self] closure frees the owner")
    func s10TypeTrampoline() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        do {
            let owner = Owner()
            box.value = owner
            owner.timer = try RunLoopTimer(
                interval: 10, repeats: true, typeTarget: BlockTrampoline.self, capturing: owner,
                as: .weak, graph: graph
            ) { [weak owner] type, _ in type.invoke { owner?.tick() } }
            .scheduleOnCurrentRunLoop().held(by: owner, as: "timer")
            owner.timer?.fire()
            #expect(owner.ticks == 1)
            expectEdges(
                graph,
                [
                    scheduledDefault, "RunLoopTimer ⇒ type [target]",
                    "RunLoopTimer ⇒ closure [action closure]", "closure → Owner [captures self]",
                    "Owner ⇒ RunLoopTimer [.timer]",
                ])
            let root = graph.snapshot().roots.first {
                $0.kind == .root(.immortalType(name: "TrackedTimersTests.BlockTrampoline"))
            }
            #expect(root != nil)
        }
        #expect(box.value == nil)
        #expect(edgeLines(graph).isEmpty)
    }

    @Test(
        "S11: a wrapper target with a weak target inside: OK with clearUp (S11a), zombie without (S11b)",
        arguments: [true, false])
    func s11Wrapper(callsClearUp: Bool) throws {
        let graph = LiveGraph()
        let ownerBox = WeakBox<Owner>(nil)
        let wrapperBox = WeakBox<TimerWrapper>(nil)
        var keep: WrapperOwner? = WrapperOwner(callsClearUp: callsClearUp)
        do {
            let owner = Owner()
            ownerBox.value = owner
            let wrapper = try TimerWrapper(target: owner, graph: graph)
            keep?.wrapper = wrapper
            wrapperBox.value = wrapper
            #expect(edgeLines(graph).contains("TimerWrapper → Owner [.target]"))
            #expect(runRunLoop(until: { owner.ticks >= 1 }))
        }
        keep = nil
        #expect(ownerBox.value == nil)
        if callsClearUp {
            #expect(wrapperBox.value == nil)
            #expect(edgeLines(graph).isEmpty)
        } else {
            do {
                let wrapper = try #require(wrapperBox.value)
                let timer = try #require(wrapper.timer)
                let id = timer.graphID
                #expect(
                    runRunLoop(until: {
                        (timerInfo(timer, in: graph, id: id)?.firesIntoDeadTarget ?? 0) >= 1
                    }))
                let info = try #require(timerInfo(timer, in: graph, id: id))
                #expect(info.isScheduled && info.repeats && !info.stopsWhenTargetDies)
                #expect(edgeLines(graph).contains("RunLoopTimer ⇒ TimerWrapper [target]"))
                wrapper.clearUp()
            }
            #expect(wrapperBox.value == nil)
        }
    }

    @Test("S14: an unscheduled timer never fires yet holds its target: a cycle, no root path")
    func s14UnscheduledTimerHoldsTarget() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        var timer: RunLoopTimer?
        do {
            let owner = Owner()
            box.value = owner
            owner.timer = try RunLoopTimer(
                interval: 0.001, repeats: true, target: owner, graph: graph
            ) { owner, _ in owner.tick() }.held(by: owner, as: "timer")
            timer = owner.timer
        }
        do {
            let owner = try #require(box.value)
            drainRunLoop()
            #expect(owner.ticks == 0)
            #expect(timer?.isScheduled == false)
            expectEdges(graph, ["RunLoopTimer ⇒ Owner [target]", "Owner ⇒ RunLoopTimer [.timer]"])
            let ownerID = try #require(graph.id(of: owner))
            let retention = graph.snapshot().analyze().retention(of: ownerID)
            #expect(retention.cycle != nil && retention.rootPath == nil)
        }
        timer?.invalidate()
        timer = nil
        #expect(box.value == nil)
    }

    @Test("S16: a timer on a background thread fires only while that thread's run loop runs")
    func s16BackgroundThreadRunLoop() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        let scheduled = DispatchSemaphore(value: 0)
        let runIt = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var timer: RunLoopTimer?
        let handoff = Handoff(Owner())
        box.value = handoff.owner
        let thread = Thread {
            // Thread names are unreliable on Linux (inherited; ignored under TSan).
            RunLoopNames.setName("S16 worker")
            if let owner = handoff.owner {
                timer = try? RunLoopTimer.scheduled(
                    interval: 0.005, repeats: true, target: owner, graph: graph
                ) { owner, _ in owner.tick() }
            }
            scheduled.signal()
            runIt.wait()
            runRunLoop(until: { (box.value?.ticks ?? 0) >= 1 })
            finished.signal()
        }
        thread.start()
        scheduled.wait()
        handoff.owner = nil  // released: the background run loop's timer keeps it
        #expect(box.value?.ticks == 0)
        let snapshot = graph.snapshot()
        let rootKinds = snapshot.roots.map(\.kind)
        #expect(rootKinds.contains(.root(.runLoop(thread: "S16 worker"))))
        #expect(edgeLines(graph).contains(scheduledDefault))
        #expect(edgeLines(graph).contains("RunLoopTimer ⇒ Owner [target]"))
        runIt.signal()
        finished.wait()
        #expect((box.value?.ticks ?? 0) >= 1)
        timer?.invalidate()  // from another thread than the run loop's
        #expect(box.value == nil)
        #expect(edgeLines(graph).isEmpty)
    }
}
