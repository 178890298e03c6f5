import Foundation
import LeakTracking
import RetainGraph
import TrackedTimers

/// The run-loop seed cases: NSTimer's strong target, one-shot timers, weak copies and weak
/// properties, lifecycle invalidation and block timers (S1–S6b).
///
/// None of them declares `owner ⇒ timer` or what a block captures: ReferenceReflection finds
/// both when the watcher analyses the graph.
extension Scenario {
    /// S1: `runloop ⇒ timer ⇒ owner ⇒ timer`, `deinit` never runs.
    static let s1 = Scenario(
        id: "S1", title: "repeating timer with a strong target", expected: .leak
    ) { context in
        var owner: ClockViewController? = ClockViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the clock to tick") { (owner?.ticks ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "ClockViewController popped")
        return try context.settle()
    }

    /// S2a: a one-shot timer still holds the owner when its grace is over (before the fire).
    static let s2a = Scenario(
        id: "S2a", title: "one-shot timer pending", expected: .transient
    ) { context in
        var owner: ClockViewController? = ClockViewController(graph: context.graph)
        try owner?.startOneShotTimer(after: 5)
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "ClockViewController popped")
        return try context.verdictAfterGrace()
    }

    /// S2b: the same, checked after the fire released the owner.
    static let s2b = Scenario(
        id: "S2b", title: "the one-shot timer fired and released it", expected: .ok
    ) { context in
        var owner: ClockViewController? = ClockViewController(graph: context.graph)
        try owner?.startOneShotTimer(after: 0.02)
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "ClockViewController popped")
        return try context.settle()
    }

    /// S3: a weak local copy of `self` as the target changes nothing.
    static let s3 = Scenario(
        id: "S3", title: "weak local copy passed as the target", expected: .leak
    ) { context in
        var owner: ClockViewController? = ClockViewController(graph: context.graph)
        try owner?.startTimerWithWeakSelf()
        try context.drive(until: "the clock to tick") { (owner?.ticks ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "ClockViewController popped")
        return try context.settle()
    }

    /// S4: a `weak` timer property: no cycle, and still a leak from the run loop.
    static let s4 = Scenario(
        id: "S4", title: "weak timer property", expected: .leak
    ) { context in
        var owner: WeakTimerViewController? = WeakTimerViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the clock to tick") { (owner?.ticks ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "WeakTimerViewController popped")
        return try context.settle()
    }

    /// S5a: the owner invalidates in `viewWillDisappear`, which is called.
    static let s5a = Scenario(
        id: "S5a", title: "viewWillDisappear invalidated the timer", expected: .ok
    ) { context in
        var owner: ClockViewController? = ClockViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the clock to tick") { (owner?.ticks ?? 0) >= 2 }
        owner?.viewWillDisappear()
        context.close(&owner, reason: "ClockViewController popped")
        return try context.settle()
    }

    /// S5b: the same owner, but `viewWillDisappear` never comes.
    static let s5b = Scenario(
        id: "S5b", title: "viewWillDisappear never called", expected: .leak
    ) { context in
        var owner: ClockViewController? = ClockViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the clock to tick") { (owner?.ticks ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "ClockViewController dismissed without viewWillDisappear")
        return try context.settle()
    }

    /// S6a: a block timer whose block captures `[weak self]`.
    static let s6a = Scenario(
        id: "S6a", title: "block captures [weak self]", expected: .ok
    ) { context in
        var owner: BlockClockViewController? = BlockClockViewController(graph: context.graph)
        try owner?.startTimerWithWeakSelf()
        try context.drive(until: "the block to run") { (owner?.ticks ?? 0) >= 2 }
        context.close(&owner, reason: "BlockClockViewController popped")
        return try context.settle()
    }

    /// S6b: the same block capturing `self` strongly.
    static let s6b = Scenario(
        id: "S6b", title: "block captures self strongly", expected: .leak
    ) { context in
        var owner: BlockClockViewController? = BlockClockViewController(graph: context.graph)
        try owner?.startTimer()
        try context.drive(until: "the block to run") { (owner?.ticks ?? 0) >= 2 }
        context.atCleanup(of: owner) { $0.stop() }
        context.close(&owner, reason: "BlockClockViewController popped")
        return try context.settle()
    }
}
