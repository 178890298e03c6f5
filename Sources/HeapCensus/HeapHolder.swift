import Foundation
import ObjectGraph

/// What holds a heap object from outside the Swift heap: the start of a retention path.
///
/// The census counts an object's strong references: those stored in other Swift heap objects
/// and in global variables it can see; the rest of its retain count is held from outside (a
/// thread's stack, C code such as the CoreFoundation run loop, libdispatch or the concurrency
/// runtime). Where the object itself says who that is, the holder is named.
public enum HeapHolder: Hashable, Sendable {
    /// A global or static variable, by its demangled name (`MyApp.cache : [MyApp.Entry]`).
    case globalVariable(name: String)
    /// A `Foundation.Timer` that is still valid: the run loop fires it, and corelibs
    /// Foundation keeps every `Timer` alive (its initialiser stores a retained reference to
    /// itself that nothing releases).
    case scheduledTimer
    /// A `Foundation.Timer` that was invalidated, or never scheduled: on Linux it is never
    /// freed, so whatever its block captured stays too.
    case foundationTimer
    /// A `Task`: the concurrency runtime keeps a task alive while it runs or sleeps.
    case task
    /// A C block on the heap, which is how libdispatch keeps a dispatch source's event
    /// handler and work submitted to a queue (`asyncAfter`, a `DispatchWorkItem`).
    case dispatchBlock
    /// A running `Foundation.Thread`, with its pthread's name when it has one (what `top` and
    /// debuggers show: the name the thread gave itself, else the one it inherited from the
    /// thread that created it; corelibs Foundation does not apply a name set before
    /// `start()`): the thread keeps its `Thread` object (and the closure it runs) until it
    /// exits.
    case thread(name: String?)
    /// References the census cannot attribute: a thread's stack, C code, or (when the census
    /// was started after launch, see ``HeapCensus/isRecordingSinceLaunch``) an object
    /// allocated before it started.
    case outside(references: Int)

    /// A one-line description, as reports print it.
    public var description: String {
        switch self {
        case .globalVariable(let name): return "global variable \(name)"
        case .thread(let name?): return "a running Thread (its pthread is named \"\(name)\")"
        case .outside(let count):
            return Self.description(of: .outside)
                + " (\(count) reference\(count == 1 ? "" : "s"))"
        default: return Self.description(of: kind)
        }
    }

    /// The kind of holder.
    public var kind: HeapHolderKind {
        switch self {
        case .globalVariable: return .globalVariable
        case .scheduledTimer: return .scheduledTimer
        case .foundationTimer: return .foundationTimer
        case .task: return .task
        case .dispatchBlock: return .dispatchBlock
        case .thread: return .thread
        case .outside: return .outside
        }
    }

    /// How a holder of `kind` is described (a global variable and unattributed references
    /// add their name or count): ``/ObjectGraph/HeapHolderKind/holderDescription``, except for
    /// unattributed references, whose description says what the census knows.
    static func description(of kind: HeapHolderKind) -> String {
        switch kind {
        case .outside:
            // Since launch, the census knows every Swift object: the holder is not one.
            return HeapCensus.isRecordingSinceLaunch
                ? "held from outside the Swift heap (a thread's stack, C code or the runtime)"
                : "held from outside the Swift heap, or by an object made before "
                    + "HeapCensus.start() (the census does not know it)"
        default: return kind.holderDescription
        }
    }
}

/// A path of strong references from a holder to an object, as ``HeapSnapshot`` found it.
public struct RetentionPath: Sendable {
    /// What holds the first object.
    public let holder: HeapHolder
    /// The objects from the first held one to the target, in order.
    public let objects: [HeapObjectRecord]
    /// The references between consecutive objects (one fewer than `objects`).
    public let references: [HeapReference]

    /// The target: the last object.
    public var target: HeapObjectRecord? { objects.last }

    /// The path on one line: `holder ⇒ Timer ⇒ (captures Owner) Owner`.
    public var description: String {
        var text = holder.description
        for (index, object) in objects.enumerated() {
            text += " ⇒ "
            if index > 0 { text += "(\(references[index - 1].label)) " }
            text += object.typeName
        }
        return text
    }
}

extension HeapSnapshot {
    /// The path from what holds `object` outside the Swift heap (or a global variable) to it.
    ///
    /// - Parameter object: A live object; it must have been allocated while the census ran.
    /// - Returns: The path, or nil when the census does not know the object or nothing found
    ///   holds it.
    /// - Complexity: The graph's one path search on the snapshot's first question, then the
    ///   length of the path.
    public func retentionPath(to object: AnyObject) -> RetentionPath? {
        id(of: object).flatMap(retentionPath(to:))
    }

    /// The path from a holder to the object `id`, as the project's one path finder chooses it
    /// (``/ObjectGraph/CompactGraph/PathTree``).
    ///
    /// A named holder (a global variable, a task, a timer) is preferred to references the
    /// census cannot attribute, even when it is farther: an object a stack variable of the
    /// caller still holds is usually also held by what keeps it alive afterwards. A path
    /// through typed references is preferred to one through words read conservatively. Among
    /// paths of the same priority, the shortest wins.
    public func retentionPath(to id: HeapObjectID) -> RetentionPath? {
        guard Int(id.rawValue) < objectCount, id.rawValue >= 0 else { return nil }
        return retentionPath(to: id, in: graph.paths())
    }

    /// The path from a holder to `id` that passes through none of `ignored` (for example a
    /// collection of the caller's that holds the object only to ask about it).
    ///
    /// - Complexity: A path search of its own (O(*n* + *r*)): to ask about many objects,
    ///   ask ``paths(ignoring:)`` once and ``retentionPath(to:in:)`` for each.
    public func retentionPath(to id: HeapObjectID, ignoring ignored: Set<HeapObjectID>)
        -> RetentionPath?
    {
        guard Int(id.rawValue) < objectCount, id.rawValue >= 0 else { return nil }
        return retentionPath(to: id, in: paths(ignoring: ignored))
    }

    /// The graph's paths avoiding `ignored` objects, for many ``retentionPath(to:in:)``
    /// questions at the cost of one search.
    public func paths(ignoring ignored: Set<HeapObjectID>) -> CompactGraph.PathTree {
        ignored.isEmpty
            ? graph.paths() : graph.paths(excluding: ignored.map { UInt32($0.rawValue) })
    }

    /// The path to `id` in `tree` (from ``paths(ignoring:)``).
    public func retentionPath(to id: HeapObjectID, in tree: CompactGraph.PathTree)
        -> RetentionPath?
    {
        guard Int(id.rawValue) < objectCount, id.rawValue >= 0,
            let steps = tree.path(to: UInt32(id.rawValue)), let first = steps.first,
            !isObject(first.from)
        else { return nil }
        var objects = [self[HeapObjectID(rawValue: Int32(first.to))]]
        var references: [HeapReference] = []
        for step in steps.dropFirst() {
            references.append(reference(step))
            objects.append(self[HeapObjectID(rawValue: Int32(step.to))])
        }
        return RetentionPath(
            holder: holder(at: first.from, of: Int(first.to)), objects: objects,
            references: references)
    }

    /// The holders of `id` outside the heap: globals and unattributed references.
    public func outsideHolders(of id: HeapObjectID) -> [HeapHolder] {
        guard Int(id.rawValue) < objectCount, id.rawValue >= 0 else { return [] }
        return graph.incoming(to: UInt32(id.rawValue)).filter { !isObject($0.from) }.map {
            holder(at: $0.from, of: Int(id.rawValue))
        }
    }

    /// The holder node `node` says holds object `object`.
    func holder(at node: CompactGraph.NodeID, of object: Int) -> HeapHolder {
        guard case .heapHolder(let kind, let description)? = graph.rootKind(of: node) else {
            return .outside(references: Int(outsideCounts[object]))
        }
        switch kind {
        case .globalVariable:
            return .globalVariable(name: graph.label(of: node) ?? description)
        case .scheduledTimer: return .scheduledTimer
        case .foundationTimer: return .foundationTimer
        case .task: return .task
        case .dispatchBlock: return .dispatchBlock
        case .thread: return .thread(name: graph.label(of: node))
        case .threadStack, .outside: return .outside(references: Int(outsideCounts[object]))
        }
    }

    /// The object `id` stands for, retained, if it is still alive and is a Swift object (not a
    /// block); nil once it died or began dying.
    public func liveObject(_ id: HeapObjectID) -> AnyObject? {
        let index = Int(id.rawValue)
        guard index >= 0, index < objectCount, entryKinds[index] != .block else { return nil }
        return CensusDoor.object(at: address(of: index))
    }

    /// The array storage object whose elements start at `elements`, if the census knows it.
    func storageID(ofElementsAt elements: UInt) -> HeapObjectID? {
        // Array storage: a 16-byte header and count/capacity words before the elements.
        id(ofObjectAt: elements &- 32)
    }
}
