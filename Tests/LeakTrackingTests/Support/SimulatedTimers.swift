import Foundation
import RetainGraph
import StackTraces

/// A stand-in for a run loop, a dispatch queue or a timer registry: it holds what it schedules
/// strongly, as the real one does, and records the edges the TrackedTimers convention records.
final class SimulatedRoot {
    let graph: LiveGraph
    private(set) var rootID: ObjectID = .disabled
    let role: ReferenceRole
    private(set) var held: [SimulatedTimer] = []

    init(
        graph: LiveGraph, kind: RootKind = .runLoop(thread: "main"),
        role: ReferenceRole = .scheduled(mode: "kCFRunLoopDefaultMode")
    ) {
        self.graph = graph
        self.role = role
        rootID = graph.registerRoot(kind, for: self)
    }

    /// Schedules `timer`: the root holds it until it is unscheduled.
    func schedule(_ timer: SimulatedTimer, firingIn delay: Double = 1, now: Date = Date()) {
        held.append(timer)
        timer.root = self
        graph.addReference(from: rootID, to: timer.id, ownership: .strong, role: role)
        timer.info.isScheduled = true
        timer.info.nextFireDate = now.timeIntervalSince1970 + delay
        timer.publish()
    }

    func unschedule(_ timer: SimulatedTimer) {
        held.removeAll { $0 === timer }
        let root = rootID
        graph.removeReferences(from: root) { $0.to == timer.id }
    }
}

/// A timer-like object: holds its target strongly or weakly and an action closure, like the
/// library's timers, and records the same edges.
final class SimulatedTimer {
    let graph: LiveGraph
    var id: ObjectID = .disabled
    var info: TimerInfo
    var strongTarget: AnyObject?
    weak var weakTarget: AnyObject?
    var action: (() -> Void)?
    weak var root: SimulatedRoot?

    init(
        graph: LiveGraph, repeats: Bool, interval: Double = 1, label: String? = nil,
        stopsWhenTargetDies: Bool = false
    ) {
        self.graph = graph
        info = TimerInfo(
            repeats: repeats, interval: interval, stopsWhenTargetDies: stopsWhenTargetDies)
        id = graph.register(
            self, kind: .timer, label: label, creationTrace: StackTrace.capture(skipping: 1))
        publish()
    }

    func publish() { graph.setTimerInfo(info, for: id) }

    /// Targets `object`, strongly or weakly.
    func target(_ object: AnyObject, strongly: Bool) {
        if strongly { strongTarget = object } else { weakTarget = object }
        graph.addReference(
            from: id, to: graph.register(object), ownership: strongly ? .strong : .weak,
            role: .target)
    }

    /// Installs an action closure that captures `owner` strongly or weakly.
    func action(capturing owner: AnyObject, strongly: Bool) {
        if strongly {
            action = { _ = owner }
        } else {
            action = { [weak owner] in _ = owner }
        }
        let closure = graph.registerAnchored(kind: .closure, typeName: "closure", anchor: id)
        graph.addReference(from: id, to: closure, ownership: .strong, role: .actionClosure)
        graph.addReference(
            from: closure, to: graph.register(owner), ownership: strongly ? .strong : .weak,
            role: .capture(name: "self"))
    }

    /// Fires once: a one-shot timer invalidates itself afterwards.
    func fire(targetAlive: Bool = true) {
        info.fireCount += 1
        if !targetAlive { info.firesIntoDeadTarget += 1 }
        publish()
        if !info.repeats { invalidate() }
    }

    /// Stops the timer and lets go of its target and action.
    func invalidate() {
        root?.unschedule(self)
        strongTarget = nil
        weakTarget = nil
        action = nil
        graph.removeReferences(from: id) { $0.role == .target || $0.role == .actionClosure }
        info.isScheduled = false
        info.nextFireDate = nil
        publish()
    }
}

/// The object expected to die.
final class Owner {
    var timer: SimulatedTimer?
    weak var weakTimer: SimulatedTimer?
    var wrapper: TimerWrapper?
    var onDeinit: (() -> Void)?

    /// Keeps `timer` in a property and records the edge.
    func hold(_ timer: SimulatedTimer, graph: LiveGraph, strongly: Bool = true) {
        if strongly { self.timer = timer } else { weakTimer = timer }
        graph.addReference(
            from: graph.register(self, label: "owner"), to: timer.id,
            ownership: strongly ? .strong : .weak, role: .storedProperty(name: "timer"))
    }

    deinit { onDeinit?() }
}

/// Seed S11's wrapper: owns the timer, is its target, keeps a weak target inside.
final class TimerWrapper {
    weak var target: Owner?
    var timer: SimulatedTimer?

    func clearUp() {
        timer?.invalidate()
        timer = nil
    }
}
