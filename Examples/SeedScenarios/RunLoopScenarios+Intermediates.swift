import Foundation
import LeakTracking
import RetainGraph
import TrackedTimers

/// The run-loop seed cases with something between the timer and the owner (S8–S11b), a timer
/// never added to a run loop (S14) and a background thread's run loop that never runs (S16).
extension Scenario {
    /// S8: a weak proxy is the target: the owner dies and its `deinit` invalidates the timer.
    static let s8 = Scenario(
        id: "S8", title: "WeakProxy target: timer ⇒ proxy → owner", expected: .ok
    ) { context in
        var owner: ProxyViewController? = ProxyViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the proxy to forward") { (owner?.ticks ?? 0) >= 2 }
        context.close(&owner, reason: "ProxyViewController popped")
        return try context.settle()
    }

    /// S9: an ordinary forwarding object with a weak target.
    static let s9 = Scenario(
        id: "S9", title: "TimerWeakObject forwards to a weak target", expected: .ok
    ) { context in
        var owner: ForwardingViewController? = ForwardingViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the forwarder to forward") { (owner?.ticks ?? 0) >= 2 }
        context.close(&owner, reason: "ForwardingViewController popped")
        return try context.settle()
    }

    /// S10: a type is the target; the closure captures `[weak self]`.
    static let s10 = Scenario(
        id: "S10", title: "type trampoline target, closure captures [weak self]", expected: .ok
    ) { context in
        var owner: TrampolineViewController? = TrampolineViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the trampoline to fire") { (owner?.ticks ?? 0) >= 2 }
        context.close(&owner, reason: "TrampolineViewController popped")
        return try context.settle()
    }

    /// S11a: the wrapper's `clearUp()` is called in the owner's `deinit`.
    static let s11a = Scenario(
        id: "S11a", title: "YJTimer.clearUp() called in deinit", expected: .ok
    ) { context in
        var owner: WrapperViewController? = WrapperViewController(callsClearUpInDeinit: true)
        try owner?.startTimer(graph: context.graph)
        try context.drive(until: "the wrapper to forward") { (owner?.ticks ?? 0) >= 2 }
        context.close(&owner, reason: "WrapperViewController popped")
        return try context.settle()
    }

    /// S11b: `clearUp()` forgotten: the owner dies, the wrapper and its timer keep firing.
    static let s11b = Scenario(
        id: "S11b", title: "YJTimer.clearUp() forgotten", expected: .zombie
    ) { context in
        var owner: WrapperViewController? = WrapperViewController(callsClearUpInDeinit: false)
        try owner?.startTimer(graph: context.graph)
        try context.drive(until: "the wrapper to forward") { (owner?.ticks ?? 0) >= 2 }
        weak var wrapper = owner?.yjTimer
        context.atCleanup(of: wrapper) { $0.clearUp() }
        context.close(&owner, reason: "WrapperViewController popped")
        // Evidence before the verdict: the orphaned timer fires into the dead target.
        try context.drive(until: "a fire into the dead target") { (wrapper?.deadFires ?? 0) >= 1 }
        return try context.settle()
    }

    /// S14: a timer made with an initialiser and never added to a run loop still holds its
    /// target.
    static let s14 = Scenario(
        id: "S14", title: "timer never added to a run loop", expected: .leak
    ) { context in
        var owner: UnscheduledViewController? = UnscheduledViewController(graph: context.graph)
        try owner?.prepareTimer()
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "UnscheduledViewController popped")
        return try context.settle()
    }

    /// S16: a repeating timer on a background thread whose run loop never runs.
    static let s16 = Scenario(
        id: "S16", title: "timer on a background run loop that never runs", expected: .leak
    ) { context in
        let worker = ParkedThread(name: "seed.S16.worker")
        context.atCleanup { worker.finish() }
        var owner: PollingViewController? = PollingViewController(graph: context.graph)
        try worker.run { [weak owner] in try owner?.startPolling() }
        context.atCleanup(of: owner) { $0.stopPolling() }
        context.close(&owner, reason: "PollingViewController closed")
        return try context.settle()
    }
}
