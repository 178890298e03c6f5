/// Bounds on one reflection walk: how many objects, how long, how deep.
///
/// A walk that reaches a limit stops early, keeps what it found, marks its result as
/// incomplete (``WalkResult/isComplete``) and adds a ``WalkDiagnostic/Kind/limitReached``
/// diagnostic.
///
/// ```swift
/// var limits = WalkLimits()
/// limits.maxObjects = 500
/// limits.maxDuration = .milliseconds(20)
/// let walker = ReferenceWalker(graph: .shared, limits: limits)
/// ```
public struct WalkLimits: Hashable, Sendable {
    /// The most objects (instances, closure contexts, boxes) whose contents are read.
    public var maxObjects: Int
    /// The most time a walk may spend: the CPU time of the thread that walks (so a loaded
    /// machine, its cores taken by other work, does not cut a walk short), checked between
    /// objects.
    public var maxDuration: Duration
    /// The most references between a root and an object whose contents are read.
    public var maxDepth: Int
    /// The most elements read from one array, set or dictionary.
    public var maxCollectionElements: Int
    /// The deepest nesting of values (structs in enums in tuples…) read inside one object.
    public var maxValueNesting: Int
    /// Whether objects reached only through `weak` or `unowned` references are read too.
    ///
    /// Off by default: such objects are not kept alive by what holds them, so their own
    /// references rarely explain a leak. The weak or unowned reference itself is always recorded.
    public var followsWeakReferences: Bool

    /// Creates limits; the defaults suit inspecting a handful of watched objects.
    ///
    /// - Parameters:
    ///   - maxObjects: The most objects whose contents are read. Default 10 000.
    ///   - maxDuration: The most CPU time a walk may spend. Default 250 ms.
    ///   - maxDepth: The most references from a root. Default 32.
    ///   - maxCollectionElements: The most elements read per collection. Default 1 000.
    ///   - maxValueNesting: The deepest value nesting read. Default 32.
    ///   - followsWeakReferences: Whether weakly reached objects are read. Default `false`.
    public init(
        maxObjects: Int = 10_000, maxDuration: Duration = .milliseconds(250), maxDepth: Int = 32,
        maxCollectionElements: Int = 1_000, maxValueNesting: Int = 32,
        followsWeakReferences: Bool = false
    ) {
        self.maxObjects = maxObjects
        self.maxDuration = maxDuration
        self.maxDepth = maxDepth
        self.maxCollectionElements = maxCollectionElements
        self.maxValueNesting = maxValueNesting
        self.followsWeakReferences = followsWeakReferences
    }

    /// The default limits.
    public static let `default` = WalkLimits()
}
