import Foundation
import RetainGraph
import Testing
import TrackedTimers

/// An owner in the seeds' sense (a view controller): stores a timer, counts ticks, and, like the
/// seeds' `dealloc`, invalidates its timers in `deinit` (which a leak prevents from running).
final class Owner {
    var timer: RunLoopTimer?
    weak var weakTimer: RunLoopTimer?
    var link: FrameTimer?
    var ticks = 0
    var timestamps: [TimeInterval] = []
    let invalidatesInDeinit: Bool

    init(invalidatesInDeinit: Bool = true) {
        self.invalidatesInDeinit = invalidatesInDeinit
    }

    func tick() { ticks += 1 }

    deinit {
        guard invalidatesInDeinit else { return }
        timer?.invalidate()
        link?.invalidate()
    }
}

/// A short name for a node in edge lines: `runloop`, `type`, `closure`, or the type's name
/// without module prefix and generic arguments.
func edgeName(_ node: Node?) -> String {
    guard let node else { return "?" }
    switch node.kind {
    case .root(.runLoop): return "runloop"
    case .root(.immortalType): return "type"
    case .root: return "root"
    case .closure: return "closure"
    default:
        let name = node.shortTypeName
        return String(name.prefix { $0 != "<" })
    }
}

/// Every reference of the graph as a line `A ⇒ B [role]` (`→` for weak and unowned).
func edgeLines(_ graph: LiveGraph) -> Set<String> {
    let snapshot = graph.snapshot()
    return Set(
        snapshot.references.map { reference in
            let arrow = reference.ownership == .strong ? "⇒" : "→"
            return "\(edgeName(snapshot.node(reference.from))) \(arrow) "
                + "\(edgeName(snapshot.node(reference.to))) [\(reference.role.description)]"
        })
}

/// Expects the graph's edge lines to be exactly `expected`.
func expectEdges(
    _ graph: LiveGraph, _ expected: Set<String>,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let actual = edgeLines(graph)
    #expect(actual == expected, sourceLocation: sourceLocation)
}

/// The living timer nodes of a graph.
func timerNodeCount(_ graph: LiveGraph) -> Int {
    graph.snapshot().nodes.filter { $0.kind == .timer }.count
}

/// The timer information recorded for a timer.
func timerInfo(_ timer: some TrackedTimer, in graph: LiveGraph, id: ObjectID?) -> TimerInfo? {
    guard let id else { return nil }
    return graph.snapshot().node(id)?.timer
}

/// The edge line for `runloop ⇒ timer` in the default mode.
let scheduledDefault = "runloop ⇒ RunLoopTimer [scheduled in mode \"kCFRunLoopDefaultMode\"]"

/// A weak reference to check that something died.
final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T?) { self.value = value }
}

/// Runs the current run loop briefly so fires already due are delivered; used only where the
/// assertion is that something did *not* happen, after a positive condition was awaited.
func drainRunLoop(mode: RunLoop.Mode = .default) {
    _ = RunLoop.current.run(mode: mode, before: Date(timeIntervalSinceNow: 0.02))
}
