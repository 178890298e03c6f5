import Locking
import RetainGraph
import RuntimeLayouts

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The mutable state of one walk. It retains every object it reaches and releases all of them
/// when it is discarded at the end of ``ReferenceWalker/walk(from:)``.
///
/// The walk executes the layouts the project's one layout compiler makes (RuntimeLayouts'
/// `LayoutRegistry`, shared with the heap census's scan), so it reads what the census reads:
/// the same slots, ownerships and roles.
///
/// Safety argument: every object whose memory is read is retained by ``retained`` first. A root
/// is retained by the caller and then here. A word read from a strong slot is retained (with
/// `takeUnretainedValue`) while its holder is retained and before anything else runs on this
/// thread, so another thread releasing its last reference cannot free it: the holder's
/// reference keeps it alive until ours exists. Weak targets are loaded with the runtime's
/// atomic `swift_weakLoadStrong` (+1), unowned targets with `swift_tryRetain`, which fails for
/// objects being deinitialised. `unowned(unsafe)` and conservatively read words are never
/// dereferenced; they are only compared with the addresses of objects the walk holds.
/// What this cannot make safe: another thread mutating the fields of an object while it is
/// being read (a data race in the program being inspected).
final class WalkSession {
    let graph: LiveGraph?
    /// Gives objects the graph does not know their identity, when a discovery request shares
    /// identities between discoverers; fresh ones otherwise.
    let identify: ((AnyObject) -> ObjectID)?
    let limits: WalkLimits
    /// This thread's CPU time when the walk started: the time budget is the walk's own work,
    /// so other threads taking the cores of a loaded machine do not cut it short.
    let started: Duration
    /// The budget checks so far: the CPU clock is a system call, read every 32nd check.
    private var checks = 0
    let registry = LayoutRegistry.shared

    /// Everything the walk holds strongly, released with the session.
    var retained: [AnyObject] = []
    var ids: [ObjectIdentifier: ObjectID] = [:]
    var expanded: Set<ObjectIdentifier> = []
    var queue: [(object: AnyObject, id: ObjectID, depth: Int)] = []
    var nodes: [Node] = []
    var references: [Reference] = []
    private var referenceKeys: Set<ReferenceKey> = []
    var diagnostics: [WalkDiagnostic] = []
    private var diagnosticKeys: Set<WalkDiagnostic> = []
    /// Words never dereferenced (`unowned(unsafe)` ones, and words read conservatively),
    /// matched against the objects the walk holds at the end.
    var unresolved: [(holder: ObjectID, ownership: Ownership, role: ReferenceRole, word: UInt)] =
        []
    /// Compiled layouts by metadata, for this walk.
    var layouts: [UInt: CompiledLayout] = [:]
    var expandedCount = 0
    var isTruncated = false
    /// The nodes that are a lock's storage (see `LockStorageIdentity`).
    var lockStorages: Set<ObjectID> = []

    private struct ReferenceKey: Hashable {
        let from: ObjectID, to: ObjectID, ownership: Ownership, role: ReferenceRole
    }

    init(graph: LiveGraph?, limits: WalkLimits, identify: ((AnyObject) -> ObjectID)? = nil) {
        self.graph = graph
        self.identify = identify
        self.limits = limits
        started = Self.threadCPUTime()
    }

    // MARK: Bookkeeping

    /// The node of a retained heap object, made (and the object retained) on first sight.
    func node(for object: AnyObject, layout: CompiledLayout?, isBox: Bool = false) -> ObjectID {
        let key = ObjectIdentifier(object)
        if let id = ids[key] { return id }
        retained.append(object)
        let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
        var typeName = layout?.typeName ?? _typeName(type(of: object), qualified: true)
        if isBox, let layout { typeName = layout.boxName }
        let id = identify?(object) ?? graph?.id(of: object) ?? ObjectID.nextDiscovered()
        let kind: NodeKind
        switch layout?.kind {
        case .closureContext? where !isBox: kind = .closure
        default: kind = KnownType(typeName: typeName)?.isTimer == true ? .timer : .object
        }
        ids[key] = id
        if LockStorageIdentity.isLockStorage(object) { lockStorages.insert(id) }
        nodes.append(Node(id: id, typeName: typeName, kind: kind, address: address))
        return id
    }

    /// Queues a retained object for expansion, unless it was queued already or a limit says no.
    func enqueue(_ object: AnyObject, id: ObjectID, depth: Int) {
        let key = ObjectIdentifier(object)
        guard !expanded.contains(key) else { return }
        guard depth <= limits.maxDepth else {
            truncate("depth limit \(limits.maxDepth) reached")
            return
        }
        expanded.insert(key)
        queue.append((object, id, depth))
    }

    /// Records a discovered reference once.
    func addReference(from: ObjectID, to: ObjectID, ownership: Ownership, role: ReferenceRole) {
        let key = ReferenceKey(from: from, to: to, ownership: ownership, role: role)
        guard referenceKeys.insert(key).inserted else { return }
        references.append(
            Reference(from: from, to: to, ownership: ownership, role: role, origin: .reflection))
    }

    /// Records a diagnostic once per kind, type and detail.
    func report(_ kind: WalkDiagnostic.Kind, typeName: String = "", _ detail: String) {
        let diagnostic = WalkDiagnostic(kind: kind, typeName: typeName, detail: detail)
        if diagnosticKeys.insert(diagnostic).inserted { diagnostics.append(diagnostic) }
    }

    /// Marks the walk as cut short by a limit, and says which.
    func truncate(_ detail: String) {
        report(.limitReached, detail)
        isTruncated = true
    }

    /// Whether the time or object budget is spent (and says so once).
    func budgetExhausted() -> Bool {
        if expandedCount >= limits.maxObjects {
            truncate("object limit \(limits.maxObjects) reached")
        } else if checks & 31 == 0, Self.threadCPUTime() - started >= limits.maxDuration {
            truncate("time limit \(limits.maxDuration) reached")
        } else {
            checks += 1
            return false
        }
        return true
    }

    /// The CPU time this thread has used.
    static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    // MARK: Running

    /// Walks breadth-first from the roots until the queue empties or a budget is spent.
    func run(from roots: [AnyObject]) -> [ObjectID] {
        var rootIDs: [ObjectID] = []
        for root in roots {
            let pointer = UnsafeRawPointer(Unmanaged.passUnretained(root).toOpaque())
            guard ObjectMemory.kind(ofObjectAt: pointer) == .instance else {
                report(.unrecognisedMetadata, "a root is not a Swift class instance")
                continue
            }
            let id = node(for: root, layout: layout(of: root))
            rootIDs.append(id)
            enqueue(root, id: id, depth: 0)
        }
        var head = 0
        while head < queue.count {
            if budgetExhausted() { break }
            let item = queue[head]
            head += 1
            expandedCount += 1
            expand(item.object, id: item.id, depth: item.depth)
        }
        queue.removeAll()
        resolveUnreadWords()
        return rootIDs
    }

    /// The compiled layout of a retained object, from the shared registry (cached per walk);
    /// a closure context whose captures depend on its generic bindings is decoded from the
    /// object itself.
    func layout(of object: AnyObject) -> CompiledLayout? {
        let pointer = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        let metadata = ObjectMemory.word(at: pointer)
        var compiled: CompiledLayout
        if let cached = layouts[metadata] {
            compiled = cached
        } else {
            guard let fresh = registry.layout(ofMetadata: metadata) else { return nil }
            layouts[metadata] = fresh
            compiled = fresh
        }
        if compiled.dependsOnInstance {
            compiled = registry.instanceLayout(
                ofContext: UInt(bitPattern: pointer), metadata: metadata)
        }
        if let problem = compiled.problem {
            let kind: WalkDiagnostic.Kind
            switch compiled.problemKind {
            case .missingMetadata: kind = .missingMetadata
            case .undecodableClosure: kind = .undecodableClosure
            case .unrecognisedMetadata: kind = .unrecognisedMetadata
            }
            report(kind, typeName: compiled.typeName, problem)
        }
        return compiled
    }
}
