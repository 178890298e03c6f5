// What the fixture's tests leave behind: one leak for certain, and two things that look like
// leaks to a careless check but are not.

/// Half of a cycle that nothing reaches once the test that made it returns: a leak.
final class LeakyParent {
    var child: LeakyChild?
    let payload = [UInt8](repeating: 1, count: 100)
}

/// The other half.
final class LeakyChild {
    var parent: LeakyParent?
}

/// A cycle a global variable still holds: reachable, not a leak.
final class GlobalParent {
    var child: GlobalChild?
}

/// The other half.
final class GlobalChild {
    var parent: GlobalParent?
}

nonisolated(unsafe) var keptPair: GlobalParent?

/// An object in a cycle with a task that is still running: the concurrency runtime holds the
/// task, so the cycle is held from outside the heap, not a leak.
final class Poller: @unchecked Sendable {
    var task: Task<Void, Never>?
    var ticks = 0

    func start() {
        task = Task { [self] in
            while !Task.isCancelled {
                ticks += 1
                try? await Task.sleep(for: .seconds(3600))
            }
        }
    }
}

nonisolated(unsafe) var startedPollers = 0

/// Makes all three: returns once the poller's task has started.
func leaveScenariosBehind() async {
    makeLeakyPair()
    let parent = GlobalParent()
    parent.child = GlobalChild()
    parent.child?.parent = parent
    keptPair = parent
    let poller = Poller()
    poller.start()
    while poller.ticks == 0 { await Task.yield() }
    startedPollers += 1
}

/// The leak, made on lines the test checks the report for.
@inline(never)
func makeLeakyPair() {
    let parent = LeakyParent()  // LEAKY-PARENT-LINE
    let child = LeakyChild()  // LEAKY-CHILD-LINE
    parent.child = child
    child.parent = parent
}
