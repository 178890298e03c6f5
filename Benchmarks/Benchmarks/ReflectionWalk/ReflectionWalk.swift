// What a reflection walk costs per object and per discovered reference.
//
// Each benchmark iteration is one `ReferenceWalker.walk(from:)` over a prepared object graph
// (built once, outside the measurement) with `graph: nil` so no live-graph lookups are timed.
// Per-object and per-edge costs in RESULTS.md are the per-walk median divided by the graph's
// object and reference counts, which `precondition`s below check. Metrics: wall clock and total
// malloc count (ARC metrics crash on Linux with Swift 6.3).
import Benchmark
import Foundation
import ReferenceReflection

final class Link {
    var next: Link?
    init(next: Link?) { self.next = next }
}

final class Leaf {
    let name: String
    init(_ name: String) { self.name = name }
}

final class FanOut {
    var leaves: [Leaf]
    init(count: Int) { leaves = (0..<count).map { Leaf("leaf \($0)") } }
}

/// Eight stored properties of mixed kinds: 6 references, 2 trivial or leaf fields.
final class Mixed {
    var strong: Leaf
    weak var weakRef: Leaf?
    unowned let unownedRef: Leaf
    var optional: Leaf?
    var pair: [Leaf]
    var count = 0
    var text = "mixed"
    var next: Mixed?

    init(_ leaf: Leaf, next: Mixed?) {
        strong = leaf
        weakRef = leaf
        unownedRef = leaf
        optional = leaf
        pair = [leaf, leaf]
        self.next = next
    }
}

/// A closure stored in a property, capturing its owner strongly and a leaf weakly.
final class ClosureOwner {
    var action: (() -> Void)?
    var next: ClosureOwner?
    var ticks = 0

    init(next: ClosureOwner?, leaf: Leaf) {
        self.next = next
        action = { [weak leaf] in
            self.ticks += 1
            _ = leaf
        }
    }
}

final class TimerOwner: @unchecked Sendable {
    var timer: Timer?
    var ticks = 0
    init() { timer = Timer(timeInterval: 3600, repeats: true) { _ in self.ticks += 1 } }
}

func chain(_ length: Int) -> Link {
    var head = Link(next: nil)
    for _ in 1..<length { head = Link(next: head) }
    return head
}

func mixed(_ length: Int) -> Mixed {
    var head = Mixed(Leaf("0"), next: nil)
    for index in 1..<length { head = Mixed(Leaf("\(index)"), next: head) }
    return head
}

func closures(_ length: Int) -> ClosureOwner {
    var head = ClosureOwner(next: nil, leaf: Leaf("0"))
    for index in 1..<length { head = ClosureOwner(next: head, leaf: Leaf("\(index)")) }
    return head
}

let walker = ReferenceWalker(
    graph: nil,
    limits: WalkLimits(
        maxObjects: 1_000_000, maxDuration: .seconds(60), maxDepth: 100_000,
        maxCollectionElements: 1_000_000))

/// Walks once and checks the graph has the expected shape.
func check(_ root: AnyObject, objects: Int, references: Int) {
    let result = walker.walk(from: [root])
    precondition(result.isComplete && result.diagnostics.isEmpty, "\(result.diagnostics)")
    precondition(result.nodes.count == objects, "nodes \(result.nodes.count) != \(objects)")
    precondition(
        result.references.count == references,
        "references \(result.references.count) != \(references)")
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(2),
        maxIterations: 500
    )

    let link = chain(1_000)
    check(link, objects: 1_000, references: 999)
    Benchmark("chain: 1,000 objects, 999 strong fields") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(walker.walk(from: [link])) }
    }

    let fanOut = FanOut(count: 1_000)
    check(fanOut, objects: 1_001, references: 1_000)
    Benchmark("fan-out: [Leaf] of 1,000 elements") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(walker.walk(from: [fanOut])) }
    }

    let mixedHead = mixed(1_000)
    // Per object: strong, weak, unowned, optional, pair[0], pair[1] (to one leaf) + next.
    check(mixedHead, objects: 2_000, references: 1_000 * 6 + 999)
    Benchmark("mixed: 1,000 objects × 8 fields (strong, weak, unowned, optional, array, next)") {
        benchmark in
        for _ in benchmark.scaledIterations { blackHole(walker.walk(from: [mixedHead])) }
    }

    let closureHead = closures(1_000)
    // Per owner: action ⇒ closure, closure ⇒ owner (strong), closure → leaf (weak) + next.
    check(closureHead, objects: 3_000, references: 1_000 * 3 + 999)
    Benchmark("closures: 1,000 owners, closure capturing self + [weak leaf]") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(walker.walk(from: [closureHead])) }
    }

    let timerOwner = TimerOwner()
    // owner ⇒ timer, timer ⇒ _timerStorage (CF), timer ⇒ closure, closure ⇒ owner.
    check(timerOwner, objects: 4, references: 4)
    Benchmark("Owner ⇒ Foundation.Timer ⇒ closure ⇒ Owner (one walk)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(walker.walk(from: [timerOwner])) }
    }
}
