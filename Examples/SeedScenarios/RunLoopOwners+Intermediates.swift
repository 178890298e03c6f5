import Foundation
import RetainGraph
import TrackedTimers

// The seeds' ways out of the timer cycle: something between the timer and the controller.

/// Way 4 of seed 000 (`MJProxy`, `LBWeakProxy`): a weak proxy is the timer's target and
/// forwards each fire to the controller (S8).
public final class ProxyViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer, held strongly: `runloop ⇒ timer ⇒ proxy → self ⇒ timer`.
    var timer: RunLoopTimer?
    /// How many fires reached the controller.
    public private(set) var ticks = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// `[NSTimer scheduledTimerWithTimeInterval:… target:[MJProxy proxyWithTarget:self] …]`.
    public func startTimer() throws {
        let proxy = WeakProxy(self, label: "proxy", graph: graph)
        timer = try RunLoopTimer(
            interval: 0.01, repeats: true, proxy: proxy, label: "clock", graph: graph
        ) { controller, _ in controller.onTimerClock() }
        .scheduleOnCurrentRunLoop()
    }

    /// The "selector".
    public func onTimerClock() { ticks += 1 }

    deinit { timer?.invalidate() }
}

/// Seeds 001–002: an ordinary object (not a proxy) that keeps a weak target and forwards.
public final class TimerWeakObject: @unchecked Sendable {
    /// The controller the fires are forwarded to.
    weak var target: ForwardingViewController?

    init(target: ForwardingViewController) { self.target = target }

    /// Forwards one fire; `false` when the target is gone.
    func fire() -> Bool {
        guard let target else { return false }
        target.onTimerClock()
        return true
    }
}

/// Seeds 001–002 with ``TimerWeakObject`` as the timer's target (S9).
public final class ForwardingViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer: `runloop ⇒ timer ⇒ TimerWeakObject → self ⇒ timer`.
    var timer: RunLoopTimer?
    /// How many fires reached the controller.
    public private(set) var ticks = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// Schedules a timer whose target is a ``TimerWeakObject`` pointing back weakly.
    public func startTimer() throws {
        let forwarder = TimerWeakObject(target: self)
        timer = try RunLoopTimer.scheduledForwarding(
            interval: 0.01, forwarder: forwarder, label: "clock", graph: graph)
    }

    /// The "selector".
    public func onTimerClock() { ticks += 1 }

    deinit { timer?.invalidate() }
}

extension RunLoopTimer {
    /// Creates a repeating timer targeting `forwarder` and adds it to the current run loop.
    static func scheduledForwarding(
        interval: TimeInterval, forwarder: TimerWeakObject, label: String, graph: LiveGraph
    ) throws -> RunLoopTimer {
        try RunLoopTimer(
            interval: interval, repeats: true, forwarder: forwarder, label: label, graph: graph
        ) { forwarder, _ in forwarder.fire() }
        .scheduleOnCurrentRunLoop()
    }
}

/// Way 5 of seed 000 / seed 004: the timer class itself is the target and the block rides in
/// `userInfo`; here a type is the target and the closure captures `[weak self]` (S10).
public enum TimerBlockTrampoline {
    /// Runs the block, as `+[NSTimer _execBlock:]` does.
    public static func invoke(_ block: () -> Void) { block() }
}

/// The controller of the trampoline case (S10).
public final class TrampolineViewController: @unchecked Sendable {
    let graph: LiveGraph
    /// The timer: `runloop ⇒ timer ⇒ TimerBlockTrampoline[immortal]`, `timer ⇒ closure → self`.
    var timer: RunLoopTimer?
    /// How many fires reached the controller.
    public private(set) var ticks = 0

    /// Creates a controller whose timers record into `graph`.
    public init(graph: LiveGraph) { self.graph = graph }

    /// Schedules a timer whose target is ``TimerBlockTrampoline``.
    public func startTimer() throws {
        timer = try RunLoopTimer(
            interval: 0.01, repeats: true, typeTarget: TimerBlockTrampoline.self,
            label: "trampoline", graph: graph
        ) { [weak self] type, _ in type.invoke { self?.onTimerClock() } }
        .scheduleOnCurrentRunLoop()
    }

    /// What the block calls.
    public func onTimerClock() { ticks += 1 }

    deinit { timer?.invalidate() }
}

/// Plan 3 of seed 003 (`YJTimer`): a wrapper that owns the timer, is the timer's target, and
/// keeps a weak target inside. The owner must call ``clearUp()`` in its `deinit` (S11).
public final class YJTimer: @unchecked Sendable {
    /// The real receiver of the fires.
    weak var target: WrapperViewController?
    /// The timer this wrapper owns and is the target of: `wrapper ⇒ timer ⇒ wrapper`.
    var timer: RunLoopTimer?
    /// Fires that found the target dead.
    public private(set) var deadFires = 0

    init(target: WrapperViewController, graph: LiveGraph) throws {
        self.target = target
        timer = try RunLoopTimer(
            interval: 0.01, repeats: true, forwarder: self, label: "YJTimer.timer", graph: graph
        ) { wrapper, _ in wrapper.fire() }
        .scheduleOnCurrentRunLoop()
        // The one declaration in the run-loop scenarios: the watcher decides which timers could
        // turn into zombies when the watch starts, from the declared graph alone.
        graph.addReference(
            from: self, to: target, ownership: .weak, role: .storedProperty(name: "target"))
    }

    /// Forwards one fire; counts it when the target is dead.
    func fire() -> Bool {
        guard let target else {
            deadFires += 1
            return false
        }
        target.onTimerClock()
        return true
    }

    /// Invalidates the timer, breaking `wrapper ⇒ timer ⇒ wrapper`.
    public func clearUp() {
        timer?.invalidate()
        timer = nil
    }
}

/// The owner of a ``YJTimer`` (S11a calls `clearUp()` in `deinit`, S11b forgets).
public final class WrapperViewController: @unchecked Sendable {
    /// The wrapper, held strongly.
    var yjTimer: YJTimer?
    let callsClearUpInDeinit: Bool
    /// How many fires reached the controller.
    public private(set) var ticks = 0

    /// Creates a controller; `callsClearUpInDeinit: false` is the seed's forgotten clean-up.
    public init(callsClearUpInDeinit: Bool) { self.callsClearUpInDeinit = callsClearUpInDeinit }

    /// Creates the wrapper, which schedules its timer on the current run loop.
    public func startTimer(graph: LiveGraph) throws {
        yjTimer = try YJTimer(target: self, graph: graph)
    }

    /// The "selector".
    public func onTimerClock() { ticks += 1 }

    deinit {
        if callsClearUpInDeinit { yjTimer?.clearUp() }
    }
}
