import Locking
import RetainGraph

/// A `ReferenceDiscoverer` that reads the watched objects' memory: before a leak
/// watcher analyses a snapshot, it walks from the watched objects still alive and adds the
/// stored properties and closure captures it finds as discovered references.
///
/// An owner that stores its timer in a property, or a timer's closure that captures its owner,
/// needs no declaration: this discoverer finds both, and reports mark them `(discovered)`.
/// Give a watcher `discovery: .reflection` and there is nothing else to
/// do; the watcher hands it the objects it watches.
///
/// ```swift
/// let watcher = LeakWatcher(discovery: .reflection)
/// watcher.expectDeallocation(of: owner, reason: "closed")
/// ```
///
/// A walk starts from the watched objects, so it sees what they hold, not who holds them from
/// elsewhere. For a holder the graph records but cannot read (a registry's timer whose closure
/// captures the owner), add it with ``walkAlso(from:)``; a heap census explains such holders
/// without that.
///
/// What the library's own recording machinery holds (a timer's tracker, the graph, a timer's
/// pointer back to its run loop) is left out, and the lock boxes behind a tracked timer's
/// state are looked through, so reports read `DispatchTimer ⇒ .state.action ⇒ closure`.
///
/// Objects the graph does not know (closure contexts, captured `var` boxes, plain objects) get
/// the request's identities, so other discoverers of the same check name them alike. A closure
/// whose context is its one captured object has no heap object of its own: its node is made
/// afresh at each walk.
///
/// The discoverer keeps weak references only, and every method may be called from any thread.
public final class ReflectionDiscoverer: ReferenceDiscoverer {
    /// The default bounds, per object a walk starts from: 2,000 objects, 12 references deep,
    /// enough for an owner, its timer, the timer's action and the action's captures.
    public static let defaultLimits = WalkLimits(maxObjects: 2_000, maxDepth: 12)

    /// The bounds per object a walk starts from: a check of *w* watched objects reads at most
    /// *w* × ``WalkLimits/maxObjects`` objects for at most *w* × ``WalkLimits/maxDuration``
    /// (so a thousand leaking watches are explained like one), each object at most
    /// ``WalkLimits/maxDepth`` references from a watched one.
    public let limits: WalkLimits
    private let state = Locked(State())

    private struct State {
        var extra: [WeakObject] = []
        var lastResult: WalkResult?
    }

    private final class WeakObject: @unchecked Sendable {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    /// Creates a discoverer.
    ///
    /// - Parameter limits: Bounds on each walk; ``defaultLimits`` unless given.
    public init(limits: WalkLimits = ReflectionDiscoverer.defaultLimits) {
        self.limits = limits
    }

    /// Walks from `object` too at each check while it is alive, watched or not: for a timer
    /// that something other than the watched object holds.
    ///
    /// ```swift
    /// reflection.walkAlso(from: registry.timer(named: "poll"))
    /// ```
    ///
    /// - Parameter object: A holder to read; kept weakly. `nil` does nothing.
    public func walkAlso(from object: AnyObject?) {
        guard let object else { return }
        state.withLock { state in
            state.extra.removeAll { $0.object == nil }
            state.extra.append(WeakObject(object))
        }
    }

    /// What the last walk could not read.
    public var lastDiagnostics: [WalkDiagnostic] {
        state.withLock { $0.lastResult?.diagnostics ?? [] }
    }

    /// Walks from the request's watched objects (and the objects given to ``walkAlso(from:)``)
    /// and adds what the walk found to `additions`.
    ///
    /// - Parameters:
    ///   - additions: What the check's discoverers found so far.
    ///   - request: The watched objects still alive; unknown objects get the request's
    ///     identities.
    /// - Complexity: One walk bounded by ``limits``, then O(*n* + *r*) for the *n* nodes and
    ///   *r* references it found.
    public func discoverReferences(
        into additions: inout GraphSnapshot.Builder, for request: DiscoveryRequest
    ) {
        let extra = state.withLock { $0.extra.compactMap(\.object) }
        let roots = request.watched.map(\.object) + extra
        guard !roots.isEmpty else { return }
        var scaled = limits
        let starts = roots.count
        scaled.maxObjects =
            limits.maxObjects.multipliedReportingOverflow(by: starts).overflow
            ? .max : limits.maxObjects * starts
        scaled.maxDuration = limits.maxDuration * starts
        let walker = ReferenceWalker(graph: request.graph, limits: scaled)
        let walked = walker.walk(from: roots, identities: request.id(of:))
        let result = Self.withoutBookkeeping(walked, graph: request.graph)
        state.withLock { $0.lastResult = result }
        for node in result.nodes { additions.addNode(node) }
        for reference in result.references { additions.addReference(reference) }
    }
}

extension ReferenceDiscovery {
    /// The registered discoverers (see `DiscoveryRegistry.shared`) plus a
    /// ``ReflectionDiscoverer`` with its default limits, run first
    /// (`DiscoveryOrder.reflection`).
    ///
    /// The discovery the test helpers use by default.
    ///
    /// ```swift
    /// let watcher = LeakWatcher(discovery: .reflection)
    /// ```
    public static var reflection: ReferenceDiscovery {
        .registered.adding(ReflectionDiscoverer(), named: "ReferenceReflection", order: .reflection)
    }

    /// This discovery with `discoverer` run first (`DiscoveryOrder.reflection`),
    /// replacing any discoverer named `ReferenceReflection`.
    ///
    /// ```swift
    /// let reflection = ReflectionDiscoverer()
    /// let watcher = LeakWatcher(discovery: .registered.addingReflection(reflection))
    /// reflection.walkAlso(from: timerHeldByARegistry)
    /// ```
    ///
    /// - Parameter discoverer: The discoverer, such as one with its own limits.
    /// - Returns: The new discovery.
    public func addingReflection(_ discoverer: ReflectionDiscoverer) -> ReferenceDiscovery {
        adding(discoverer, named: "ReferenceReflection", order: .reflection)
    }
}
