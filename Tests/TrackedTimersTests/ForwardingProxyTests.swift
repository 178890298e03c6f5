import Foundation
import RetainGraph
import Testing
import TrackedTimers
import _TestSupport

protocol InfoA: AnyObject { func infoA() -> String }
protocol InfoB: AnyObject { func infoB() -> String }
protocol InfoC: AnyObject { func infoC() }
final class ClassA: InfoA { func infoA() -> String { "A" } }
final class ClassB: InfoB { func infoB() -> String { "B" } }
final class ClassAB: InfoA, InfoB {
    func infoA() -> String { "AB.a" }
    func infoB() -> String { "AB.b" }
}

@Suite("ForwardingProxy: S19")
struct ForwardingProxyTests {
    @Test("S19: one proxy answers for several targets (\"multiple inheritance\")")
    func multipleInheritance() {
        let proxy = ForwardingProxy(graph: LiveGraph())
        proxy.addTarget(ClassA())
        proxy.addTarget(ClassB())
        var log: [String] = []
        #expect(proxy.forward("infoA", to: InfoA.self) { log.append($0.infoA()) })
        #expect(proxy.forward("infoB", to: InfoB.self) { log.append($0.infoB()) })
        #expect(log == ["A", "B"])
        #expect(proxy.forward("infoC", to: InfoC.self) { _ in log.append("?") } == false)
        #expect(proxy.unhandledMessageCount == 1)
    }

    @Test("S19: before and after hooks run around the forwarded call, in order")
    func hooksRunAroundTheCall() {
        let proxy = ForwardingProxy(graph: LiveGraph())
        let a = ClassA()
        proxy.addTarget(a)
        var log: [String] = []
        var hookTargets: [ObjectIdentifier] = []
        proxy.hook(
            "infoA",
            before: { target, message in
                hookTargets.append(ObjectIdentifier(target))
                log.append("before \(message)")
            },
            after: { _, message in log.append("after \(message)") })
        proxy.hook("infoA", before: { _, _ in log.append("second before") })
        proxy.forward("infoA", to: InfoA.self) { log.append($0.infoA()) }
        #expect(log == ["before infoA", "second before", "A", "after infoA"])
        #expect(hookTargets == [ObjectIdentifier(a)])
        log.removeAll()
        proxy.forward("other", to: InfoA.self) { log.append($0.infoA()) }
        #expect(log == ["A"])  // hooks are per message
    }

    @Test("S19: the first conforming target answers forward; broadcast reaches all")
    func orderAndBroadcast() {
        let proxy = ForwardingProxy(graph: LiveGraph())
        proxy.addTarget(ClassAB())
        proxy.addTarget(ClassA())
        var log: [String] = []
        proxy.forward("infoA", to: InfoA.self) { log.append($0.infoA()) }
        #expect(log == ["AB.a"])
        #expect(proxy.broadcast("infoA", to: InfoA.self) { log.append($0.infoA()) } == 2)
        #expect(log == ["AB.a", "AB.a", "A"])
    }

    @Test("S19: weak targets are skipped once dead; the graph shows strong and weak proxy edges")
    func holdingKinds() {
        let graph = LiveGraph()
        let proxy = ForwardingProxy(graph: graph)
        let strong = ClassA()
        var weak: ClassB? = ClassB()
        proxy.addTarget(strong)
        proxy.addTarget(weak!, holding: .weak)
        expectEdges(
            graph,
            ["ForwardingProxy ⇒ ClassA [proxy target]", "ForwardingProxy → ClassB [proxy target]"])
        weak = nil
        #expect(proxy.targets.count == 1)
        #expect(proxy.forward("infoB", to: InfoB.self) { _ in } == false)
    }

    @Test("S19: a forwarding proxy can be a timer's target, hooks included")
    func asTimerTarget() throws {
        let graph = LiveGraph()
        let proxy = ForwardingProxy(graph: graph)
        proxy.addTarget(ClassA())
        var log: [String] = []
        proxy.hook("infoA", before: { _, _ in log.append("before") })
        let timer = try RunLoopTimer.scheduled(
            interval: 0.005, repeats: false, target: proxy, graph: graph
        ) { proxy, _ in proxy.forward("infoA", to: InfoA.self) { log.append($0.infoA()) } }
        #expect(runRunLoop(until: { !timer.isValid }))
        #expect(log == ["before", "A"])
    }
}
