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
}

/// The kinds of roots: things that outlive the objects they hold.
public enum RootKind: Hashable, Sendable {
    /// A thread's run loop, holding the timers scheduled on it.
    case runLoop(thread: String)
    /// A dispatch queue, holding the dispatch sources resumed on it.
    case dispatchQueue(label: String)
    /// A type used as a target: types never die (the Objective-C "timer class as target").
    case immortalType(name: String)
    /// The process itself: globals and singletons.
    case process
    /// A root the user declared, with their name for it.
    case custom(name: String)
    /// What a heap census found holding an object from outside the Swift heap: a global
    /// variable, a `Task`, a `Foundation.Timer`, a block libdispatch keeps, or references it
    /// cannot attribute.
    case heapHolder(HeapHolderKind, description: String)

    /// A short human-readable description, such as `run loop of thread "main"`.
    public var description: String {
        switch self {
        case .runLoop(let thread): return "run loop of thread \"\(thread)\""
        case .dispatchQueue(let label): return "dispatch queue \"\(label)\""
        case .immortalType(let name): return "type \(name) (immortal)"
        case .process: return "process"
        case .custom(let name): return name
        case .heapHolder(_, let description): return description
        }
    }
}

/// The kinds of holders a heap census names (see ``RootKind/heapHolder(_:description:)``).
public enum HeapHolderKind: String, Hashable, Sendable, Codable {
    /// A global or static variable.
    case globalVariable
    /// A `Foundation.Timer` that is still valid (scheduled on a run loop).
    case scheduledTimer
    /// A `Foundation.Timer` that was invalidated or never scheduled (never freed on Linux).
    case foundationTimer
    /// A `Task` the concurrency runtime keeps while it runs or sleeps.
    case task
    /// A block libdispatch keeps: a dispatch source's handler, or work on a queue.
    case dispatchBlock
    /// References from outside the Swift heap the census cannot attribute.
    case outside
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
