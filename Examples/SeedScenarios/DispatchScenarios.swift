import Dispatch
import Foundation
import LeakTracking
import RetainGraph
import TrackedTimers

/// The dispatch seed cases: GCD source timers (S7a, S7b), a registry of named GCD timers
/// (S18a, S18b) and MSWeakTimer (S20).
extension Scenario {
    /// S7a: the handler captures `[weak self]`; `deinit` cancels the source.
    static let s7a = Scenario(
        id: "S7a", title: "dispatch handler captures [weak self]; cancelled in deinit",
        expected: .ok
    ) { context in
        var owner: GCDTimerViewController? = GCDTimerViewController(graph: context.graph)
        try owner?.startTimerWithWeakSelf()
        try context.drive(until: "the handler to run") { (owner?.ticks ?? 0) >= 2 }
        context.close(&owner, reason: "GCDTimerViewController popped")
        return try context.settle()
    }

    /// S7b: the handler captures `self` strongly: the queue holds the resumed source.
    static let s7b = Scenario(
        id: "S7b", title: "dispatch handler captures self strongly", expected: .leak
    ) { context in
        var owner: GCDTimerViewController? = GCDTimerViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the handler to run") { (owner?.ticks ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "GCDTimerViewController popped")
        return try context.settle()
    }

    /// S18a: a registered task captures its owner strongly and is never cancelled.
    static let s18a = Scenario(
        id: "S18a", title: "registry task captures its owner, still registered", expected: .leak
    ) { context in
        let registry = TimerRegistry(name: "ZCGCDTimer", isRoot: true, graph: context.graph)
        context.atCleanup { registry.cancelAll() }
        var owner: RegistryPollingViewController? = RegistryPollingViewController()
        try owner?.startPolling(in: registry)
        try context.drive(until: "the task to run") { (owner?.polls ?? 0) >= 2 }
        // The registry, not the owner, holds the timer: walk from it too.
        context.reflection.walkAlso(
            from: registry.timer(named: RegistryPollingViewController.taskName))
        context.close(&owner, reason: "RegistryPollingViewController closed")
        return try context.settle()
    }

    /// S18b: the same task, cancelled by name before the owner is closed.
    static let s18b = Scenario(
        id: "S18b", title: "registry task cancelled by name", expected: .ok
    ) { context in
        let registry = TimerRegistry(name: "ZCGCDTimer", isRoot: true, graph: context.graph)
        context.atCleanup { registry.cancelAll() }
        var owner: RegistryPollingViewController? = RegistryPollingViewController()
        try owner?.startPolling(in: registry)
        try context.drive(until: "the task to run") { (owner?.polls ?? 0) >= 2 }
        registry.cancel(RegistryPollingViewController.taskName)
        context.close(&owner, reason: "RegistryPollingViewController closed")
        return try context.settle()
    }

    /// S20: MSWeakTimer: a weak-target dispatch timer on a private queue.
    static let s20 = Scenario(
        id: "S20", title: "weak-target dispatch timer (MSWeakTimer)", expected: .ok
    ) { context in
        var owner: WeakTimerClient? = WeakTimerClient()
        try owner?.startTimer(graph: context.graph)
        try context.drive(until: "the timer to fire") { (owner?.ticks ?? 0) >= 2 }
        context.close(&owner, reason: "WeakTimerClient released")
        return try context.settle()
    }
}
