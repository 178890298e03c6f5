// MemorySoak: a long run with no reads of the graph, printing resident memory, to show that
// neither the timers nor the graph grow without bound (issue 17). Not a timed benchmark.
//
//   MemorySoak [KIND...] [--count N]
//
// KIND is runloop, frame, dispatch or register (all four by default), or one of the bare
// comparisons dispatch-bare and foundation-timer; N is 1,000,000 by default. Each kind runs N
// lifecycles, no reads:
//   runloop   RunLoopTimer with a strong target: create, add to the current run loop in
//             .default, invalidate, release
//   frame     FrameTimer with a strong target: the same
//   dispatch  DispatchTimer with a strong target: create, schedule, invalidate, release
//   register  LiveGraph.register of an object that dies at once, into an enabled LiveGraph
//             (the shared graph is off in release builds)
//   addresses the same as register, counting the distinct addresses the objects had: were
//             every dead object's block pinned until the graph is read, each object would
//             have an address of its own; pruned by the graph itself (at most about 4,096
//             dead ones wait at a time), blocks are handed out again. Prints the count.
//   dispatch-bare     a DispatchSourceTimer: create, schedule, activate, cancel, release
//   foundation-timer  a Foundation Timer: create, add to the run loop, invalidate, release
//                     (what swift-corelibs-foundation never frees: about 400 bytes each)
// Timers record into LiveGraph.shared as a user's would: on in debug builds, off in release
// builds unless RETAINGRAPH_TRACKING=1. Resident memory is read from /proc/self/statm after a
// warm-up of 10,000 lifecycles, every quarter, and at the end; growth is end minus warm-up.
// libdispatch cancels a source asynchronously, on its queue: a loop that makes sources faster
// than the queue retires them builds a backlog, which is memory in flight, not a leak. So every
// 1,000 lifecycles the soak waits for the queue to catch up (`queue.sync {}`), as a server's
// queue does between bursts.
import BenchmarkSupport
import Dispatch
import Foundation
import RetainGraph
import TrackedTimers

#if canImport(Glibc)
import Glibc
#endif

/// Resident memory in MB (10^6 bytes), from `/proc/self/statm`.
func residentMB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
        return .nan
    }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1e6
}

/// An object that dies right after registration.
final class ShortLived {}

/// One lifecycle of `kind`.
func lifecycle(_ kind: String, ticker: Ticker, queue: DispatchQueue, graph: LiveGraph) throws {
    switch kind {
    case "runloop":
        let timer = try RunLoopTimer(interval: 1, repeats: true, target: ticker) { ticker, _ in
            ticker.tick()
        }
        try timer.add(to: .current, forMode: .default)
        timer.invalidate()
    case "frame":
        let link = try FrameTimer(target: ticker) { ticker, _ in ticker.tick() }
        try link.add(to: .current, forMode: .default)
        link.invalidate()
    case "dispatch":
        let timer = try DispatchTimer(interval: 1, repeats: true, queue: queue) { _ in
            ticker.tick()
        }
        timer.schedule()
        timer.invalidate()
    case "dispatch-bare":
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: .now() + 1, repeating: 1)
        source.setEventHandler { ticker.tick() }
        source.activate()
        source.cancel()
    case "foundation-timer":
        let timer = Timer(fire: Date(timeIntervalSinceNow: 1), interval: 1, repeats: true) { _ in
            ticker.tick()
        }
        RunLoop.current.add(timer, forMode: .default)
        timer.invalidate()
    case "addresses":
        let object = ShortLived()
        graph.register(object)
        distinctAddresses.insert(UInt(bitPattern: ObjectIdentifier(object)))
    default:
        graph.register(ShortLived())
    }
}

/// The addresses the `addresses` kind's objects had.
nonisolated(unsafe) var distinctAddresses = Set<UInt>()

var kinds: [String] = []
var count = 1_000_000
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--count", let value = arguments.popFirst().flatMap({ Int($0) }), value > 0 {
        count = value
    } else if [
        "runloop", "frame", "dispatch", "register", "addresses", "dispatch-bare",
        "foundation-timer",
    ].contains(argument)
    {
        kinds.append(argument)
    } else {
        print(
            "usage: MemorySoak",
            "[runloop|frame|dispatch|register|addresses|dispatch-bare|foundation-timer]...",
            "[--count N]")
        exit(2)
    }
}
if kinds.isEmpty { kinds = ["runloop", "frame", "dispatch", "register"] }

#if DEBUG
let build = "debug"
#else
let build = "release"
#endif
print(
    "MemorySoak: \(build) build, LiveGraph.shared tracking \(LiveGraph.shared.isEnabled ? "on" : "off"),",
    "\(count) lifecycles per kind; resident memory at start \(String(format: "%.1f", residentMB())) MB"
)
let ticker = Ticker()
let queue = DispatchQueue(label: "MemorySoak")
let graph = LiveGraph(isEnabled: true)
let warmUp = 10_000
var failed = false
for kind in kinds {
    do {
        for _ in 0..<warmUp { try lifecycle(kind, ticker: ticker, queue: queue, graph: graph) }
        queue.sync {}
        let before = residentMB()
        var line = "\(kind): after warm-up \(String(format: "%.1f", before)) MB"
        let quarter = max(1, count / 4)
        for index in 1...count {
            try lifecycle(kind, ticker: ticker, queue: queue, graph: graph)
            if index % 1_000 == 0 { queue.sync {} }
            if index % quarter == 0, index < count {
                line += ", \(index / 1000)k \(String(format: "%.1f", residentMB()))"
            }
        }
        queue.sync {}
        let after = residentMB()
        line += ", end \(String(format: "%.1f", after)) MB; growth"
        line += " \(String(format: "%.1f", after - before)) MB"
        if kind == "addresses" {
            line += "; \(distinctAddresses.count) distinct addresses for \(warmUp + count) objects"
            distinctAddresses = []
        }
        print(line)
    } catch {
        print("\(kind): failed: \(error)")
        failed = true
    }
}
withExtendedLifetime(ticker) {}
exit(failed ? 1 : 0)
