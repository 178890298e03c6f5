import Foundation
import Locking
import RetainGraph

/// What the instrumented timers know about the threads behind run loops: their real names, and
/// whether they have exited.
///
/// On Linux a thread's name is its pthread name (`pthread_getname_np`; Foundation's
/// `Thread.name` reads the same, and drops a name set before `start()`). A new thread inherits
/// its creator's pthread name, usually the process's, so a worker that never named itself
/// would be reported as `run loop of thread "my-app"`; such a thread is named by its kernel
/// thread id instead (`tid 4242 (unnamed)`, as `top -H` and gdb list it).
///
/// A run loop seen on its own thread is remembered, so a timer added to it later from another
/// thread or a `Task` is named after that thread too; one never seen there is named by its
/// address. When a thread whose run loop holds instrumented timers exits, the run loop's root
/// carries the note `its thread has exited` (a pthread key destructor sets it): its timers will
/// never fire again, and nothing will release what they hold.
enum RunLoopThreads {
    /// The names of the threads run loops were seen on.
    static let seen = Locked(RunLoopNameTable())

    /// The note a run loop's root carries once its thread has exited.
    static let exitedNote = "its thread has exited"

    /// The name of the current thread, whose run loop is `runLoop`; remembers it for `runLoop`
    /// and arranges for the exit note. Call on `runLoop`'s own thread.
    static func nameCurrentThread(owning runLoop: RunLoop) -> String {
        let name = currentThreadName()
        seen.withLock { $0.set(name, for: runLoop) }
        watchExit(of: runLoop)
        return name
    }

    /// Arranges for the exit note on the current thread, whose run loop is `runLoop`.
    static func watchExit(of runLoop: RunLoop) {
        if !Thread.isMainThread { ExitWatch.install(for: runLoop) }
    }

    /// The current thread's own pthread name, or `tid N (unnamed)` when it has none of its own.
    ///
    /// A name is taken as inherited, not its own, when it is empty, the process's name (what a
    /// thread started from the main thread gets), or a libdispatch worker's (`oot.default-qos`,
    /// `r-initiated-qos`: what a thread started from a queue, a `Task` or a test gets). A run
    /// loop on a dispatch worker itself is then unnamed too; it never runs there anyway.
    static func currentThreadName() -> String {
        let name = ThreadNaming.currentPthreadName() ?? ""
        if !name.isEmpty, name != ThreadNaming.processName(), !name.contains("qos") {
            return name
        }
        return ThreadNaming.currentThreadID().map { "tid \($0) (unnamed)" } ?? "unnamed thread"
    }

    /// `run loop at 0x00007f3a2c001200`: a run loop never seen on its own thread.
    static func addressName(of runLoop: RunLoop) -> String {
        let digits = String(
            UInt(bitPattern: Unmanaged.passUnretained(runLoop).toOpaque()), radix: 16)
        return "unknown, run loop at 0x"
            + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}

/// A pthread key whose destructor runs when a thread that scheduled timers on its own run loop
/// exits, and notes on the run loop's root that the thread has exited.
private final class ExitWatch {
    weak var runLoop: RunLoop?

    init(_ runLoop: RunLoop) {
        self.runLoop = runLoop
    }

    /// The key; its value on a thread is a retained `ExitWatch`, released by the destructor.
    static let key: pthread_key_t? = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            let watch = Unmanaged<ExitWatch>.fromOpaque(pointer).takeRetainedValue()
            if let runLoop = watch.runLoop {
                RootNotes.set(RunLoopThreads.exitedNote, for: runLoop)
            }
        }
        return status == 0 ? key : nil
    }()

    /// Installs the watch on the current thread, once; `runLoop` is the thread's run loop.
    static func install(for runLoop: RunLoop) {
        guard let key, pthread_getspecific(key) == nil else { return }
        let watch = Unmanaged.passRetained(ExitWatch(runLoop)).toOpaque()
        if pthread_setspecific(key, watch) != 0 {
            Unmanaged<ExitWatch>.fromOpaque(watch).release()
        }
    }
}
