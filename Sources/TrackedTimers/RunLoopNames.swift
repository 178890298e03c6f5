import Foundation
import Locking

/// Names run loops for reports, where a thread's own name cannot be trusted.
///
/// The instrumented timers record a run loop as the root `.runLoop(thread:)`, named after the
/// thread that owns it: its own pthread name, or `tid 4242 (unnamed)` when it only inherited
/// the process's. On Linux a thread's name is fragile: Foundation drops a name set on a
/// `Thread` before `start()`, a new thread inherits its creator's pthread name (a dispatch
/// worker's, such as `"oot.default-qos"`), `Thread.current.name = …` inside the thread names
/// the pthread only if `start()` has already stored the thread's handle (a race with the
/// thread's first lines), and under ThreadSanitizer it does not stick at all. A name given here
/// wins over the thread's; given on the run loop's own thread, it also lets the root say when
/// the thread exits.
///
/// ```swift
/// let worker = Thread {
///     RunLoopNames.setName("network worker")   // names RunLoop.current
///     let timer = try? RunLoopTimer.scheduled(interval: 1, repeats: true) { _ in poll() }
///     RunLoop.current.run()
/// }
/// ```
///
/// The graph keys a run-loop root by its `RunLoop` object, so name a run loop before the first
/// timer is scheduled on it.
public enum RunLoopNames {
    /// The names given.
    static let names = Locked(RunLoopNameTable())

    /// Gives `runLoop` a name for the roots recorded for it from now on.
    ///
    /// - Parameters:
    ///   - name: The name, printed as `run loop of thread "name"`.
    ///   - runLoop: The run loop; the current thread's by default.
    /// - Complexity: Amortised O(1); entries of dead run loops are dropped as new ones are added.
    public static func setName(_ name: String, for runLoop: RunLoop = .current) {
        names.withLock { $0.set(name, for: runLoop) }
        if runLoop === RunLoop.current { RunLoopThreads.watchExit(of: runLoop) }
    }
}

/// Names of run loops, each kept only while its run loop lives: the names given
/// (``RunLoopNames``) and the names of the threads run loops were seen on (`RunLoopThreads`).
struct RunLoopNameTable {
    private struct Entry {
        weak var runLoop: RunLoop?
        var name: String
    }

    private var entries: [ObjectIdentifier: Entry] = [:]

    /// Names `runLoop`, forgetting the run loops that died.
    mutating func set(_ name: String, for runLoop: RunLoop) {
        entries = entries.filter { $0.value.runLoop != nil }
        entries[ObjectIdentifier(runLoop)] = Entry(runLoop: runLoop, name: name)
    }

    /// The name of `runLoop`, if it is that same, living run loop.
    subscript(runLoop: RunLoop) -> String? {
        guard let entry = entries[ObjectIdentifier(runLoop)], entry.runLoop === runLoop else {
            return nil
        }
        return entry.name
    }
}
