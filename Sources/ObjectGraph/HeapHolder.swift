/// What holds an object from outside the Swift heap, as a heap reader (a census in this
/// process, or a reader of another process's memory) found it: the start of a retention path.
///
/// A reader counts an object's strong references: those stored in other Swift heap objects,
/// in global variables and (from outside a process) on thread stacks; the rest of its retain
/// count is held from outside (C code such as the CoreFoundation run loop, libdispatch or the
/// concurrency runtime). Where the object itself says who that is, the holder is named.
///
/// Renderers describe holders with ``description``; code that decides something from a holder
/// switches on the case (or its ``kind``), never on text.
///
/// ```swift
/// let holder = HeapHolder.globalVariable(name: "App.cache : [App.Entry]")
/// holder.description   // global variable App.cache : [App.Entry]
/// holder.kind          // .globalVariable
/// ```
public enum HeapHolder: Hashable, Sendable {
    /// A global or static variable, by its demangled name (`App.cache : [App.Entry]`).
    case globalVariable(name: String)
    /// A `Foundation.Timer` that is still valid: the run loop fires it, and corelibs Foundation
    /// keeps every `Timer` alive (its initialiser stores a retained reference to itself that
    /// nothing releases).
    case scheduledTimer
    /// A `Foundation.Timer` that was invalidated, or never scheduled: on Linux it is never
    /// freed, so whatever its block captured stays too.
    case foundationTimer
    /// A `Task`: the concurrency runtime keeps a task alive while it runs or sleeps.
    case task
    /// A C block on the heap, which is how libdispatch keeps a dispatch source's event handler
    /// and work submitted to a queue (`asyncAfter`, a `DispatchWorkItem`).
    case dispatchBlock
    /// A running `Foundation.Thread`, with its thread's name when it has one: the thread keeps
    /// its `Thread` object (and the closure it runs) until it exits.
    case thread(name: String?)
    /// The stack or registers of a thread, by its kernel id and name (read from outside the
    /// process: a census cannot see stacks).
    case threadStack(threadID: Int32, name: String)
    /// References nothing read explains.
    case outside(UnattributedReferences)

    /// The kind of holder.
    public var kind: HeapHolderKind {
        switch self {
        case .globalVariable: return .globalVariable
        case .scheduledTimer: return .scheduledTimer
        case .foundationTimer: return .foundationTimer
        case .task: return .task
        case .dispatchBlock: return .dispatchBlock
        case .thread: return .thread
        case .threadStack: return .threadStack
        case .outside: return .outside
        }
    }

    /// A one-line description, as reports print it: `global variable App.cache : [App.Entry]`,
    /// `a Task (the concurrency runtime holds it while it runs or sleeps)`.
    public var description: String {
        switch self {
        case .globalVariable(let name): return "global variable \(name)"
        case .thread(let name?): return "a running Thread named \"\(name)\""
        case .threadStack(let id, let name):
            return "the stack or registers of thread \(id) \"\(name)\""
        case .outside(let references): return references.description
        default: return kind.holderDescription
        }
    }

    /// The holder's own name where it has one: a variable's, a thread's.
    public var name: String? {
        switch self {
        case .globalVariable(let name): return name
        case .thread(let name): return name
        case .threadStack(_, let name): return name
        default: return nil
        }
    }
}

/// What a heap reader knew of references it could not attribute, so that a report says where
/// they may come from.
public struct UnattributedReferences: Hashable, Sendable {
    /// How many strong references to the object nothing read explains, when the holder stands
    /// for one object (`nil` for the holder of many).
    public var count: Int?
    /// Whether thread stacks and registers were read (from outside a process): then what is
    /// left is C code or the runtime.
    public var stacksWereRead: Bool
    /// Whether objects made before the reader started are unknown to it (a census started
    /// after launch): such an object may be the holder.
    public var earlierObjectsUnknown: Bool

    /// Unattributed references as a reader describes them.
    public init(count: Int? = nil, stacksWereRead: Bool, earlierObjectsUnknown: Bool = false) {
        self.count = count
        self.stacksWereRead = stacksWereRead
        self.earlierObjectsUnknown = earlierObjectsUnknown
    }

    /// `held from outside the Swift heap (…)`, saying what may hold the object.
    public var description: String {
        var text: String
        if stacksWereRead {
            text =
                "held from outside the Swift heap (C code or the runtime: strong references "
                + "its retain count has and nothing read holds)"
        } else if earlierObjectsUnknown {
            text =
                "held from outside the Swift heap, or by an object made before "
                + "HeapCensus.start() (the census does not know it)"
        } else {
            text = "held from outside the Swift heap (a thread's stack, C code or the runtime)"
        }
        if let count { text += " (\(count) reference\(count == 1 ? "" : "s"))" }
        return text
    }
}

/// The kinds of holders a heap reader names (see ``HeapHolder``), as JSON and roles record them.
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

    /// How reports describe a holder of this kind in general: `a Task (the concurrency runtime
    /// holds it while it runs or sleeps)`. A ``HeapHolder`` adds what is known of one holder (a
    /// variable's name, a thread's name, what a reader could see of unattributed references).
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

extension HeapHolderKind {
    /// Whether a path from a holder of this kind explains less than one from a named holder:
    /// a thread's stack (a word there may be a stale local) or references nothing names.
    public var isUnattributed: Bool { self == .threadStack || self == .outside }
}
