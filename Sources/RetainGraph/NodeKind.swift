/// What a node in the graph stands for.
public enum NodeKind: Hashable, Sendable {
    /// An ordinary object (an owner, a view controller, a cache).
    case object
    /// A timer: a run-loop timer, a dispatch timer or a frame timer.
    case timer
    /// A proxy that forwards to a target it holds weakly or strongly.
    case proxy
    /// A closure's context; it lives exactly as long as the node it is anchored to.
    case closure
    /// A root: something that lives for the thread or the process and holds what it references.
    case root(RootKind)

    /// Whether the node is a root.
    public var isRoot: Bool {
        if case .root = self { return true }
        return false
    }

    /// A stable machine-readable name, such as `timer` or `root`.
    public var name: String {
        switch self {
        case .object: return "object"
        case .timer: return "timer"
        case .proxy: return "proxy"
        case .closure: return "closure"
        case .root: return "root"
        }
    }

    /// The kind a ``/ObjectGraph/CompactGraph`` stores for this one (a root's kind is kept apart).
    var compactKind: CompactGraph.NodeKind {
        switch self {
        case .object: return .object
        case .timer: return .timer
        case .proxy: return .proxy
        case .closure: return .closure
        case .root: return .root
        }
    }

    /// The kind of a compact graph's node of kind `kind` (boxes and storage are objects), a
    /// root's being `root()`.
    init(_ kind: CompactGraph.NodeKind, root: () -> RootKind) {
        switch kind {
        case .object, .box, .storage: self = .object
        case .timer: self = .timer
        case .proxy: self = .proxy
        case .closure: self = .closure
        case .root: self = .root(root())
        }
    }
}

/// What the graph knows about a timer node: enough to tell a pending one-shot timer (a
/// transient retention) from a repeating one (a leak), and a zombie from a healthy timer.
public struct TimerInfo: Hashable, Sendable {
    /// Whether the timer repeats.
    public var repeats: Bool
    /// The interval between fires, in seconds.
    public var interval: Double
    /// Whether the timer is currently scheduled (on a run loop) or resumed (on a queue).
    public var isScheduled: Bool
    /// When the timer fires next, in seconds since 1970, if it is scheduled.
    public var nextFireDate: Double?
    /// How many times the timer fired.
    public var fireCount: Int
    /// How many of those fires found their target already dead.
    public var firesIntoDeadTarget: Int
    /// Whether the timer invalidates itself at its first fire after its target died (a weak
    /// target timer does; a timer firing through a plain weak proxy does not).
    public var stopsWhenTargetDies: Bool

    /// Creates timer information.
    public init(
        repeats: Bool, interval: Double, isScheduled: Bool = false, nextFireDate: Double? = nil,
        fireCount: Int = 0, firesIntoDeadTarget: Int = 0, stopsWhenTargetDies: Bool = false
    ) {
        self.stopsWhenTargetDies = stopsWhenTargetDies
        self.repeats = repeats
        self.interval = interval
        self.isScheduled = isScheduled
        self.nextFireDate = nextFireDate
        self.fireCount = fireCount
        self.firesIntoDeadTarget = firesIntoDeadTarget
    }
}
