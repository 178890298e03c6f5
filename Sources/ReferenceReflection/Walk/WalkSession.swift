import RetainGraph

/// Where a value being read sits: which node holds it, under which name, and at what depth.
struct Site {
    /// The node that holds the value (an object, a closure context or a box).
    let holder: ObjectID
    /// The holder's distance from the roots, in references.
    let depth: Int
    /// The property path (`timer`, `items[2]`, `state.running`) or capture name.
    let path: String
    /// Whether the value is captured by a closure rather than stored in a property.
    let isCapture: Bool

    func appending(_ component: String) -> Site {
        let joined: String
        if path.isEmpty {
            joined = component
        } else if component.hasPrefix("[") {
            joined = path + component
        } else {
            joined = path + "." + component
        }
        return Site(holder: holder, depth: depth, path: joined, isCapture: isCapture)
    }

    var role: ReferenceRole {
        isCapture ? .capture(name: path) : .storedProperty(name: path)
    }
}

/// What kind of heap object the walk retains, which decides how it is expanded.
enum ReachedShape {
    /// A class instance: its stored properties are read.
    case instance
    /// A closure context: its captures are read.
    case closureContext
    /// The box of a captured `var`: its single value is read.
    case box
}

/// Fresh node identities for objects the live graph does not know, in a range live graphs
/// never reach (they count up from 1); shared with every discoverer (`ObjectID.nextDiscovered`).
enum DiscoveredIDs {
    /// The first identity handed out to discovered nodes: 2⁶².
    static var base: UInt64 { ObjectID.discoveredBase }

    static func next() -> ObjectID { ObjectID.nextDiscovered() }
}

/// The mutable state of one walk. It retains every object it reaches and releases all of them
/// when it is discarded at the end of ``ReferenceWalker/walk(from:)``.
///
/// Safety argument: every object whose memory is read is retained by ``retained`` first. A root
/// is retained by the caller and then here. A value found in a strong field or capture is
/// retained (with `takeUnretainedValue`) while its holder is retained and before anything else
/// runs on this thread, so another thread releasing its last reference cannot free it: the
/// holder's reference keeps it alive until ours exists. Weak targets are loaded with the
/// runtime's atomic `swift_weakLoadStrong` (+1), unowned targets with `swift_tryRetain`, which
/// fails for objects being deinitialised. `unowned(unsafe)` words are never dereferenced; they
/// are only compared with the addresses of objects the walk holds.
/// What this cannot make safe: another thread mutating the fields of an object while it is
/// being read (a data race in the program being inspected).
final class WalkSession {
    let graph: LiveGraph?
    /// Gives objects the graph does not know their identity, when a discovery request shares
    /// identities between discoverers; fresh ones otherwise.
    let identify: ((AnyObject) -> ObjectID)?
    let limits: WalkLimits
    let clock = ContinuousClock()
    let deadline: ContinuousClock.Instant

    /// Everything the walk holds strongly, released with the session.
    var retained: [AnyObject] = []
    var ids: [ObjectIdentifier: ObjectID] = [:]
    var expanded: Set<ObjectIdentifier> = []
    var queue: [(object: AnyObject, id: ObjectID, depth: Int, shape: ReachedShape)] = []
    var nodes: [Node] = []
    var references: [Reference] = []
    private var referenceKeys: Set<ReferenceKey> = []
    var diagnostics: [WalkDiagnostic] = []
    private var diagnosticKeys: Set<WalkDiagnostic> = []
    /// `unowned(unsafe)` references, resolved against the retained objects at the end.
    var unmanagedReferences: [(site: Site, address: UInt)] = []
    var instanceLayouts: [TypeMetadata: InstanceLayout] = [:]
    var contextLayouts: [TypeMetadata: ContextLayout] = [:]
    /// Whether a struct descriptor belongs to a module whose structs are leaves.
    var leafStructs: [TypeDescriptor: Bool] = [:]
    var expandedCount = 0
    var isTruncated = false

    private struct ReferenceKey: Hashable {
        let from: ObjectID, to: ObjectID, kind: ReferenceKind, role: ReferenceRole
    }

    init(graph: LiveGraph?, limits: WalkLimits, identify: ((AnyObject) -> ObjectID)? = nil) {
        self.graph = graph
        self.identify = identify
        self.limits = limits
        deadline = clock.now.advanced(by: limits.maxDuration)
    }

    // MARK: Bookkeeping

    /// The node of a retained heap object, made (and the object retained) on first sight.
    func node(for object: AnyObject, shape: ReachedShape) -> ObjectID {
        let key = ObjectIdentifier(object)
        if let id = ids[key] { return id }
        retained.append(object)
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        let id: ObjectID
        let node: Node
        switch shape {
        case .instance:
            let typeName = _typeName(type(of: object), qualified: true)
            id = identify?(object) ?? graph?.id(of: object) ?? DiscoveredIDs.next()
            let kind: NodeKind = typeName == "Foundation.Timer" ? .timer : .object
            node = Node(id: id, typeName: typeName, kind: kind, address: address)
        case .closureContext:
            id = identify?(object) ?? DiscoveredIDs.next()
            node = Node(id: id, typeName: "closure", kind: .closure, address: address)
        case .box:
            id = identify?(object) ?? DiscoveredIDs.next()
            node = Node(id: id, typeName: "captured var", kind: .object, address: address)
        }
        ids[key] = id
        nodes.append(node)
        return id
    }

    /// A node for a closure whose context is the captured object itself (no heap context).
    func syntheticClosureNode() -> ObjectID {
        let id = DiscoveredIDs.next()
        nodes.append(Node(id: id, typeName: "closure", kind: .closure))
        return id
    }

    /// Queues a retained object for expansion, unless it was queued already or a limit says no.
    func enqueue(_ object: AnyObject, id: ObjectID, depth: Int, shape: ReachedShape) {
        let key = ObjectIdentifier(object)
        guard !expanded.contains(key) else { return }
        guard depth <= limits.maxDepth else {
            report(.limitReached, typeName: "", "depth limit \(limits.maxDepth) reached")
            isTruncated = true
            return
        }
        expanded.insert(key)
        queue.append((object, id, depth, shape))
    }

    /// Records a discovered reference once.
    func addReference(from: ObjectID, to: ObjectID, kind: ReferenceKind, role: ReferenceRole) {
        guard
            referenceKeys.insert(ReferenceKey(from: from, to: to, kind: kind, role: role)).inserted
        else { return }
        references.append(
            Reference(from: from, to: to, kind: kind, role: role, isDiscovered: true))
    }

    /// Records a diagnostic once per kind, type and detail.
    func report(_ kind: WalkDiagnostic.Kind, typeName: String, _ detail: String) {
        let diagnostic = WalkDiagnostic(kind: kind, typeName: typeName, detail: detail)
        if diagnosticKeys.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
    }

    /// Whether the time or object budget is spent (and says so once).
    func budgetExhausted() -> Bool {
        if expandedCount >= limits.maxObjects {
            report(.limitReached, typeName: "", "object limit \(limits.maxObjects) reached")
            isTruncated = true
            return true
        }
        if clock.now >= deadline {
            report(.limitReached, typeName: "", "time limit \(limits.maxDuration) reached")
            isTruncated = true
            return true
        }
        return false
    }

    // MARK: Running

    /// Walks breadth-first from the roots until the queue empties or a budget is spent.
    func run(from roots: [AnyObject]) -> [ObjectID] {
        var rootIDs: [ObjectID] = []
        for root in roots {
            guard isSwiftInstance(root) else {
                report(.unrecognisedMetadata, typeName: "", "a root is not a Swift class instance")
                continue
            }
            let id = node(for: root, shape: .instance)
            rootIDs.append(id)
            enqueue(root, id: id, depth: 0, shape: .instance)
        }
        var head = 0
        while head < queue.count {
            if budgetExhausted() { break }
            let item = queue[head]
            head += 1
            expandedCount += 1
            switch item.shape {
            case .instance: expandInstance(item.object, id: item.id, depth: item.depth)
            case .closureContext, .box:
                expandContext(item.object, id: item.id, depth: item.depth, shape: item.shape)
            }
        }
        queue.removeAll()
        resolveUnmanagedReferences()
        return rootIDs
    }

    /// Whether `object` is an instance of a Swift class the walker can read.
    func isSwiftInstance(_ object: AnyObject) -> Bool {
        let address = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        guard let metadata = RuntimeABI.pointer(at: address) else { return false }
        return TypeMetadata(address: metadata).kind == .class
    }
}
