import Dispatch
import Foundation
import Locking
import RetainGraph

extension TimerRegistry {
    /// Registers and starts a named timer that runs `task` on `queue` (the seed's
    /// `timerTask:start:interval:repeats:async:`).
    ///
    /// The first fire comes `start` seconds from now; a repeating task then fires every
    /// `interval` seconds until cancelled by name, and a one-shot task fires once and leaves
    /// the registry by itself.
    ///
    /// ```swift
    /// let name = try registry.schedule(start: 0.5, interval: 1, repeats: true,
    ///                                  queue: .background) { print("tick") }
    /// registry.cancel(name)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The name to register under; `nil` (the default) generates one that no live
    ///     timer carries, such as `TimerRegistry-3`.
    ///   - start: Seconds before the first fire; finite and not negative.
    ///   - interval: Seconds between fires; finite and not negative, and above 0 when
    ///     `repeats`. Ignored by a one-shot timer beyond validation.
    ///   - repeats: Whether the task repeats until cancelled.
    ///   - queue: Where the task runs: `.main`, `.background` (the default) or `.custom`.
    ///   - tolerance: The dispatch leeway, in seconds (see ``DispatchTimer/tolerance``).
    ///   - owner: The object the task captures as `self`, if you want it recorded:
    ///     `task ⇒ owner` for `.strong`, `task → owner` for `.weak` (not retained by the
    ///     registry; capture it in `task` the way you declare it).
    ///   - kind: How `task` captures `owner`.
    ///   - task: The work to run; `nil` is rejected, as the seed rejects a missing block.
    /// - Returns: The name the timer is registered under.
    /// - Throws: ``TimerError/missingAction`` when `task` is `nil`,
    ///   ``TimerError/invalidStart(_:)`` for a negative, NaN or infinite `start`,
    ///   ``TimerError/invalidInterval(_:)`` for a NaN, infinite or negative `interval` or a
    ///   repeating one of 0, and ``TimerError/nameInUse(_:)`` when a live timer carries `name`.
    /// - Complexity: O(1) amortised, plus one dispatch source.
    @discardableResult
    public func schedule(
        named name: String? = nil, start: TimeInterval = 0, interval: TimeInterval,
        repeats: Bool, queue: Queue = .background, tolerance: TimeInterval = 0,
        capturing owner: AnyObject? = nil, as kind: Ownership = .strong,
        task: (@Sendable () -> Void)?
    ) throws -> String {
        guard let task else { throw TimerError.missingAction }
        guard start.isFinite, start >= 0 else { throw TimerError.invalidStart(start) }
        try RunLoopTiming.validate(interval: interval, repeats: repeats)
        if let name, contains(name) { throw TimerError.nameInUse(name) }

        // The timer's action finds its name and registry late: the name is settled under the
        // lock below, after the timer exists.
        let slot = NameSlot()
        let action = DispatchTimer.Action.always { [weak self] timer in
            task()
            if !repeats, let self, let name = slot.name,
                self.removeEntry(named: name, ifTimer: timer) != nil
            {
                timer.invalidate()
            }
        }
        let timer = try DispatchTimer(
            interval: repeats ? interval : start, tolerance: tolerance, repeats: repeats,
            queue: queue.dispatchQueue, label: name, graph: graph, startDelay: start,
            binding: TimerBinding(
                action: action, edge: .closure(capturing: owner, kind, name: "self")))

        let registered = try entries.withLock { state -> String in
            var chosen: String
            if let name {
                guard state.live[name] == nil else { throw TimerError.nameInUse(name) }
                chosen = name
            } else {
                repeat {
                    chosen = "\(self.name)-\(state.counter)"
                    state.counter += 1
                } while state.live[chosen] != nil
            }
            slot.name = chosen
            let edge = graph.addReference(
                from: nodeID, to: timer.graphID ?? .disabled, ownership: .strong,
                role: .registryEntry(name: chosen))
            state.live[chosen] = Entry(timer: timer, edge: edge)
            return chosen
        }
        if name == nil, let id = timer.graphID { graph.setLabel(registered, for: id) }
        // Scheduling after registration: a cancel in between leaves an invalidated timer,
        // which schedule() never revives.
        timer.schedule()
        return registered
    }
}

extension TimerRegistry {
    /// The name a registry timer's action reports back under; written once, under the
    /// registry's lock, before the timer is scheduled.
    final class NameSlot: Sendable {
        private let storage = Locked<String?>(nil)

        /// The registered name, once settled.
        var name: String? {
            get { storage.withLock { $0 } }
            set { storage.withLock { $0 = newValue } }
        }
    }
}
