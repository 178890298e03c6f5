/// What holds an object of a ``RemoteHeapSnapshot`` from outside the Swift heap: where a
/// retention path starts.
///
/// The vocabulary is the in-process census's (`HeapHolder`): a global variable by its name, a
/// `Foundation.Timer`, a `Task`, a block libdispatch keeps, or references nothing names. An
/// attach also reads every thread's stack and registers, so it names those holders too.
public enum RemoteHolder: Hashable, Sendable, Codable {
    /// A global or static variable, by its demangled name (`MyApp.cache : [MyApp.Entry]`), or
    /// by its address when no symbol names it.
    case globalVariable(name: String)
    /// A `Foundation.Timer` that is still valid: the run loop fires it, and corelibs
    /// Foundation keeps every `Timer` alive (it retains itself).
    case scheduledTimer
    /// A `Foundation.Timer` that was invalidated or never scheduled: on Linux it is never
    /// freed, so whatever its block captured stays too.
    case foundationTimer
    /// A `Task`: the concurrency runtime keeps a task alive while it runs or sleeps.
    case task
    /// A C block on the heap, which is how libdispatch keeps a dispatch source's event
    /// handler and work submitted to a queue.
    case dispatchBlock
    /// A word of a thread's stack (a local variable or a spilled register of a function that
    /// is running or waiting on that thread).
    case threadStack(thread: Int32, name: String)
    /// A register of a thread, as the thread was stopped.
    case threadRegisters(thread: Int32, name: String)
    /// Strong references that were found nowhere the attach looked (C code, the runtime's own
    /// memory): the object's retain count minus the references found.
    case outside(references: Int)

    /// A one-line description, as reports print it.
    public var description: String {
        switch self {
        case .globalVariable(let name): return "global variable \(name)"
        case .scheduledTimer: return "a Foundation.Timer scheduled on a run loop"
        case .foundationTimer:
            return "a Foundation.Timer (invalidated or never scheduled; never freed on Linux)"
        case .task: return "a Task (the concurrency runtime holds it while it runs or sleeps)"
        case .dispatchBlock:
            return "a block libdispatch holds (a dispatch source's handler or work on a queue)"
        case .threadStack(let thread, let name): return "the stack of thread \(thread) \"\(name)\""
        case .threadRegisters(let thread, let name):
            return "a register of thread \(thread) \"\(name)\""
        case .outside(let count):
            return "held from outside the Swift heap (\(count) reference\(count == 1 ? "" : "s"))"
        }
    }

    /// How strongly a path from this holder explains a leak: 0 for a global, 1 for a holder
    /// named by what the object is (a task, a timer, a block), 2 for a thread's stack or
    /// registers, 3 for references nothing names. Lower wins when choosing a path.
    public var rank: Int {
        switch self {
        case .globalVariable: return 0
        case .scheduledTimer, .foundationTimer, .task, .dispatchBlock: return 1
        case .threadStack, .threadRegisters: return 2
        case .outside: return 3
        }
    }
}
