/// The kinds of roots: things that outlive the objects they hold.
///
/// A root is where a retention path starts. The live graph records roots that instrumented
/// code names (a thread's run loop, a dispatch queue); a heap reader names what holds an
/// object from outside the Swift heap (``heapHolder(_:)``).
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
    /// What a heap reader found holding an object from outside the Swift heap: a global
    /// variable, a `Task`, a `Foundation.Timer`, a block libdispatch keeps, a running thread,
    /// a thread's stack, or references it cannot attribute.
    case heapHolder(HeapHolder)

    /// A short human-readable description, such as `run loop of thread "main"`.
    public var description: String {
        switch self {
        case .runLoop(let thread): return "run loop of thread \"\(thread)\""
        case .dispatchQueue(let label): return "dispatch queue \"\(label)\""
        case .immortalType(let name): return "type \(name) (immortal)"
        case .process: return "process"
        case .custom(let name): return name
        case .heapHolder(let holder): return holder.description
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

    /// Whether a path from this root explains less than a path from a named one (its
    /// ``pathPriority`` is ``PathPriority/unattributed``): the path finder visits such roots
    /// last.
    public var isUnattributed: Bool { pathPriority == .unattributed }

    /// Whether this root says what holds (a thread's stack, a global…), as opposed to the
    /// references outside the Swift heap that nothing names: among roots of one priority, the
    /// path finder and ``/HeapGraph/HeapSnapshot/holders(of:)`` take those that say first.
    package var namesItsHolder: Bool {
        if case .heapHolder(.outside) = self { return false }
        return true
    }

    /// The path finder's priority of paths from this root (see ``CompactGraph/PathTree``):
    /// ``PathPriority/declared`` for roots the program declared (run loops, queues, custom
    /// roots), ``PathPriority/namedHolder`` for holders a heap census names, and
    /// ``PathPriority/unattributed`` for references nothing names and for a thread's stack (a
    /// word there may be a stale local).
    public var pathPriority: PathPriority {
        switch self {
        case .heapHolder(let holder):
            return holder.kind.isUnattributed ? .unattributed : .namedHolder
        default: return .declared
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
    /// Through a word of a task's (or job's) memory other than the closure it runs: a frame's,
    /// or bytes malloc left in the task's block from an earlier use (stale words are common:
    /// tasks are made and freed all the time). Chosen only when nothing else reaches the
    /// object: an object only a task's frame keeps is still held by that task, but a stale
    /// word must never name a task as the holder of an object a thread or an unnamed
    /// reference holds.
    case taskMemory = 4

    /// Orders by strength, the strongest first.
    public static func < (lhs: PathPriority, rhs: PathPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
