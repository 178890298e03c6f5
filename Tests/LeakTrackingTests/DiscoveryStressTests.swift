import Foundation
import LeakTracking
import RetainGraph
import Testing

@Suite("Discovery under concurrency")
struct DiscoveryStressTests {
    @Test("DiscoveryStress: threads register and unregister while watchers check; counts add up")
    func registryStress() async throws {
        let registry = DiscoveryRegistry()
        let calls = CallCounter()
        let threads = 8
        let rounds = 200
        let harness = Harness()
        let watcher = LeakWatcher(
            graph: harness.graph, clock: harness.clock, defaultGrace: .seconds(1),
            discovery: .registered(in: registry))
        let owner = Owner()
        watcher.expectDeallocation(of: owner, reason: "closed")
        harness.expireGrace()
        // One discoverer stays registered throughout: every check runs it exactly once.
        registry.register(
            ClosureDiscoverer { _, request in
                if request.watched.count == 1 { calls.increment() }
            }, named: "steady", order: .reflection)
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for round in 0..<rounds {
                        let name = "t\(thread)-\(round % 4)"
                        if thread.isMultiple(of: 2) {
                            registry.register(
                                ClosureDiscoverer { _, _ in }, named: name, order: .custom)
                            registry.unregister(named: name)
                        } else {
                            #expect(watcher.verdicts().first?.verdict == .leak)
                        }
                    }
                }
            }
        }
        #expect(calls.value == threads / 2 * rounds)
        #expect(registry.names == ["steady"])
        withExtendedLifetime(owner) {}
    }
}

/// A counter several threads increment.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
