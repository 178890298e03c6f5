/// The kinds of roots: things that outlive the objects they hold.
///
/// A root is where a retention path starts. The live graph records roots that instrumented
/// code names (a thread's run loop, a dispatch queue); a heap census names what holds an
/// object from outside the Swift heap (``heapHolder(_:description:)``).
///
/// ```swift
/// let root = RootKind.runLoop(thread: "main")
/// root.description        // run loop of thread "main"
/// ```
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

    /// A short name for chains and tables, such as `run loop` or `queue`.
    public var shortName: String {
        switch self {
        case .runLoop: return "run loop"
        case .dispatchQueue: return "queue"
        default: return description
        }
    }

    /// Whether a path from this root explains less than a path from a named one: references
    /// from outside the Swift heap that nothing names (C code, an object made before a census
    /// started), or a word on a thread's stack (which may be a stale local). The path finder
    /// visits such roots last.
    public var isUnattributed: Bool {
        switch self {
        case .heapHolder(.outside, _), .heapHolder(.threadStack, _): return true
        default: return false
        }
    }

    /// The path finder's priority of paths from this root (see
    /// ``CompactGraph/PathTree``): 0 for roots the program declared (run loops, queues,
    /// custom roots), 1 for holders a heap census names, 3 for references nothing names and
    /// for a thread's stack (a word there may be a stale local: a path from a thread is taken
    /// only when no named holder reaches the object).
    public var pathPriority: PathPriority {
        switch self {
        case .heapHolder(.outside, _), .heapHolder(.threadStack, _): return .unattributed
        case .heapHolder: return .namedHolder
        default: return .declared
        }
    }
}

/// The kinds of holders a heap census names (see ``RootKind/heapHolder(_:description:)``).
public enum HeapHolderKind: String, Hashable, Sendable, Codable, CaseIterable {
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
    /// A running `Foundation.Thread`: the thread keeps its `Thread` object, and with it the
    /// closure it runs, until it exits.
    case thread
    /// A thread's stack and registers, read by an attach from outside the process (the census
    /// cannot see stacks): a local variable of a function that runs or waits on the thread, or
    /// a stale word that still holds the object's address.
    case threadStack
    /// References from outside the Swift heap the census cannot attribute.
    case outside

    /// How reports describe a holder of this kind: `a Task (the concurrency runtime holds it
    /// while it runs or sleeps)`. A global variable and a named thread add their names where
    /// they are known; unattributed references are described by whoever read them (the census
    /// and an attach know different things about them), so ``outside`` reads generically here.
    public var holderDescription: String {
        switch self {
        case .globalVariable: return "a global variable"
        case .scheduledTimer: return "a Foundation.Timer scheduled on a run loop"
        case .foundationTimer:
            return "a Foundation.Timer (invalidated or never scheduled; never freed on Linux)"
        case .task: return "a Task (the concurrency runtime holds it while it runs or sleeps)"
        case .dispatchBlock:
            return "a block libdispatch holds (a dispatch source's handler or work on a queue)"
        case .thread: return "a running Thread (it keeps its closure until it exits)"
        case .threadStack: return "a thread's stack or registers"
        case .outside: return "held from outside the Swift heap"
        }
    }

    /// How a report's reference line reads for the reference from this holder to the first
    /// object it keeps.
    public var referenceDescription: String {
        switch self {
        case .globalVariable: return "stores"
        case .scheduledTimer: return "valid until invalidated, never freed on Linux"
        case .foundationTimer: return "never freed on Linux"
        case .task: return "runs or sleeps"
        case .dispatchBlock: return "keeps the block"
        case .thread: return "runs until it exits"
        case .threadStack: return "a word on its stack or in a register"
        case .outside: return "references it cannot attribute"
        }
    }

    /// The name of the group this kind of holder falls in, as heap viewers list roots:
    /// `globals`, `Tasks`, `Foundation timers`, `dispatch blocks`, `threads`, `thread stacks`,
    /// `outside the Swift heap`.
    public var groupName: String {
        switch self {
        case .globalVariable: return "globals"
        case .scheduledTimer, .foundationTimer: return "Foundation timers"
        case .task: return "Tasks"
        case .dispatchBlock: return "dispatch blocks"
        case .thread: return "threads"
        case .threadStack: return "thread stacks"
        case .outside: return "outside the Swift heap"
        }
    }
}

/// How much a path explains, as the path finder ranks it: a path is as weak as its weakest
/// step, and a weaker path is chosen only when no stronger one reaches the node.
public enum PathPriority: UInt8, Comparable, Sendable, CaseIterable {
    /// From a root the program declared (a run loop, a queue), through typed references.
    case declared = 0
    /// From a holder a heap census names (a global, a `Task`, a `Foundation.Timer`, a block
    /// libdispatch keeps).
    case namedHolder = 1
    /// Through a word read conservatively, or a reference its discoverer marked low priority.
    case lowPriorityReference = 2
    /// From references outside the Swift heap that nothing names, or from a thread's stack.
    case unattributed = 3

    /// Orders by strength, the strongest first.
    public static func < (lhs: PathPriority, rhs: PathPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
