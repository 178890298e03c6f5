import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

/// S9's ordinary intermediate object: not a proxy type, just a class with a weak target.
final class Forwarder {
    weak var owner: Owner?
    init(owner: Owner) { self.owner = owner }
}

@Suite("WeakProxy and intermediate forwarders: S8, S9")
struct WeakProxyTests {
    @Test("S8: timer ⇒ proxy → owner; the owner dies, its deinit invalidates, all edges go")
    func s8ProxyBreaksTheCycle() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        let proxyBox = WeakBox<WeakProxy<Owner>>(nil)
        let timerBox = WeakBox<RunLoopTimer>(nil)
        do {
            let owner = Owner()
            box.value = owner
            let proxy = WeakProxy(owner, graph: graph)
            proxyBox.value = proxy
            owner.timer = try RunLoopTimer(
                interval: 0.005, repeats: true, proxy: proxy, graph: graph
            ) {
                owner, _ in owner.tick()
            }.scheduleOnCurrentRunLoop().held(by: owner, as: "timer")
            timerBox.value = owner.timer
            #expect(runRunLoop(until: { owner.ticks >= 2 }))
            expectEdges(
                graph,
                [
                    scheduledDefault, "RunLoopTimer ⇒ WeakProxy [target]",
                    "WeakProxy → Owner [proxy target]", "Owner ⇒ RunLoopTimer [.timer]",
                ])
        }
        #expect(box.value == nil)
        #expect(timerBox.value == nil)
        #expect(proxyBox.value == nil)
        #expect(edgeLines(graph).isEmpty)
    }

    @Test("A proxy and its graph record take no weak reference to the target, nor keep it alive")
    func proxyTakesNoWeakReference() {
        let graph = LiveGraph()
        var owner: Owner? = Owner(invalidatesInDeinit: false)
        let weakCount = _getWeakRetainCount(owner!)
        let proxy = WeakProxy(owner!, graph: graph)
        #expect(graph.counts() == (nodes: 2, references: 1))  // proxy → owner
        #expect(_getWeakRetainCount(owner!) == weakCount)
        #expect(proxy.target === owner)
        owner = nil
        #expect(proxy.target == nil)
        #expect(!proxy.forward { $0.tick() })
        #expect(proxy.callsIntoDeadTarget == 1)
    }

    @Test("A fire through a proxy into a dead target is dropped and counted in proxy and timer")
    func deadTargetThroughProxy() throws {
        let graph = LiveGraph()
        var owner: Owner? = Owner(invalidatesInDeinit: false)
        let proxy = WeakProxy(owner!, graph: graph)
        let timer = try RunLoopTimer(interval: 0.005, repeats: true, proxy: proxy, graph: graph) {
            owner, _ in owner.tick()
        }.scheduleOnCurrentRunLoop()
        defer { timer.invalidate() }
        #expect(proxy.forward { $0.tick() })
        #expect(proxy.withTarget { $0.ticks } == 1)
        owner = nil
        #expect(!proxy.isTargetAlive)
        #expect(runRunLoop(until: { proxy.callsIntoDeadTarget >= 2 }))
        let info = try #require(timerInfo(timer, in: graph, id: timer.graphID))
        #expect(info.firesIntoDeadTarget >= 1)
        #expect(timer.isValid)  // a proxy does not stop the timer: a zombie until invalidated
        #expect(proxy.forward { $0.tick() } == false)
        #expect(proxy.withTarget { $0.ticks } == nil)
    }

    @Test("S9: an ordinary forwarder with a weak target behaves like the proxy")
    func s9IntermediateForwarder() throws {
        let graph = LiveGraph()
        let box = WeakBox<Owner>(nil)
        let forwarderBox = WeakBox<Forwarder>(nil)
        do {
            let owner = Owner()
            box.value = owner
            let forwarder = Forwarder(owner: owner)
            forwarderBox.value = forwarder
            graph.addReference(
                from: forwarder, to: owner, ownership: .weak, role: .storedProperty(name: "owner"))
            owner.timer = try RunLoopTimer(
                interval: 0.005, repeats: true, forwarder: forwarder, graph: graph
            ) { forwarder, _ in
                guard let owner = forwarder.owner else { return false }
                owner.tick()
                return true
            }.scheduleOnCurrentRunLoop().held(by: owner, as: "timer")
            #expect(runRunLoop(until: { owner.ticks >= 1 }))
            expectEdges(
                graph,
                [
                    scheduledDefault, "RunLoopTimer ⇒ Forwarder [target]",
                    "Forwarder → Owner [.owner]", "Owner ⇒ RunLoopTimer [.timer]",
                ])
        }
        #expect(box.value == nil)
        #expect(forwarderBox.value == nil)
        #expect(edgeLines(graph).isEmpty)
    }

    @Test("Graph disabled: proxies and timers work and record nothing")
    func disabledGraph() throws {
        let graph = LiveGraph(isEnabled: false)
        let owner = Owner(invalidatesInDeinit: false)
        let proxy = WeakProxy(owner, graph: graph)
        let timer = try RunLoopTimer(interval: 0.005, repeats: true, proxy: proxy, graph: graph) {
            owner, _ in owner.tick()
        }.scheduleOnCurrentRunLoop().held(by: owner, as: "timer")
        #expect(runRunLoop(until: { owner.ticks >= 1 }))
        timer.invalidate()
        #expect(proxy.graphID == nil && timer.graphID == nil)
        #expect(graph.counts().nodes == 0)
    }
}
