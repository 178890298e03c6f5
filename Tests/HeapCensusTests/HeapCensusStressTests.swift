import Foundation
import HeapCensus
import Testing

/// A node of the structures the stress threads build, mutate and drop.
final class StressNode: @unchecked Sendable {
    var next: StressNode?
    var children: [StressNode] = []
    var byName: [String: StressNode] = [:]
    var action: (() -> Void)?
    weak var parent: StressNode?
    /// An existential and an enum with payloads: the census decodes them from copies, and
    /// copies a node made a moment before its initialiser stores them (its memory then holds
    /// a freed block's bytes, such as a string's).
    var payload: Any?
    var state: StressState = .idle
}

/// An object whose existential field is stored only after its initialiser has worked a while:
/// until then the field holds whatever its block held before.
final class LateInit: @unchecked Sendable {
    let payload: Any
    init(_ seed: Int) {
        var sum = seed
        for index in 0..<200 { sum = sum &* 31 &+ index }
        payload = sum
    }
}

enum StressState {
    case idle
    case named(String)
    case linked(StressNode, Int)
}

/// Held by a global for the whole test: the census must name the global as its holder.
nonisolated(unsafe) var stressAnchor: [StressNode] = []

@Suite("Heap census stress")
struct HeapCensusStressTests {
    /// Iterations per thread; `RETAINGRAPH_STRESS_CENSUS` overrides it.
    static let iterations: Int = {
        ProcessInfo.processInfo.environment["RETAINGRAPH_STRESS_CENSUS"].flatMap(Int.init) ?? 10_000
    }()

    @Test(
        "Stress: 8 threads allocate, mutate and free while another takes snapshots (never a fault, even reading objects not yet initialised)"
    )
    func stressSnapshotsWhileThreadsMutate() throws {
        HeapCensus.start()
        let anchor = StressNode()
        stressAnchor = [anchor]
        defer { stressAnchor = [] }
        let threads = 8
        let finished = DispatchSemaphore(value: 0)
        let remaining = Remaining(threads)
        for index in 0..<threads {
            let thread = Thread {
                Self.churn(seed: index)
                remaining.decrement()
                finished.signal()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        var snapshots = 0
        var consistent = true
        // Snapshot until every worker is done (and at least a few times).
        while !remaining.isZero || snapshots < 3 {
            let heap = HeapCensus.snapshot()
            snapshots += 1
            for index in 0..<min(heap.objectCount, 2_000) {
                let id = HeapObjectID(rawValue: Int32(index))
                for reference in heap.references(from: id)
                where Int(reference.to.rawValue) >= heap.objectCount {
                    consistent = false
                }
            }
        }
        for _ in 0..<threads { finished.wait() }
        #expect(consistent)
        #expect(snapshots >= 3)
        // The workers dropped every node they made (240,000 by default): the census forgot each
        // one as it was freed (under a sanitizer too, through its free hook), so only the
        // anchor is left.
        let nodes = HeapCensus.counts().countsByType().first {
            $0.typeName == "HeapCensusTests.StressNode"
        }
        #expect((nodes?.count ?? 0) < 100, "\(nodes?.count ?? 0) nodes outlived their objects")
        let heap = HeapCensus.snapshot()
        let path = try #require(heap.retentionPath(to: anchor))
        #expect(path.target?.typeName == "HeapCensusTests.StressNode")
        // Under a sanitizer the census misses what the standard library allocates itself (the
        // global array's storage): the anchor is then held "from outside".
        guard HeapCensus.availability == .complete else { return }
        guard case .globalVariable(let name) = path.holder else {
            Issue.record("holder is \(path.holder.description)")
            return
        }
        #expect(name.contains("stressAnchor"))
    }

    @Test(
        "Stress: snapshots while threads make objects whose existential fields are not yet stored (never a fault)"
    )
    func stressSnapshotsOfObjectsBeingInitialised() {
        HeapCensus.start()
        let threads = 4
        let remaining = Remaining(threads)
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            let thread = Thread {
                var kept: [LateInit] = []
                for step in 0..<Self.iterations * 2 {
                    // Free a string of hexadecimal digits of the object's size class just
                    // before each object is made, so the object's block is the string's.
                    kept.append(LateInit(Self.hexStringLength(step &* 0x9E37_79B9 &+ index)))
                    if kept.count > 32 { kept.removeFirst(16) }
                }
                remaining.decrement()
                finished.signal()
            }
            thread.start()
        }
        var snapshots = 0
        while !remaining.isZero || snapshots < 3 {
            let heap = HeapCensus.snapshot()
            #expect(heap.objectCount > 0)
            snapshots += 1
        }
        for _ in 0..<threads { finished.wait() }
        #expect(snapshots >= 3)
    }

    /// Makes and frees a 16-character string (stored on the heap, in a block of a
    /// `LateInit`'s size class), returning its length. Its characters 8 to 15, left in the
    /// block, read as an existential's type word: five digits and three NULs, an aligned and
    /// unmapped address (as a report's text, freed, once left one).
    @inline(never) private static func hexStringLength(_ value: Int) -> Int {
        var text = "88888888"
        text.append("8")
        for bit in 0..<4 { text.append(value >> bit & 1 == 0 ? "0" : "8") }
        text.append("\0\0\0")
        return text.utf8.count
    }

    /// Builds small structures of every shape the census reads, mutates them, drops them.
    private static func churn(seed: Int) {
        var live: [StressNode] = []
        for step in 0..<iterations {
            let node = StressNode()
            node.children = [StressNode(), StressNode()]
            node.byName["\(step % 7)"] = node.children[0]
            node.children[1].parent = node
            let captured = node.children[0]
            node.action = { _ = captured }
            node.payload = step % 3 == 0 ? captured : "payload \(step) of thread \(seed)"
            node.state = step % 2 == 0 ? .named("state \(step)") : .linked(captured, step)
            if let last = live.last { last.next = node }
            live.append(node)
            if live.count > 64 {
                live.removeFirst(32)
            }
            if step % 5 == seed % 5 { live.last?.children.removeAll() }
        }
        live.removeAll()
    }
}

/// A countdown the snapshot loop reads while workers finish.
final class Remaining: @unchecked Sendable {
    private let lock = NSLock()
    private var count: Int
    init(_ count: Int) { self.count = count }
    func decrement() { lock.withLock { count -= 1 } }
    var isZero: Bool { lock.withLock { count == 0 } }
}
