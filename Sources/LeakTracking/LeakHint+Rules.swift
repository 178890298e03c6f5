import Foundation
import RetainGraph

/// What a hint rule reads: the report's path and cycle as the graph has them, with their typed
/// facts (roles, root kinds, known platform types), never their rendered text.
struct HintContext {
    let path: [Reference]
    let cycle: [Reference]?
    let snapshot: GraphSnapshot
    /// The leaked object's short type name, as the hint's text names it.
    let subject: String
    /// The leaked object's node, when the graph has it.
    let subjectID: ObjectID?

    /// What the path starts from, if it starts at a root.
    var rootKind: RootKind? {
        guard case .root(let kind)? = path.first.flatMap({ snapshot.node($0.from) })?.kind
        else { return nil }
        return kind
    }

    /// The remark on that root (`its thread has exited`), if any.
    var rootNote: String? {
        rootKind == nil ? nil : path.first.flatMap { snapshot.node($0.from) }?.note
    }

    /// The path's references, then the cycle's.
    var all: [Reference] { path + (cycle ?? []) }

    /// A node's type name without its module.
    func name(_ id: ObjectID) -> String { snapshot.node(id)?.shortTypeName ?? "?" }

    /// The known platform type of a node, if it is one.
    func knownType(_ id: ObjectID) -> KnownType? {
        snapshot.node(id).flatMap { KnownType(typeName: $0.typeName) }
    }

    /// Whether the subject, or an object on the path or cycle, holds an object of `type`
    /// (a continuation the owner stored, a work item it keeps).
    func holds(_ type: KnownType) -> Bool {
        var holders = Set(all.flatMap { [$0.from, $0.to] })
        if let subjectID { holders.insert(subjectID) }
        return holders.contains { holder in
            knownType(holder) == type
                || snapshot.references(from: holder).contains { knownType($0.to) == type }
        }
    }

    /// The last reference of the path, as `Holder ⇒ role ⇒ Subject`, or the subject's name.
    var lastStep: String {
        guard let last = path.last else { return subject }
        return "\(name(last.from)) ⇒ \(last.role.description) ⇒ \(subject)"
    }
}

/// Chooses the hint of a report from the shape of its path and cycle.
///
/// Rules are tried from the most specific (a registry entry, a URLSession's delegate, what a
/// heap census names as the holder) to the most general (any strong reference), so each
/// situation gets the fix that works for it.
enum HintRules {
    static func leak(
        path: [Reference], cycle: [Reference]?, snapshot: GraphSnapshot, subject: String,
        subjectID: ObjectID? = nil
    ) -> LeakHint {
        let context = HintContext(
            path: path, cycle: cycle, snapshot: snapshot, subject: subject, subjectID: subjectID)
        if let entry = context.all.first(where: {
            if case .registryEntry = $0.role { true } else { false }
        }) {
            let key = entry.role.detail ?? "?"
            return LeakHint(
                code: .registryEntry,
                text: "the timer registry holds \"\(key)\", whose task keeps \(subject) alive: "
                    + "cancel the timer by name (\"\(key)\") when \(subject) is done, "
                    + "or capture [weak self] in the task")
        }
        if let hint = urlSessionDelegate(context) { return hint }
        if case .heapHolder(let holder)? = context.rootKind {
            return heapHolder(holder, context)
        }
        if let hint = closureCapture(context) { return hint }
        if let target = context.all.first(where: { reference in
            guard reference.ownership.retainsTarget,
                reference.role == .target || reference.role == .proxyTarget,
                let holder = snapshot.node(reference.from)
            else { return false }
            return holder.kind == .timer || holder.kind == .proxy || isFoundationTimer(holder)
        }), let holder = snapshot.node(target.from) {
            return timerTarget(holder: holder, context)
        }
        if context.all.contains(where: { isFoundationTimer(snapshot.node($0.from)) }) {
            return foundationTimer(subject: subject)
        }
        if path.isEmpty && cycle == nil {
            return LeakHint(
                code: .unexplained,
                text: "nothing recorded in the graph holds \(subject): something undeclared "
                    + "keeps it alive (a global, a closure, a Foundation.Timer); declare the "
                    + "reference with LiveGraph.addReference, or enable ReferenceReflection")
        }
        let edge = path.last ?? cycle?.last(where: { $0.to == subjectID }) ?? cycle?.first
        let holder = edge.map { context.name($0.from) } ?? "?"
        let role = edge.map { $0.role.description } ?? "?"
        return LeakHint(
            code: .generic,
            text: "cut the strong reference \(holder) ⇒ \(role) ⇒ \(subject): make it weak, "
                + "or break it when \(subject) is closed")
    }

    /// A strong closure capture on the path of a timer or source the program declared (a
    /// RunLoopTimer's action, a DispatchTimer's handler), or of a raw Foundation.Timer.
    private static func closureCapture(_ context: HintContext) -> LeakHint? {
        let snapshot = context.snapshot
        guard
            let capture = context.all.first(where: {
                $0.ownership.retainsTarget && $0.role.isCapture
            })
        else { return nil }
        // The timer that runs the closure: the capture's holder itself when the closure's only
        // capture is its context (`.action (a closure capturing Owner)`), otherwise what holds
        // the closure's context (a declared action closure, or one reflection found inside a
        // timer).
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
            return foundationTimer(subject: context.subject)
        }
        let viaQueue: Bool
        if case .dispatchQueue? = context.rootKind { viaQueue = true } else { viaQueue = false }
        let isScheduled = viaQueue || context.all.contains(where: { $0.role == .resumed })
        let isTimer = holders.contains { id in
            snapshot.node(id).map { $0.kind == .timer || $0.kind == .proxy } ?? false
        }
        if !isScheduled, !isTimer, let stored = storedClosure(holding: capture, context) {
            // No timer, source or queue: an object keeps a closure that captures it.
            return LeakHint(
                code: .closureCycle,
                text: "\(context.name(stored.holder)).\(stored.property) keeps a closure that "
                    + "captures \(context.subject) strongly: capture [weak self] in the closure, "
                    + "or set \(stored.property) to nil when \(context.subject) is done with it")
        }
        let timer = holders.first.map(context.name) ?? "the timer"
        if isScheduled {
            return LeakHint(
                code: .dispatchHandlerCapture,
                text: "the event handler of \(timer) captures self (\(context.subject)) "
                    + "strongly and the queue holds the resumed source: capture [weak self] in "
                    + "the handler, and cancel the source in deinit "
                    + "(or call setEventHandler(handler: nil))")
        }
        return LeakHint(
            code: .closureCapture,
            text: "the closure of \(timer) captures self (\(context.subject)) strongly: capture "
                + "[weak self], and invalidate the timer in stop() or deinit")
    }

    /// The object and property that keep the closure whose capture is `capture`: the capture's
    /// holder itself for a closure whose only capture is its context (`.handler (a closure
    /// capturing Owner)`), otherwise what holds the closure's context on the path or cycle.
    private static func storedClosure(holding capture: Reference, _ context: HintContext)
        -> (holder: ObjectID, property: String)?
    {
        if case .closureCapture(let property, _) = capture.role {
            return (capture.from, property)
        }
        guard
            let into = context.all.first(where: {
                $0.to == capture.from && $0.ownership.retainsTarget
            }), case .storedProperty(let property) = into.role
        else { return nil }
        return (into.from, property)
    }

    /// Whether a node is a `Foundation.Timer` (``/ObjectGraph/KnownType``).
    static func isFoundationTimer(_ node: Node?) -> Bool {
        node.flatMap { KnownType(typeName: $0.typeName) } == .foundationTimer
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
