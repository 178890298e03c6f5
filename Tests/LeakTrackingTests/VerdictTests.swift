import Foundation
import LeakTracking
import RetainGraph
import Testing

@Suite("Verdicts on simulated seed scenarios")
struct VerdictTests {
    @Test(
        "S1: a repeating timer with a strong target leaks its owner, with a cycle and a root path")
    func strongTargetLeaks() throws {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        let box = harness.expectDeath(of: &owner)
        #expect(harness.onlyVerdict()?.verdict == .pending)
        harness.expireGrace()
        let verdict = try #require(harness.onlyVerdict())
        #expect(box.object != nil)
        #expect(verdict.verdict == .leak)
        let report = try #require(verdict.report)
        #expect(report.retention == .rootPathAndCycle)
        #expect(report.hint.code == .strongTimerTarget)
        #expect(report.cycle?.count == 2)
        withExtendedLifetime(loop) {}
    }

    @Test("A watched object is pending until its grace period ends")
    func pendingUntilDeadline() {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        _ = harness.expectDeath(of: &owner)
        harness.clock.advance(by: .milliseconds(999))
        #expect(harness.onlyVerdict()?.verdict == .pending)
        harness.clock.advance(by: .milliseconds(2))
        #expect(harness.onlyVerdict()?.verdict == .leak)
        withExtendedLifetime(loop) {}
    }

    @Test("S4: a weak timer property still leaks, held from the root with no cycle")
    func weakPropertyLeaksWithoutCycle() throws {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = Owner()
        let timer = harness.timer()
        timer.target(owner!, strongly: true)
        owner!.hold(timer, graph: harness.graph, strongly: false)
        loop.schedule(timer, now: harness.clock.now)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        #expect(report.verdict == .leak)
        #expect(report.retention == .rootPath)
        #expect(report.cycle == nil)
        #expect(report.hint.code == .heldFromRoot)
        #expect(report.text.contains("No cycle: held from a root."))
        #expect(report.hint.text.contains("a weak timer property does not help"))
        withExtendedLifetime(loop) {}
    }

    @Test("S2a/S2b: a one-shot timer is TRANSIENT until it fires, then the owner dies (OK)")
    func oneShotIsTransientThenOK() throws {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = Owner()
        let timer = harness.timer(repeats: false)
        timer.target(owner!, strongly: true)
        owner!.hold(timer, graph: harness.graph)
        loop.schedule(timer, firingIn: 5, now: harness.clock.now)
        let due = harness.clock.now.addingTimeInterval(5)
        let box = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let transient = try #require(harness.onlyVerdict())
        #expect(transient.verdict == .transient)
        let release = try #require(transient.releaseDate)
        #expect(abs(release.timeIntervalSince(due)) < 0.001)
        #expect(transient.report?.hint.code == .pendingOneShot)

        timer.fire()
        // The owner held the timer: with the timer's target gone, the owner dies, then the timer.
        #expect(box.object == nil)
        #expect(harness.onlyVerdict()?.verdict == .ok)
        withExtendedLifetime(loop) {}
    }

    @Test("S5a: invalidating in stop() lets the owner die (OK)")
    func invalidateInStop() {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        owner?.timer?.invalidate()
        let box = harness.expectDeath(of: &owner)
        harness.expireGrace()
        #expect(box.object == nil)
        #expect(harness.onlyVerdict()?.verdict == .ok)
        withExtendedLifetime(loop) {}
    }

    @Test("S11b: the owner dies but the wrapper's repeating timer keeps firing: ZOMBIE")
    func forgottenClearUpIsZombie() throws {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = Owner()
        let wrapper = makeWrapper(for: owner!, harness: harness, loop: loop)
        let timer = try #require(wrapper.timer)
        let box = harness.expectDeath(of: &owner)
        #expect(box.object == nil)
        timer.fire(targetAlive: false)
        harness.expireGrace()
        let verdict = try #require(harness.onlyVerdict())
        #expect(verdict.verdict == .zombie)
        let report = try #require(verdict.report)
        #expect(report.hint.code == .zombieTimer)
        #expect(report.subject.isDeallocated)
        #expect(report.zombieTimer.flatMap(report.object)?.kind == "timer")
        #expect(report.hint.text.contains("1 fires after the target died"))
        #expect(report.text.contains("Zombie: YES"))
        withExtendedLifetime(loop) {}
    }

    @Test("S11a: clearUp() in deinit stops the wrapper's timer: OK")
    func clearUpInDeinitIsOK() {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = Owner()
        let wrapper = makeWrapper(for: owner!, harness: harness, loop: loop)
        owner?.onDeinit = { [wrapper] in wrapper.clearUp() }
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        #expect(harness.onlyVerdict()?.verdict == .ok)
        withExtendedLifetime(loop) {}
    }

    /// owner ⇒ wrapper ⇒ timer ⇒ wrapper; wrapper → owner; runloop ⇒ timer.
    private func makeWrapper(for owner: Owner, harness: Harness, loop: SimulatedRoot)
        -> TimerWrapper
    {
        let graph = harness.graph
        let wrapper = TimerWrapper()
        wrapper.target = owner
        owner.wrapper = wrapper
        graph.addReference(
            from: owner, to: wrapper, ownership: .strong, role: .storedProperty(name: "wrapper"))
        graph.addReference(
            from: wrapper, to: owner, ownership: .weak, role: .storedProperty(name: "target"))
        let timer = harness.timer()
        timer.target(wrapper, strongly: true)
        wrapper.timer = timer
        graph.addReference(
            from: graph.register(wrapper), to: timer.id, ownership: .strong,
            role: .storedProperty(name: "timer"))
        loop.schedule(timer, now: harness.clock.now)
        return wrapper
    }

    @Test("S6a/S6b: a closure capturing self strongly leaks; [weak self] is OK")
    func closureCaptures() throws {
        for strongly in [true, false] {
            let harness = Harness()
            let loop = harness.mainRunLoop()
            var owner: Owner? = Owner()
            let timer = harness.timer()
            timer.action(capturing: owner!, strongly: strongly)
            owner!.hold(timer, graph: harness.graph)
            loop.schedule(timer, now: harness.clock.now)
            owner!.onDeinit = { [weak timer] in timer?.invalidate() }
            _ = harness.expectDeath(of: &owner)
            harness.expireGrace()
            let verdict = try #require(harness.onlyVerdict())
            #expect(verdict.verdict == (strongly ? .leak : .ok))
            if strongly {
                let report = try #require(verdict.report)
                #expect(report.hint.code == .closureCapture)
                #expect(report.path.map(\.role) == ["scheduled", "actionClosure", "capture"])
                #expect(report.path.last?.isSuspect == true)
            }
            withExtendedLifetime(loop) {}
        }
    }

    @Test("S7b: a dispatch source handler capturing self strongly leaks from the queue")
    func dispatchHandlerCapture() throws {
        let harness = Harness()
        let queue = SimulatedRoot(
            graph: harness.graph, kind: .dispatchQueue(label: "com.example.poll"), role: .resumed)
        var owner: Owner? = Owner()
        let source = harness.timer()
        source.action(capturing: owner!, strongly: true)
        queue.schedule(source, now: harness.clock.now)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        #expect(report.hint.code == .dispatchHandlerCapture)
        #expect(report.path.first?.role == "resumed")
        withExtendedLifetime(queue) {}
    }

    @Test("S14: a timer never scheduled still holds its target: LEAK through a cycle alone")
    func unscheduledTimer() throws {
        let harness = Harness()
        var owner: Owner? = Owner()
        let timer = harness.timer()
        timer.target(owner!, strongly: true)
        owner!.hold(timer, graph: harness.graph)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        #expect(report.verdict == .leak)
        #expect(report.retention == .cycle)
        #expect(report.path.isEmpty)
        #expect(report.hint.code == .unscheduledTimer)
    }

    @Test("S16: a timer on a background thread's run loop holds its target: LEAK")
    func backgroundRunLoop() throws {
        let harness = Harness()
        let loop = SimulatedRoot(graph: harness.graph, kind: .runLoop(thread: "worker"))
        var owner: Owner? = Owner()
        let timer = harness.timer()
        timer.target(owner!, strongly: true)
        loop.schedule(timer, now: harness.clock.now)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        #expect(report.hint.code == .backgroundRunLoop)
        #expect(report.hint.text.contains("\"worker\""))
        withExtendedLifetime(loop) {}
    }

    @Test("S18a: a registry entry whose task captures its owner: LEAK naming the entry")
    func registryEntry() throws {
        let harness = Harness()
        let registry = SimulatedRoot(
            graph: harness.graph, kind: .custom(name: "timer registry"),
            role: .registryEntry(name: "poll"))
        var owner: Owner? = Owner()
        let source = harness.timer()
        source.action(capturing: owner!, strongly: true)
        registry.schedule(source, now: harness.clock.now)
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        #expect(report.hint.code == .registryEntry)
        #expect(report.hint.text.contains("\"poll\""))
        withExtendedLifetime(registry) {}
    }
}
