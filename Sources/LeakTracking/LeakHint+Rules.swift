import Foundation
import RetainGraph

/// Chooses the hint of a report from the shape of its path and cycle.
///
/// Rules are tried from the most specific (a registry entry, a strong closure capture) to the
/// most general (any strong reference), so each seed scenario gets its own advice.
enum HintRules {
    static func leak(
        path: [Reference], cycle: [Reference]?, snapshot: GraphSnapshot, subject: String
    ) -> LeakHint {
        let all = path + (cycle ?? [])
        func name(_ id: ObjectID) -> String { snapshot.node(id)?.shortTypeName ?? "?" }
        var rootKind: RootKind?
        var rootNote: String?
        if let first = path.first, let root = snapshot.node(first.from),
            case .root(let kind) = root.kind
        {
            rootKind = kind
            rootNote = root.note
        }

        if let entry = all.first(where: { reference in
            if case .registryEntry = reference.role { return true }
            return false
        }) {
            let key = entry.role.detail ?? "?"
            return LeakHint(
                code: .registryEntry,
                text: "the timer registry holds \"\(key)\", whose task keeps \(subject) alive: "
                    + "cancel the timer by name (\"\(key)\") when \(subject) is done, "
                    + "or capture [weak self] in the task")
        }
        if case .heapHolder(let holder, let description)? = rootKind {
            return heapHolder(
                holder, description: description, path: path, snapshot: snapshot,
                subject: subject)
        }
        if let capture = all.first(where: { $0.ownership.retainsTarget && $0.role.isCapture }) {
            // The timer that runs the closure: the capture's holder itself when the closure's
            // only capture is its context (`.action (a closure capturing Owner)`), otherwise
            // what holds the closure's context (a declared action closure, or one reflection
            // found inside a timer).
            let holders: [ObjectID]
            if case .closureCapture = capture.role {
                holders = [capture.from]
            } else {
                holders = snapshot.references(to: capture.from)
                    .filter { $0.role == .actionClosure || snapshot.node($0.from)?.kind == .timer }
                    .map(\.from)
            }
            // A raw Foundation.Timer's block: its hint is the Foundation one.
            if holders.contains(where: { isFoundationTimer(snapshot.node($0)) }) {
                return foundationTimer(subject: subject)
            }
            let timer = holders.first.map(name) ?? "the timer"
            let viaQueue: Bool
            if case .dispatchQueue? = rootKind { viaQueue = true } else { viaQueue = false }
            if viaQueue || all.contains(where: { $0.role == .resumed }) {
                return LeakHint(
                    code: .dispatchHandlerCapture,
                    text: "the event handler of \(timer) captures self (\(subject)) strongly "
                        + "and the queue holds the resumed source: capture [weak self] in the "
                        + "handler, and cancel the source in deinit "
                        + "(or call setEventHandler(handler: nil))")
            }
            return LeakHint(
                code: .closureCapture,
                text: "the closure of \(timer) captures self (\(subject)) strongly: capture "
                    + "[weak self], and invalidate the timer in stop() or deinit")
        }
        if let target = all.first(where: { reference in
            guard reference.ownership.retainsTarget,
                reference.role == .target || reference.role == .proxyTarget,
                let holder = snapshot.node(reference.from)
            else { return false }
            return holder.kind == .timer || holder.kind == .proxy || isFoundationTimer(holder)
        }), let holder = snapshot.node(target.from) {
            return timerTarget(
                holder: holder, path: path, cycle: cycle, rootKind: rootKind, rootNote: rootNote,
                subject: subject)
        }
        if all.contains(where: { isFoundationTimer(snapshot.node($0.from)) }) {
            return foundationTimer(subject: subject)
        }
        if path.isEmpty && cycle == nil {
            return LeakHint(
                code: .unexplained,
                text: "nothing recorded in the graph holds \(subject): something undeclared "
                    + "keeps it alive (a global, a closure, a Foundation.Timer); declare the "
                    + "reference with LiveGraph.addReference, or enable ReferenceReflection")
        }
        let edge = path.last ?? cycle?.first
        let holder = edge.map { name($0.from) } ?? "?"
        let role = edge.map { $0.role.description } ?? "?"
        return LeakHint(
            code: .generic,
            text: "cut the strong reference \(holder) ⇒ \(role) ⇒ \(subject): make it weak, "
                + "or break it when \(subject) is closed")
    }

    /// Advice for a path the heap census found: it starts at what holds the first object from
    /// outside the heap and ends at the reference that keeps the subject.
    private static func heapHolder(
        _ holder: HeapHolderKind, description: String, path: [Reference],
        snapshot: GraphSnapshot, subject: String
    ) -> LeakHint {
        let last =
            path.last.map {
                "\(snapshot.node($0.from)?.shortTypeName ?? "?") ⇒ "
                    + "\($0.role.description) ⇒ \(subject)"
            } ?? subject
        if path.contains(where: {
            snapshot.node($0.from).flatMap { KnownType(typeName: $0.typeName) }
                == .notificationCenter
        }) {
            return LeakHint(
                code: .notificationObserverCapture,
                text: "a NotificationCenter observer block captures \(subject) strongly "
                    + "(\(last)), and the center keeps the block until the observer is "
                    + "removed: remove the observer in stop() (removeObserver(token)), or "
                    + "capture [weak self] in the block")
        }
        switch holder {
        case .task:
            return LeakHint(
                code: .taskCapture,
                text: "the Task's closure captures \(subject) strongly (\(last)): capture "
                    + "[weak self] in the task, or cancel the task in stop() or deinit")
        case .scheduledTimer, .foundationTimer:
            return foundationTimer(subject: subject)
        case .dispatchBlock:
            return LeakHint(
                code: .dispatchBlockCapture,
                text: "a block libdispatch keeps (a dispatch source's event handler, or work on "
                    + "a queue) captures \(subject) strongly (\(last)): capture [weak self], "
                    + "and cancel the source (or setEventHandler(handler: nil)) or the work "
                    + "item when \(subject) is done")
        case .globalVariable:
            return LeakHint(
                code: .globalVariable,
                text: "\(description) holds \(subject) (\(last)): remove it from there when "
                    + "\(subject) is done, or hold it weakly")
        case .thread:
            return LeakHint(
                code: .threadCapture,
                text: "\(description) runs a closure that captures \(subject) strongly "
                    + "(\(last)), and a thread keeps its closure until it exits: end the "
                    + "thread's loop when \(subject) is done (a flag it checks, or "
                    + "Thread.cancel() and isCancelled), or capture [weak self]")
        case .threadStack:
            return LeakHint(
                code: .heldFromOutside,
                text: "\(subject) is held by \(description) (\(last)): a local variable of a "
                    + "function that runs or waits on that thread, or a stale word there; look at "
                    + "what the thread is doing, and at what keeps the first object of the path")
        case .outside:
            return LeakHint(
                code: .heldFromOutside,
                text: "\(subject) is \(description) (\(last)), which the census cannot name: "
                    + "a thread's stack, or C code; look for what keeps the first object of "
                    + "the path")
        }
    }

    /// Whether a node is a `Foundation.Timer` (``/ObjectGraph/KnownType``).
    static func isFoundationTimer(_ node: Node?) -> Bool {
        node.flatMap { KnownType(typeName: $0.typeName) } == .foundationTimer
    }

    private static func timerTarget(
        holder: Node, path: [Reference], cycle: [Reference]?, rootKind: RootKind?,
        rootNote: String?, subject: String
    ) -> LeakHint {
        let timer = holder.shortTypeName
        if isFoundationTimer(holder) {
            return foundationTimer(subject: subject)
        }
        if timer.contains("FrameTimer") || timer.contains("DisplayLink") {
            return LeakHint(
                code: .frameTimerTarget,
                text: "the frame timer \(timer) holds its target \(subject) strongly (like "
                    + "CADisplayLink): make a WeakProxy its target or use a closure capturing "
                    + "[weak self], and invalidate it when \(subject) goes away")
        }
        if path.isEmpty && !(holder.timer?.isScheduled ?? false) {
            return LeakHint(
                code: .unscheduledTimer,
                text: "\(timer) was never scheduled (not added to a run loop), so it never "
                    + "fires, yet it holds its target \(subject) strongly: invalidate it, or "
                    + "create it only when it is added to a run loop")
        }
        if case .runLoop(let thread)? = rootKind, !isMainThread(thread), let rootNote {
            return LeakHint(
                code: .backgroundRunLoop,
                text:
                    "\(timer) is scheduled on the run loop of thread \"\(thread)\" (\(rootNote)): "
                    + "that run loop will never run again, so the timer never fires and never "
                    + "lets go of \(subject): invalidate the timer before the thread ends "
                    + "(invalidate works from any thread), or use a weak target")
        }
        if case .runLoop(let thread)? = rootKind, !isMainThread(thread) {
            return LeakHint(
                code: .backgroundRunLoop,
                text: "\(timer) is scheduled on the run loop of thread \"\(thread)\", which "
                    + "holds it whether or not that run loop ever runs, and the timer holds "
                    + "\(subject) strongly: invalidate the timer when \(subject) is closed "
                    + "(invalidate works from any thread), or use a weak target")
        }
        if cycle == nil && !path.isEmpty {
            return LeakHint(
                code: .heldFromRoot,
                text: "the run loop holds the timer and the timer holds \(subject) strongly, "
                    + "with no cycle (a cycle-only detector misses this): invalidate the timer "
                    + "when the owner is closed; a weak timer property does not help")
        }
        return LeakHint(
            code: .strongTimerTarget,
            text: "the timer holds its target strongly: use a weak target or WeakProxy, or "
                + "invalidate in stop() (\(timer) ⇒ target ⇒ \(subject))")
    }

    static func foundationTimer(subject: String) -> LeakHint {
        LeakHint(
            code: .foundationTimer,
            text: "a raw Foundation.Timer holds \(subject): on Linux a Foundation.Timer is "
                + "never freed and invalidate() does not release its block, so what the block "
                + "captures strongly stays alive; use RunLoopTimer, or capture only a small "
                + "box emptied on invalidate")
    }

    static func zombie(timer: String, subject: String, firesIntoDeadTarget: Int) -> LeakHint {
        let evidence =
            firesIntoDeadTarget > 0
            ? " (\(firesIntoDeadTarget) fires after the target died)" : ""
        return LeakHint(
            code: .zombieTimer,
            text: "\(subject) died but \(timer) is still scheduled, repeats and never stops "
                + "by itself: it fires into nothing\(evidence). Invalidate the timer in "
                + "\(subject)'s deinit (with a wrapper: call its clearUp()); a weak proxy or "
                + "weak wrapper only hides this")
    }

    static func pendingOneShot(
        timer: String, subject: String, fireDate: Double?, now: Double?
    ) -> LeakHint {
        let when = fireDate.map { ", which " + LeakReport.describeFire(at: $0, from: now) } ?? ""
        return LeakHint(
            code: .pendingOneShot,
            text: "\(subject) is held only by the one-shot \(timer)\(when): it is released when "
                + "it fires, provided its run loop or queue runs")
    }

    static func isMainThread(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered == "main" || lowered == "main thread" || lowered.hasSuffix(".main-thread")
    }
}

/// A date given in seconds since 1970, in ISO 8601 with milliseconds.
func isoDate(_ seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
}
