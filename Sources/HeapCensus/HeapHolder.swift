import Foundation
import RetainGraph
import StackTraces

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
    /// Foundation keeps every `Timer` alive (it retains itself; see LINUX-NOTES.md).
    case scheduledTimer
    /// A `Foundation.Timer` that was invalidated, or never scheduled: on Linux it is never
    /// freed, so whatever its block captured stays too.
    case foundationTimer
    /// A `Task`: the concurrency runtime keeps a task alive while it runs or sleeps.
    case task
    /// A C block on the heap, which is how libdispatch keeps a dispatch source's event
    /// handler and work submitted to a queue (`asyncAfter`, a `DispatchWorkItem`).
    case dispatchBlock
    /// References the census cannot attribute: a thread's stack, C code, or an object
    /// allocated before the census started (the census does not know it).
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
        case .outside(let count):
            return "held from outside the Swift heap, or by an object older than the census "
                + "(\(count) reference\(count == 1 ? "" : "s"))"
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

    /// The path on one line: `holder ⇒ Timer ⇒ (_fire) Owner`.
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
    /// The shortest strong path from a holder outside the Swift heap (or a global variable)
    /// to `object`.
    ///
    /// - Parameter object: A live object; it must have been allocated while the census ran.
    /// - Returns: The path, or nil when the census does not know the object or nothing found
    ///   holds it.
    /// - Complexity: A breadth-first walk over the holders of `object` only (the snapshot
    ///   keeps every object's in-references).
    public func retentionPath(to object: AnyObject) -> RetentionPath? {
        id(of: object).flatMap(retentionPath(to:))
    }

    /// The shortest strong path from a holder to the object `id`.
    ///
    /// A named holder (a global variable, a task, a timer) is preferred to references the
    /// census cannot attribute, even when it is farther: an object a stack variable of the
    /// caller still holds is usually also held by what keeps it alive afterwards. Among holders
    /// of the same rank, the nearest wins.
    public func retentionPath(to id: HeapObjectID) -> RetentionPath? {
        retentionPath(to: id, ignoring: [])
    }

    /// The shortest strong path from a holder to `id` that passes through none of `ignored`
    /// (for example a collection of the caller's that holds the object only to ask about it).
    public func retentionPath(to id: HeapObjectID, ignoring ignored: Set<HeapObjectID>)
        -> RetentionPath?
    {
        let target = Int(id.rawValue)
        guard target < objectCount else { return nil }
        // Breadth-first over strong in-references; `via[n]` is the edge n holds its successor
        // (toward the target) through.
        var via: [Int32: Int32] = [Int32(target): -1]
        var level = [Int32(target)]
        var nearestUnnamed: Int32?
        while !level.isEmpty {
            let roots = level.filter { isHeld(Int($0)) }
            if let best = roots.min(by: { rank(Int($0)) < rank(Int($1)) }) {
                if rank(Int(best)) < 2 { return path(from: Int(best), via: via) }
                if nearestUnnamed == nil { nearestUnnamed = best }
            }
            var next: [Int32] = []
            for node in level {
                for step in graph.incoming(to: CompactGraph.NodeID(node)) {
                    guard graph.kind(ofEdge: step.edge) == .strong else { break }  // strong first
                    let source = Int32(step.from)
                    guard via[source] == nil,
                        !ignored.contains(HeapObjectID(rawValue: source))
                    else { continue }
                    via[source] = Int32(step.edge)
                    next.append(source)
                }
            }
            level = next
        }
        return nearestUnnamed.map { path(from: Int($0), via: via) }
    }

    /// The holders of `id` outside the heap: globals and unattributed references.
    public func outsideHolders(of id: HeapObjectID) -> [HeapHolder] {
        let index = Int(id.rawValue)
        var holders = globalSlots(of: index).map { HeapHolder.globalVariable(name: globalName($0)) }
        let outside = Int(outsideCounts[index])
        if outside > 0 { holders.append(namedHolder(index, count: outside)) }
        return holders
    }

    private func isHeld(_ node: Int) -> Bool {
        outsideCounts[node] > 0 || !globalSlots(of: node).isEmpty
    }

    private func rank(_ node: Int) -> Int {
        if !globalSlots(of: node).isEmpty { return 0 }
        switch namedHolder(node, count: Int(outsideCounts[node])) {
        case .outside: return 2
        default: return 1
        }
    }

    private func path(from root: Int, via: [Int32: Int32]) -> RetentionPath {
        var objects = [self[HeapObjectID(rawValue: Int32(root))]]
        var references: [HeapReference] = []
        var node = Int32(root)
        while let edge = via[node], edge >= 0 {
            let step = CompactGraph.Step(
                from: CompactGraph.NodeID(node), edge: CompactGraph.EdgeID(edge),
                to: graph.target(of: CompactGraph.EdgeID(edge)))
            references.append(reference(step))
            objects.append(self[HeapObjectID(rawValue: Int32(step.to))])
            node = Int32(step.to)
        }
        let holder =
            outsideHolders(of: HeapObjectID(rawValue: Int32(root))).first
            ?? .outside(references: 0)
        return RetentionPath(holder: holder, objects: objects, references: references)
    }

    private func globalSlots(of node: Int) -> ArraySlice<GlobalReference> {
        var low = 0
        var high = globals.count
        while low < high {
            let middle = (low + high) / 2
            if globals[middle].object < Int32(node) { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < globals.count, globals[end].object == Int32(node) { end += 1 }
        return globals[low..<end]
    }

    private func globalName(_ reference: GlobalReference) -> String {
        guard let symbol = CensusDoor.symbol(at: reference.slot) else {
            return String(format: "at 0x%lx (no symbol)", reference.slot)
        }
        return Demangling.demangle(symbol.name)
    }

    /// Names what holds `node` from outside, from what the object is.
    func namedHolder(_ node: Int, count: Int) -> HeapHolder {
        switch entryKinds[node] {
        case .task: return .task
        case .block: return .dispatchBlock
        case .object: break
        }
        if timerTypes.contains(typeIndex[node]) {
            return TimerProbe.isValid(at: address(of: node)) ? .scheduledTimer : .foundationTimer
        }
        return .outside(references: count)
    }
}

extension HeapSnapshot {
    /// The object `id` stands for, retained, if it is still alive and is a Swift object (not a
    /// block); nil once it died or began dying.
    public func liveObject(_ id: HeapObjectID) -> AnyObject? {
        let index = Int(id.rawValue)
        guard index < objectCount, entryKinds[index] != .block else { return nil }
        return CensusDoor.object(at: address(of: index))
    }

    /// The array storage object whose elements start at `elements`, if the census knows it.
    func storageID(ofElementsAt elements: UInt) -> HeapObjectID? {
        // Array storage: a 16-byte header and count/capacity words before the elements.
        id(ofObjectAt: elements &- 32)
    }
}
