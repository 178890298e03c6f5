import RetainGraph
import RuntimeLayouts

/// Discovers the references nobody declared — stored properties and closure captures — by
/// reading objects' runtime metadata, with their kind (strong, weak, unowned).
///
/// Instrumented timers record their own edges in a ``/RetainGraph/LiveGraph``; an owner that stores a timer
/// in a property, a closure that captures its owner, or a plain `Foundation.Timer` are only
/// visible to the graph if someone declares them. The walker finds them: starting from some
/// objects (the watched ones and their timers), it reads every stored property (inherited ones
/// included), the elements of arrays, sets and dictionaries, optionals, structs, enum payloads
/// and tuples, and the captures of closures and captured `var` boxes, breadth-first.
///
/// It is opt-in and bounded (``WalkLimits``), never traps on what it cannot read, and says what
/// it could not read in ``WalkResult/diagnostics``; a snapshot enriched with an empty result is
/// simply the declared graph. See <doc:ReferenceReflection> for what it can and cannot see.
///
/// ```swift
/// let walker = ReferenceWalker(graph: .shared)
/// let snapshot = walker.enrich(LiveGraph.shared.snapshot(), objects: [owner])
/// // Owner ⇒ Foundation.Timer (.timer, discovered) ⇒ closure (._fire) ⇒ Owner (captures Owner)
/// ```
///
/// Objects are retained only while ``walk(from:)`` runs. Objects may be released (and
/// deallocated) by other threads during a walk; objects must not be *mutated* by other threads
/// while they are read, as with any unsynchronised read.
public struct ReferenceWalker: Sendable {
    /// The graph whose identities objects keep; nil to give every object a fresh identity.
    public let graph: LiveGraph?
    /// The bounds on each walk.
    public let limits: WalkLimits

    /// The first identity given to objects the live graph does not know (2⁶²).
    public static var discoveredIDBase: UInt64 { ObjectID.discoveredBase }

    /// Whether this platform and runtime support reflection walks (Linux, 64-bit, with the
    /// runtime entry points the walker uses). When `false`, walks return only their roots and
    /// a ``WalkDiagnostic/Kind/runtimeUnsupported`` diagnostic.
    public static var isSupported: Bool {
        ObjectMemory.isSupportedPlatform && ObjectMemory.canLoadWeakAndUnowned
    }

    /// Creates a walker.
    ///
    /// - Parameters:
    ///   - graph: The live graph whose ``/RetainGraph/ObjectID``s reached objects keep (looked up with
    ///     ``/RetainGraph/LiveGraph/id(of:)``). Pass nil to number every object freshly.
    ///   - limits: Bounds on each walk.
    public init(graph: LiveGraph? = .shared, limits: WalkLimits = .default) {
        self.graph = graph
        self.limits = limits
    }

    /// Walks from `roots` and returns the nodes and references found.
    ///
    /// Each root's contents are read; then, breadth-first, the contents of every object held
    /// strongly by something already read (and weakly held ones too when
    /// ``WalkLimits/followsWeakReferences`` is set), until the limits stop it.
    ///
    /// - Parameter roots: The objects to start from, such as watched owners and their timers.
    /// - Returns: The nodes (roots included), discovered references and diagnostics.
    /// - Complexity: O(*n* + *f* + *e*) for *n* objects, *f* stored fields and captures and *e*
    ///   collection elements read, bounded by ``limits``.
    public func walk(from roots: [AnyObject]) -> WalkResult {
        walk(from: roots, identities: nil)
    }

    /// Walks from `roots`, naming the objects the graph does not know with `identities` (a
    /// discovery request's shared identities) rather than fresh ones.
    func walk(from roots: [AnyObject], identities: ((AnyObject) -> ObjectID)?) -> WalkResult {
        guard Self.isSupported else { return unsupportedResult(roots) }
        let session = WalkSession(graph: graph, limits: limits, identify: identities)
        let rootIDs = session.run(from: roots)
        return WalkResult(
            nodes: session.nodes, references: session.references,
            diagnostics: session.diagnostics, rootIDs: rootIDs,
            objectsRead: session.expandedCount, isComplete: !session.isTruncated,
            lockStorages: session.lockStorages)
        // `session` (and every object it retained) is released here.
    }

    /// Walks from `objects` and returns `snapshot` with what the walk discovered added.
    ///
    /// Equivalent to `snapshot.addingDiscoveredReferences(from: walk(from: objects))`.
    ///
    /// - Parameters:
    ///   - snapshot: A snapshot of ``graph``, usually taken just before.
    ///   - objects: The objects to start from.
    /// - Returns: The snapshot with discovered nodes and references added; the declared graph
    ///   unchanged when nothing could be read.
    public func enrich(_ snapshot: GraphSnapshot, objects: [AnyObject]) -> GraphSnapshot {
        snapshot.addingDiscoveredReferences(from: walk(from: objects))
    }

    private func unsupportedResult(_ roots: [AnyObject]) -> WalkResult {
        var nodes: [Node] = []
        for root in roots {
            let id = graph?.id(of: root) ?? ObjectID.nextDiscovered()
            nodes.append(Node(id: id, typeName: _typeName(type(of: root), qualified: true)))
        }
        let diagnostic = WalkDiagnostic(
            kind: .runtimeUnsupported, typeName: "",
            detail: "reflection walks are not supported here; only declared edges are known")
        return WalkResult(
            nodes: nodes, references: [], diagnostics: [diagnostic], rootIDs: nodes.map(\.id),
            objectsRead: 0, isComplete: false)
    }
}
