import Locking
import StackTraces
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The live, thread-safe record of who holds whom.
///
/// Instrumented timers, proxies and user code record nodes and typed references here as they
/// are made and broken; analysis works on an immutable ``GraphSnapshot`` taken with
/// ``snapshot()``, so detection never blocks recording for longer than one copy.
///
/// The graph never keeps anything alive. It holds every object the way an `unowned` reference
/// does (a *pin*: the object's memory stays allocated, the object does not), not weakly: a weak
/// reference would give the object a side table and send every retain and release of it down
/// the runtime's slow path, slowing down the very code being watched. A node whose object has
/// died is pruned, with its references and its pin, at the next snapshot (or sooner); until
/// then no other object can be born at its address, and identities (``ObjectID``) are never
/// reused either.
///
/// ## Memory bound
/// The graph prunes by itself, with no reader: whenever a call leaves it with at least twice
/// the nodes the last prune left (and at least 4,096), it prunes dead objects' nodes, their
/// references and their pins. So a process that records for a long time and never reads the
/// graph (no snapshot, no leak check) keeps at most max(4,096, 2 × *L*) nodes, where *L* is
/// the number of nodes alive at the last prune: the living ones, and dead ones whose node and
/// instance memory (not what the object referred to, which its `deinit` released) wait for the
/// next prune. A prune costs O(*n* + *r*) and follows at least *n* / 2 new nodes: O(1)
/// amortised per registration.
///
/// ```swift
/// let graph = LiveGraph.shared
/// let owner = graph.register(viewController, label: "clock screen")
/// let timer = graph.register(myTimer, kind: .timer)
/// graph.addReference(from: owner, to: timer, ownership: .strong, role: .storedProperty(name: "timer"))
/// ```
///
/// Instrumented timers and proxies do not write into the graph's tables as events happen: each
/// event updates the timer's tracker and queues it (see `TimerTracker`), and every method of
/// the graph first applies the queued trackers' latest state. What any method sees is the same
/// as if every event had been recorded when it happened; a timer made and released between two
/// reads costs the graph nothing.
///
/// All methods may be called from any thread. No method calls user code while holding the
/// graph's lock (a snapshot names each distinct type once, with the standard library's
/// `String(reflecting:)`, which runs no user code).
public final class LiveGraph: Sendable {
    /// The process-wide graph that the instrumented timers record into.
    ///
    /// Recording into it is enabled in debug builds and disabled in release builds, unless the
    /// environment variable `RETAINGRAPH_TRACKING` says otherwise (`1`/`on` or `0`/`off`) or
    /// ``isEnabled`` is set at run time.
    public static let shared = LiveGraph(isEnabled: LiveGraph.defaultEnablement())

    let storage: Locked<GraphStorage>
    /// Node identities, handed out by the storage and by timer trackers.
    let identities = IdentitySource()

    /// A fresh node identity, for a timer tracker (through the graph, whose `let` needs no
    /// retain, rather than the identity source itself).
    @inline(__always)
    func nextIdentity() -> ObjectID { identities.next() }
    /// Timer trackers' changes not yet applied to `storage` (see ``withSyncedStorage(_:)``).
    let journal = TrackerJournal()
    private let enabled: Atomic<Bool>

    /// Creates an empty graph.
    ///
    /// - Parameter isEnabled: Whether the graph records from the start. A disabled graph
    ///   accepts every call and records nothing.
    public init(isEnabled: Bool = true) {
        enabled = Atomic(isEnabled)
        storage = Locked(GraphStorage(identities: identities))
    }

    /// Releases the pins of the objects still recorded (their memory, not the objects).
    deinit { storage.withLock { graph in graph.removeAll() } }

    /// Whether the graph records. Switching it off keeps what was recorded until then.
    ///
    /// Instrumented timers check this before doing any tracking work (including capturing
    /// creation stack traces), so a disabled graph costs them one atomic load.
    public var isEnabled: Bool {
        get { enabled.load(ordering: .relaxed) }
        set { enabled.store(newValue, ordering: .relaxed) }
    }

    static func defaultEnablement() -> Bool {
        if let raw = getenv("RETAINGRAPH_TRACKING") {
            switch String(cString: raw).lowercased() {
            case "1", "on", "yes", "true": return true
            case "0", "off", "no", "false": return false
            default: break
            }
        }
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    // MARK: Nodes

    /// Records an object, or returns the identity it already has.
    ///
    /// Registering an object that is already recorded returns its existing identity (and keeps
    /// its first label and trace); a `kind` other than `.object` upgrades a plain object node.
    /// If a dead object's address was reused by `object`, the dead node is dropped and a new
    /// identity is made.
    ///
    /// - Parameters:
    ///   - object: The object. The graph pins it (keeps its memory, not the object).
    ///   - kind: What the object stands for. Use ``registerRoot(_:for:label:)`` for roots.
    ///   - label: A human label for reports.
    ///   - creationTrace: Where the object was created, if captured.
    /// - Returns: The object's identity, or ``ObjectID/disabled`` when the graph is disabled.
    /// - Complexity: O(1) amortised.
    @discardableResult
    public func register(
        _ object: AnyObject, kind: NodeKind = .object, label: String? = nil,
        creationTrace: StackTrace? = nil
    ) -> ObjectID {
        guard isEnabled else { return .disabled }
        let type: Any.Type = Swift.type(of: object)
        return withSyncedStorage { graph in
            graph.register(object, type: type, kind: kind, label: label, trace: creationTrace)
        }
    }

    /// Records a root, or returns the identity it already has.
    ///
    /// A root backed by an object (a `RunLoop`, a `DispatchQueue`) is keyed by that object and
    /// pruned when it dies; a root without one is keyed by `kind` and lives for the process.
    ///
    /// - Parameters:
    ///   - kind: What the root is.
    ///   - object: The object standing for the root, if there is one. Pinned, not retained.
    ///   - label: A human label for reports.
    /// - Returns: The root's identity, or ``ObjectID/disabled`` when the graph is disabled.
    /// - Complexity: O(1) amortised.
    @discardableResult
    public func registerRoot(
        _ kind: RootKind, for object: AnyObject? = nil, label: String? = nil
    ) -> ObjectID {
        guard isEnabled else { return .disabled }
        if let object {
            let type: Any.Type = Swift.type(of: object)
            return withSyncedStorage { graph in
                graph.register(object, type: type, kind: .root(kind), label: label, trace: nil)
            }
        }
        return withSyncedStorage { graph in graph.registerDetachedRoot(kind, label: label) }
    }

    /// Records a node that has no object of its own and lives exactly as long as `anchor`,
    /// such as a timer's action closure.
    ///
    /// - Parameters:
    ///   - kind: What the node stands for, usually `.closure`.
    ///   - typeName: The name printed for the node, such as `closure`.
    ///   - label: A human label for reports.
    ///   - anchor: The node whose death removes this one.
    ///   - creationTrace: Where the node was created, if captured.
    /// - Returns: The node's identity, or ``ObjectID/disabled`` when the graph is disabled or
    ///   `anchor` is unknown.
    /// - Complexity: O(1) amortised.
    @discardableResult
    public func registerAnchored(
        kind: NodeKind, typeName: String, label: String? = nil, anchor: ObjectID,
        creationTrace: StackTrace? = nil
    ) -> ObjectID {
        guard isEnabled else { return .disabled }
        return withSyncedStorage { graph in
            graph.registerAnchored(
                kind: kind, typeName: typeName, label: label, anchor: anchor, trace: creationTrace)
        }
    }

    /// The identity of a recorded, living object.
    ///
    /// - Returns: `nil` if the object was never recorded or its node was removed.
    /// - Complexity: O(1).
    public func id(of object: AnyObject) -> ObjectID? {
        withSyncedStorage { graph in graph.liveID(of: object) }
    }

    /// Whether `id` is a recorded root (a run loop, a queue, a declared root).
    ///
    /// - Complexity: O(1).
    package func isRoot(_ id: ObjectID) -> Bool {
        guard id != .disabled else { return false }
        return withSyncedStorage { graph in
            guard let slot = graph.slot(of: id) else { return false }
            return graph.nodes[Int(slot)].kind >= 4
        }
    }

    /// Removes a node and every reference from or to it; call it when an object dies or stops
    /// being interesting. Removing an unknown node does nothing.
    ///
    /// Nodes anchored to it (see ``registerAnchored(kind:typeName:label:anchor:creationTrace:)``)
    /// are removed with it, at the latest by the next ``snapshot()`` or ``counts()``.
    ///
    /// - Complexity: O(1) amortised; references are swept in batches.
    public func removeNode(_ id: ObjectID) {
        guard id != .disabled else { return }
        withSyncedStorage { graph in graph.removeNode(id) }
    }

    /// Replaces the timer information of a timer node. Unknown nodes are ignored.
    ///
    /// - Complexity: O(1).
    public func setTimerInfo(_ info: TimerInfo?, for id: ObjectID) {
        guard id != .disabled else { return }
        withSyncedStorage { graph in graph.setTimer(info, for: id) }
    }

    /// Updates the timer information of a timer node in place with graph-internal state only.
    ///
    /// The closure runs with the graph's lock held: it must not call into the graph or user code.
    package func updateTimerInfo(for id: ObjectID, _ update: (inout TimerInfo) -> Void) {
        guard id != .disabled else { return }
        withSyncedStorage { graph in graph.updateTimer(for: id, update) }
    }

    /// Changes a node's label. Unknown nodes are ignored.
    public func setLabel(_ label: String?, for id: ObjectID) {
        guard id != .disabled else { return }
        withSyncedStorage { graph in graph.setLabel(label, for: id) }
    }
}

extension ObjectID {
    /// The identity a disabled graph hands out; references to or from it are never recorded.
    public static let disabled = ObjectID(rawValue: 0)
}
