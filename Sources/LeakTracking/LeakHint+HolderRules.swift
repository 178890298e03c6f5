import RetainGraph

/// Hints for the holders a heap census names (a `Task`, a `Foundation.Timer`, a block
/// libdispatch keeps, a global variable, references from outside the heap) and for the platform
/// types that keep what they are given (a `URLSession`'s delegate, a `NotificationCenter`'s
/// observer block, a `Thread`'s closure).
///
/// Each gives the fix that works on Linux for that holder, not "make it weak": a session is
/// invalidated, a continuation resumed, an observer removed by its token.
extension HintRules {
    /// A `URLSession` on the path or cycle holds its delegate: only invalidating the session
    /// lets go of it.
    static func urlSessionDelegate(_ context: HintContext) -> LeakHint? {
        guard
            let held = context.all.first(where: {
                $0.ownership.retainsTarget && context.knownType($0.from) == .urlSession
            })
        else { return nil }
        let subject = context.subject
        let session = context.name(held.from)
        return LeakHint(
            code: .urlSessionDelegate,
            text: "\(session) keeps its delegate (\(context.name(held.to))) strongly until the "
                + "session is invalidated, so \(subject) lives as long as the session: call "
                + "session.invalidateAndCancel() (or finishTasksAndInvalidate() to let running "
                + "tasks end) when \(subject) is done; a weak property for the session does not "
                + "help, the session holds the delegate")
    }

    /// Advice for a path the heap census found: it starts at what holds the first object from
    /// outside the heap and ends at the reference that keeps the subject.
    static func heapHolder(
        _ holder: HeapHolder, _ context: HintContext
    ) -> LeakHint {
        let description = holder.description
        let subject = context.subject
        let last = context.lastStep
        if context.path.contains(where: { context.knownType($0.from) == .notificationCenter }) {
            return LeakHint(
                code: .notificationObserverCapture,
                text: "a NotificationCenter observer block captures \(subject) strongly "
                    + "(\(last)), and the center keeps the block until the observer is "
                    + "removed: keep the token addObserver(forName:object:queue:using:) returns "
                    + "and remove the observer in stop() (removeObserver(token)), or capture "
                    + "[weak self] in the block")
        }
        if context.path.contains(where: { context.knownType($0.from) == .thread }) {
            return threadClosure(subject: subject, last: last)
        }
        switch holder.kind {
        case .task:
            if context.holds(.checkedContinuation) {
                return LeakHint(
                    code: .continuationNeverResumed,
                    text: "the Task waits on a continuation that nobody resumes, and its closure "
                        + "keeps \(subject) (\(last)): cancelling the task does not end the "
                        + "wait; resume the continuation in stop() (resume(returning:) or "
                        + "resume(throwing: CancellationError())), or await it inside "
                        + "withTaskCancellationHandler whose handler resumes it")
            }
            return LeakHint(
                code: .taskCapture,
                text: "the Task's closure captures \(subject) strongly (\(last)): capture "
                    + "[weak self] in the task, or cancel the task in stop() or deinit")
        case .scheduledTimer, .foundationTimer:
            return foundationTimer(subject: subject)
        case .dispatchBlock:
            return dispatchBlock(context, last: last)
        case .globalVariable:
            return globalVariable(description, context, last: last)
        case .thread:
            return threadClosure(subject: subject, last: last)
        case .threadStack:
            return LeakHint(
                code: .heldFromOutside,
                text: "\(subject) is held by \(description) (\(last)): a local variable of a "
                    + "function that runs or waits on that thread, or a stale word there; look at "
                    + "what the thread is doing, and at what keeps the first object of the path")
        case .outside:
            return LeakHint(
                code: .heldFromOutside,
                text: "\(subject) is \(description) (\(last)), which nothing read names: "
                    + "look for what keeps the first object of the path")
        }
    }

    /// A running `Thread`'s closure: the thread keeps it until it returns.
    private static func threadClosure(subject: String, last: String) -> LeakHint {
        LeakHint(
            code: .threadClosure,
            text: "the closure of a Thread captures \(subject) strongly (\(last)), and the "
                + "thread keeps its closure until the closure returns: end the thread's loop in "
                + "stop() (a flag its run loop checks), or capture [weak self]")
    }

    /// A dispatch source's handler or a work item's block: `cancel()` releases a source's
    /// handler, while a cancelled work item keeps its block until its deadline (checked on
    /// this platform), so `[weak self]` is the fix that always works.
    private static func dispatchBlock(_ context: HintContext, last: String) -> LeakHint {
        let subject = context.subject
        let fix: String
        if context.holds(.dispatchWorkItem) && !context.holds(.dispatchSource) {
            fix =
                "capture [weak self] in the work item's block: cancel() does not release a "
                + "work item's block before its deadline"
        } else if context.holds(.dispatchSource) && !context.holds(.dispatchWorkItem) {
            fix =
                "capture [weak self] in the handler, and cancel() the source in stop() (a "
                + "cancelled source releases its handler)"
        } else {
            fix =
                "capture [weak self] in the block, and cancel() it in stop(): a cancelled "
                + "dispatch source releases its handler, a cancelled DispatchWorkItem keeps its "
                + "block until its deadline"
        }
        return LeakHint(
            code: .dispatchBlockCapture,
            text: "a block libdispatch keeps (a dispatch source's event handler, or a work "
                + "item on a queue) captures \(subject) strongly (\(last)): \(fix)")
    }

    /// A global cache or registry: the entry stays until it is removed.
    private static func globalVariable(
        _ description: String, _ context: HintContext, last: String
    ) -> LeakHint {
        let subject = context.subject
        // A registry of closures: one of them captures the subject.
        if context.path.contains(where: { $0.ownership.retainsTarget && $0.role.isCapture }) {
            return LeakHint(
                code: .globalVariable,
                text: "\(description) keeps a closure that captures \(subject) (\(last)): "
                    + "remove the entry when \(subject) is done (unregister it in stop()), or "
                    + "capture [weak self] in the closure")
        }
        return LeakHint(
            code: .globalVariable,
            text: "\(description) holds \(subject) (\(last)), and a global keeps its entries "
                + "for the life of the process: remove the entry when \(subject) is done "
                + "(unregister it in stop()), or bound the cache (evict old entries, or hold "
                + "them weakly)")
    }
}
