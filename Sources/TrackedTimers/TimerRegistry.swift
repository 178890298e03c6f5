import Dispatch
import Foundation
import Locking
import RetainGraph

/// A thread-safe registry of named dispatch timers: start delay, interval, repeats, main or
/// background queue, cancel by name (scenario S18, the seed's `ZCGCDTimer`).
///
/// Each registered task runs on a ``DispatchTimer`` that the registry holds until the timer is
/// cancelled by name or, for a one-shot task, until it has fired. The graph records
///
/// ```
/// registry ⇒ timer            role .registryEntry(name:)
/// queue[root] ⇒ timer         role .resumed (as every DispatchTimer)
/// timer ⇒ task closure        role .actionClosure
/// task closure ⇒/→ owner      role .capture(name: "self"), as declared
/// ```
///
/// so a task capturing its owner strongly keeps the owner alive for as long as the task stays
/// registered (S18a: a leak), and cancelling it by name removes those edges (S18b).
///
/// Unlike the seed, which names timers by the current count (so after a cancel two live timers
/// can share a name), the registry never hands out, or accepts, the name of a live timer.
///
/// ```swift
/// let name = try TimerRegistry.shared.schedule(start: 1, interval: 2, repeats: true,
///                                              capturing: self, as: .weak) { [weak self] in
///     self?.refresh()
/// }
/// // later, e.g. in deinit:
/// TimerRegistry.shared.cancel(name)
/// ```
public final class TimerRegistry: @unchecked Sendable {
    /// Where a registered task runs.
    public enum Queue: Sendable {
        /// The main queue (the seed's `async: NO`).
        case main
        /// A global background queue (the seed's `async: YES`).
        case background
        /// A queue of your choice.
        case custom(DispatchQueue)

        /// The dispatch queue this choice stands for.
        var dispatchQueue: DispatchQueue {
            switch self {
            case .main: return .main
            case .background: return .global()
            case .custom(let queue): return queue
            }
        }
    }

    /// One registered timer and the registry's edge to it.
    struct Entry {
        let timer: DispatchTimer
        let edge: ReferenceID?
    }

    /// The registry shared by the process; recorded as a root (`.custom(name:)`) in
    /// ``/RetainGraph/LiveGraph/shared``, since it lives for the process.
    public static let shared = TimerRegistry(name: "TimerRegistry.shared", isRoot: true)

    /// The registry's name, used for its graph node and generated timer names.
    public let name: String
    /// The graph the registry and its timers record into.
    public let graph: LiveGraph

    let entries = Locked<(live: [String: Entry], counter: Int)>(([:], 0))
    /// The registry's node, or ``ObjectID/disabled`` when the graph was disabled at creation.
    private(set) var nodeID: ObjectID = .disabled

    /// Creates a private registry.
    ///
    /// - Parameters:
    ///   - name: A name for reports and the prefix of generated timer names.
    ///   - isRoot: Whether the registry lives for the process (a global or singleton) and so is
    ///     recorded as a root; otherwise it is an ordinary object that whoever holds it keeps.
    ///   - graph: The graph to record into; ``/RetainGraph/LiveGraph/shared`` by default.
    public init(name: String = "TimerRegistry", isRoot: Bool = false, graph: LiveGraph = .shared) {
        self.name = name
        self.graph = graph
        nodeID =
            isRoot
            ? graph.registerRoot(.custom(name: name), for: self, label: name)
            : graph.register(self, label: name)
    }

    deinit {
        cancelAll()
        graph.removeNode(nodeID)
    }

    // MARK: Queries

    /// The names of the live (registered, not yet cancelled or finished) timers.
    ///
    /// - Complexity: O(*n*) for *n* live timers.
    public var names: Set<String> { entries.withLock { Set($0.live.keys) } }

    /// The number of live timers.
    public var count: Int { entries.withLock { $0.live.count } }

    /// Whether a live timer carries `name`.
    public func contains(_ name: String) -> Bool {
        entries.withLock { $0.live[name] != nil }
    }

    /// The timer registered under `name`, for inspection (its ``DispatchTimer/graphID``,
    /// ``DispatchTimer/isValid``); `nil` when no live timer carries it.
    public func timer(named name: String) -> DispatchTimer? {
        entries.withLock { $0.live[name]?.timer }
    }

    // MARK: Cancelling

    /// Cancels the timer registered under `name` (the seed's `cancelTimer:`): it stops, its
    /// task is released, and its edges leave the graph. The name becomes free again.
    ///
    /// Safe from any thread, including from inside the task. A fire already running on another
    /// thread may finish (see ``DispatchTimer/invalidate()``).
    ///
    /// - Parameter name: The timer's name. Unknown or empty names are ignored.
    /// - Returns: Whether a live timer carried the name.
    @discardableResult
    public func cancel(_ name: String) -> Bool {
        guard let entry = removeEntry(named: name, ifTimer: nil) else { return false }
        entry.timer.invalidate()
        return true
    }

    /// Cancels every registered timer.
    public func cancelAll() {
        let doomed = entries.withLock { state in
            defer { state.live.removeAll() }
            for edge in state.live.values.compactMap(\.edge) { graph.removeReference(edge) }
            return state.live.values.map(\.timer)
        }
        for timer in doomed { timer.invalidate() }
    }

    /// Removes the entry for `name` (only if it is `timer`, when given) and its graph edge.
    /// The caller invalidates the timer outside the lock.
    func removeEntry(named name: String, ifTimer timer: DispatchTimer?) -> Entry? {
        entries.withLock { state -> Entry? in
            guard let entry = state.live[name] else { return nil }
            if let timer, entry.timer !== timer { return nil }
            state.live[name] = nil
            if let edge = entry.edge { graph.removeReference(edge) }
            return entry
        }
    }
}
