import Locking

/// Something that finds references the live graph was never told about, and adds them to the
/// check's snapshot before it is built.
///
/// Instrumented timers record their own edges; a property that stores a timer, a closure that
/// captures its owner, a run loop or a `Task` that holds a closure are invisible to the graph
/// unless someone discovers them. A discoverer does: ReferenceReflection's walks the watched
/// objects' memory from their runtime metadata, a heap census explains who holds any live
/// object. A leak watcher runs its discoverers (see ``ReferenceDiscovery``) at each check, in
/// their ``DiscoveryOrder``, each adding nodes and references to one
/// ``GraphSnapshot/Builder`` (and seeing what the ones before it added); the check then builds
/// one snapshot of the live graph with those additions (``LiveGraph/snapshot(_:adding:)``).
///
/// ```swift
/// struct GlobalsDiscoverer: ReferenceDiscoverer {
///     func discoverReferences(
///         into additions: inout GraphSnapshot.Builder, for request: DiscoveryRequest
///     ) {
///         let root = request.graph.registerRoot(.process)
///         for watched in request.watched where Globals.holds(watched.object) {
///             additions.addReference(from: root, to: watched.id, ownership: .strong,
///                                    role: .storedProperty(name: "Globals.cache"),
///                                    origin: .reflection)
///         }
///     }
/// }
/// DiscoveryRegistry.shared.register(GlobalsDiscoverer(), named: "globals", order: .custom)
/// ```
///
/// A discoverer is called on the thread that checks, with no lock of the library held, and may
/// be called from several threads at once (one call per check). It must not keep the request's
/// objects beyond the call, and should bound its own work: a check waits for it.
public protocol ReferenceDiscoverer: Sendable {
    /// Adds the references (and the nodes they need) found for `request` to `additions`.
    ///
    /// Give every added reference an origin other than `.declared` (`.reflection` for what
    /// reading the watched objects found, `.heap` for what reading the whole heap found), so
    /// reports say it was found rather than declared. Give objects the live graph knows their
    /// existing identity, and new ones an identity from ``DiscoveryRequest/id(of:)``, so that
    /// what several discoverers find about the same object joins up; add a node for each new
    /// one (a node the graph already has keeps the graph's data).
    ///
    /// - Parameters:
    ///   - additions: What this check's discoverers found so far; add to it.
    ///   - request: The watched objects still alive (held strongly for the call), the graph
    ///     and shared identities for objects it does not know.
    func discoverReferences(
        into additions: inout GraphSnapshot.Builder, for request: DiscoveryRequest)
}

/// A watched object handed to discoverers: the object itself and its node in the graph.
///
/// ```swift
/// for watched in request.watched { print(watched.id, type(of: watched.object)) }
/// ```
public struct WatchedObject {
    /// The object's node in the snapshot being enriched.
    public let id: ObjectID
    /// The object, held strongly for as long as the request lives.
    public let object: AnyObject

    /// Creates a watched object.
    ///
    /// - Parameters:
    ///   - id: The object's node.
    ///   - object: The object.
    public init(id: ObjectID, object: AnyObject) {
        self.id = id
        self.object = object
    }
}

/// What one check asks its discoverers about: the watched objects still alive, the graph they
/// belong to, and identities for the objects the graph does not know, shared by every
/// discoverer of the check.
///
/// A leak watcher makes one request per check and drops it when the check's discoverers have
/// run, releasing the watched objects. A request is meant for the thread that made it, though
/// ``id(of:)`` may be called from any thread.
///
/// ```swift
/// let request = DiscoveryRequest(graph: graph, watched: [WatchedObject(id: ownerID, object: owner)])
/// var additions = GraphSnapshot.Builder()
/// ReferenceDiscovery.registered.discoverReferences(into: &additions, for: request)
/// let snapshot = graph.snapshot(.retention(of: [ownerID] + additions.mentionedIDs), adding: additions)
/// ```
public final class DiscoveryRequest {
    /// The graph whose snapshot is being enriched.
    public let graph: LiveGraph
    /// The watched objects still alive, in the order they were watched.
    public let watched: [WatchedObject]
    /// Identities given to objects the graph does not know, with a pin each so that no other
    /// object can take the address (and so the identity) while the request lives.
    private let discovered = Locked<[ObjectIdentifier: (id: ObjectID, pin: ObjectPin)]>([:])

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - graph: The graph the watched objects are recorded in.
    ///   - watched: The watched objects still alive.
    public init(graph: LiveGraph, watched: [WatchedObject]) {
        self.graph = graph
        self.watched = watched
    }

    /// The identity of `object` for this check: its node in the graph if it has one, otherwise
    /// one made on first sight (at or above 2⁶², a range live graphs never reach) and returned
    /// again for the same object by every discoverer of the check.
    ///
    /// - Parameter object: Any object a discoverer found.
    /// - Returns: The object's identity.
    /// - Complexity: O(1) amortised; one graph lookup.
    public func id(of object: AnyObject) -> ObjectID {
        if let id = graph.id(of: object) { return id }
        let key = ObjectIdentifier(object)
        return discovered.withLock { table in
            if let known = table[key] { return known.id }
            let id = ObjectID.nextDiscovered()
            table[key] = (id, ObjectPin(object))
            return id
        }
    }

    deinit {
        discovered.withLock { table in
            for entry in table.values { entry.pin.release() }
            table.removeAll()
        }
    }
}
