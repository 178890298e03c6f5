import Locking

/// The discoverers every leak watcher runs by default: a thread-safe, process-wide list that
/// opt-in modules add themselves to and remove themselves from.
///
/// A watcher made with the default ``ReferenceDiscovery/registered`` reads
/// ``DiscoveryRegistry/shared`` at each check, so a discoverer registered now is used by every
/// watcher's next check, including watchers made before, and one unregistered is not. A heap
/// census linked into the program is registered from the start; stopping it unregisters it,
/// starting it again registers it:
///
/// ```swift
/// DiscoveryRegistry.shared.register(census, named: "HeapCensus", order: .heapCensus)
/// // …
/// DiscoveryRegistry.shared.unregister(named: "HeapCensus")
/// ```
///
/// Registration is idempotent by name: registering under a name already taken replaces that
/// discoverer (and moves it to the end among equal orders). The registry's lock is never held
/// while a discoverer runs.
public final class DiscoveryRegistry: Sendable {
    /// The registry watchers consult by default.
    ///
    /// It starts with the discoverers of the optional modules linked into the program: a
    /// program that links HeapCensus has the census's discoverer registered from the start (it
    /// finds nothing while the census does not record).
    public static let shared: DiscoveryRegistry = {
        let registry = DiscoveryRegistry()
        LinkedModules.registerDiscoverers(in: registry)
        return registry
    }()

    private let registered = Locked<[DiscoveryStep]>([])

    /// Creates an empty registry (for tests; watchers use ``shared`` unless told otherwise).
    public init() {}

    /// Adds `discoverer` under `name`, replacing any discoverer registered under that name.
    ///
    /// - Parameters:
    ///   - discoverer: The discoverer.
    ///   - name: Its name, such as `HeapCensus`.
    ///   - order: Where it runs among the others.
    /// - Complexity: O(*d* log *d*) for *d* registered discoverers.
    public func register(
        _ discoverer: some ReferenceDiscoverer, named name: String, order: DiscoveryOrder
    ) {
        let step = DiscoveryStep(
            name: name, order: order, discoverer: discoverer, sequence: DiscoveryStep.nextSequence()
        )
        registered.withLock { steps in
            steps.removeAll { $0.name == name }
            steps.append(step)
            steps.sort { ($0.order, $0.sequence) < ($1.order, $1.sequence) }
        }
    }

    /// Removes the discoverer registered under `name`.
    ///
    /// - Parameter name: Its name.
    /// - Returns: Whether one was registered under that name.
    /// - Complexity: O(*d*) for *d* registered discoverers.
    @discardableResult
    public func unregister(named name: String) -> Bool {
        registered.withLock { steps in
            let before = steps.count
            steps.removeAll { $0.name == name }
            return steps.count != before
        }
    }

    /// The registered discoverers, in the order they run.
    public var steps: [DiscoveryStep] { registered.withLock { $0 } }

    /// The names of the registered discoverers, in the order they run.
    public var names: [String] { steps.map(\.name) }
}
