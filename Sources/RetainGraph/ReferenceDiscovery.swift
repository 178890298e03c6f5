import Synchronization

/// Which discoverers a leak watcher runs at each check, and in what order.
///
/// By default (``registered``) a watcher runs whatever is in the process-wide
/// ``DiscoveryRegistry/shared`` at the moment it checks: a heap census that was started
/// registers itself there, and every watcher uses it from its next check with no setup. Add
/// discoverers of your own with ``adding(_:named:order:)``; ReferenceReflection adds its walker
/// as `.reflection`.
///
/// ```swift
/// let watcher = LeakWatcher(discovery: .registered)                 // the default
/// let quiet = LeakWatcher(discovery: .none)                         // declared edges only
/// let mine = LeakWatcher(discovery: .registered.adding(Globals(), named: "globals", order: .custom))
/// ```
///
/// Discoverers run one after the other on the checking thread, sorted by ``DiscoveryOrder``
/// (for equal orders: registered ones first, then added ones, each in the order they came); a
/// discoverer added under the name of a registered one replaces it for this value. Composing
/// is a value operation: the registry is read at each check, never copied in advance.
public struct ReferenceDiscovery: ReferenceDiscoverer {
    /// The registry consulted at each check, if any.
    let registry: DiscoveryRegistry?
    /// Discoverers added to this value.
    let added: [DiscoveryStep]

    /// The discoverers registered in ``DiscoveryRegistry/shared`` when each check runs.
    public static var registered: ReferenceDiscovery { registered(in: .shared) }

    /// The discoverers registered in `registry` when each check runs.
    ///
    /// - Parameter registry: A registry, such as a test's own.
    /// - Returns: The discovery.
    public static func registered(in registry: DiscoveryRegistry) -> ReferenceDiscovery {
        ReferenceDiscovery(registry: registry, added: [])
    }

    /// No discovery: reports explain leaks with the declared graph only.
    public static var none: ReferenceDiscovery { ReferenceDiscovery(registry: nil, added: []) }

    /// This discovery with `discoverer` added.
    ///
    /// - Parameters:
    ///   - discoverer: The discoverer.
    ///   - name: Its name; a registered discoverer of the same name is replaced by this one.
    ///   - order: Where it runs among the others.
    /// - Returns: The new discovery.
    public func adding(
        _ discoverer: some ReferenceDiscoverer, named name: String, order: DiscoveryOrder
    ) -> ReferenceDiscovery {
        let step = DiscoveryStep(
            name: name, order: order, discoverer: discoverer, sequence: DiscoveryStep.nextSequence()
        )
        return ReferenceDiscovery(
            registry: registry, added: added.filter { $0.name != name } + [step])
    }

    /// The discoverers this value runs now, in the order they run.
    ///
    /// - Returns: The registry's current steps and the added ones, one per name, sorted.
    /// - Complexity: O(*d* log *d*) for *d* discoverers.
    public func steps() -> [DiscoveryStep] {
        let names = Set(added.map(\.name))
        let registered = (registry?.steps ?? []).filter { !names.contains($0.name) }
        return (registered + added).enumerated().sorted { lhs, rhs in
            lhs.element.order != rhs.element.order
                ? lhs.element.order < rhs.element.order : lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// Whether this value would run no discoverer if a check ran now.
    public var isEmpty: Bool { added.isEmpty && (registry?.steps.isEmpty ?? true) }

    /// Runs every step of ``steps()`` in order, each adding to `additions`.
    ///
    /// - Parameters:
    ///   - additions: What the check's discoverers found.
    ///   - request: The check's request, shared by every step.
    public func discoverReferences(
        into additions: inout GraphSnapshot.Builder, for request: DiscoveryRequest
    ) {
        for step in steps() {
            step.discoverer.discoverReferences(into: &additions, for: request)
        }
    }
}

/// Where a discoverer runs among a check's discoverers: lower first.
///
/// Reflection runs before the heap census, so the census sees the references reflection found
/// (and can skip explaining what they already explain).
///
/// ```swift
/// DiscoveryRegistry.shared.register(census, named: "HeapCensus", order: .heapCensus)
/// ```
public struct DiscoveryOrder: Hashable, Comparable, Sendable {
    /// The rank; lower runs first.
    public var rawValue: Int

    /// Creates an order.
    ///
    /// - Parameter rawValue: The rank; lower runs first.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Reading watched objects' memory (ReferenceReflection): 100.
    public static let reflection = DiscoveryOrder(rawValue: 100)
    /// Explaining who holds a live object from the whole heap: 200.
    public static let heapCensus = DiscoveryOrder(rawValue: 200)
    /// Discoverers of your own, after the library's: 300.
    public static let custom = DiscoveryOrder(rawValue: 300)

    /// Orders by rank.
    public static func < (lhs: DiscoveryOrder, rhs: DiscoveryOrder) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// One discoverer with its name and its place in the order.
public struct DiscoveryStep: Sendable {
    /// The name it is known by (registering a second one under a name replaces the first).
    public let name: String
    /// Where it runs.
    public let order: DiscoveryOrder
    /// The discoverer.
    public let discoverer: any ReferenceDiscoverer
    /// When it was registered or added, to keep equal orders stable.
    let sequence: UInt64

    private static let counter = Atomic<UInt64>(0)

    static func nextSequence() -> UInt64 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

extension ObjectID {
    /// The first identity given to objects found by discovery that the graph does not know: 2⁶².
    package static let discoveredBase: UInt64 = 1 << 62
    private static let discoveredCounter = Atomic<UInt64>(0)

    /// A fresh identity for an object the graph does not know, in a range live graphs never
    /// reach (they count up from 1).
    package static func nextDiscovered() -> ObjectID {
        let (value, _) = discoveredCounter.wrappingAdd(1, ordering: .relaxed)
        return ObjectID(rawValue: discoveredBase | value)
    }
}
