// LifecycleCount: creates, schedules and invalidates one kind of timer a fixed number of
// times, for instruction and allocation counting under valgrind (Scripts/lifecycle-count.sh
// runs it at N and 2N lifecycles and takes the difference, so start-up and set-up cancel out).
//
//   LifecycleCount list
//   LifecycleCount VARIANT COUNT
//
// The variants mirror the TimerTracking benchmark: every action is a `[weak ticker]` closure;
// tracked variants record into a private `LiveGraph`, counted (and so pruned) every 1,000
// lifecycles, a cost the counts include.
import BenchmarkSupport
import Dispatch
import Foundation
import RetainGraph
import TrackedTimers

#if canImport(Glibc)
    import Glibc
#endif

/// One timer lifecycle to count.
enum Variant: String, CaseIterable {
    case runLoopBare = "runloop-bare"
    case runLoopOff = "runloop-off"
    case runLoopTracked = "runloop-tracked"
    case runLoopTraced = "runloop-traced"
    case dispatchBare = "dispatch-bare"
    case dispatchOff = "dispatch-off"
    case dispatchTracked = "dispatch-tracked"
    case dispatchTraced = "dispatch-traced"
    case frameOff = "frame-off"
    case frameTracked = "frame-tracked"

    var isTracked: Bool {
        switch self {
        case .runLoopTracked, .runLoopTraced, .dispatchTracked, .dispatchTraced, .frameTracked:
            return true
        default: return false
        }
    }

    var capturesTraces: Bool { self == .runLoopTraced || self == .dispatchTraced }
}

/// Runs `variant` `count` times.
func run(_ variant: Variant, count: Int) throws {
    let ticker = Ticker()
    let graph = LiveGraph(isEnabled: variant.isTracked)
    TimerTracking.capturesCreationTraces = variant.capturesTraces
    let runLoop = RunLoop.current
    let queue = DispatchQueue(label: "LifecycleCount")
    for index in 0..<count {
        switch variant {
        case .runLoopBare:
            let timer = Timer(fire: Date(timeIntervalSinceNow: 1), interval: 1, repeats: true) {
                [weak ticker] _ in ticker?.tick()
            }
            runLoop.add(timer, forMode: .default)
            timer.invalidate()
        case .runLoopOff, .runLoopTracked, .runLoopTraced:
            let timer = try RunLoopTimer(
                interval: 1, repeats: true, capturing: ticker, as: .weak, graph: graph
            ) { [weak ticker] _ in ticker?.tick() }
            try timer.add(to: runLoop, forMode: .default)
            timer.invalidate()
        case .dispatchBare:
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + 1, repeating: 1)
            source.setEventHandler { [weak ticker] in ticker?.tick() }
            source.activate()
            source.cancel()
        case .dispatchOff, .dispatchTracked, .dispatchTraced:
            let timer = try DispatchTimer(interval: 1, repeats: true, queue: queue, graph: graph) {
                [weak ticker] _ in ticker?.tick()
            }
            timer.schedule()
            timer.invalidate()
        case .frameOff, .frameTracked:
            let timer = try FrameTimer(capturing: ticker, as: .weak, graph: graph) {
                [weak ticker] _ in ticker?.tick()
            }
            try timer.add(to: runLoop, forMode: .default)
            timer.invalidate()
        }
        if variant.isTracked, index % 1_000 == 999 { _ = graph.counts() }
    }
    if variant.isTracked { _ = graph.counts() }
    withExtendedLifetime(ticker) {}
}

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "list" {
    for variant in Variant.allCases { print(variant.rawValue) }
} else if arguments.count == 3, let variant = Variant(rawValue: arguments[1]),
    let count = Int(arguments[2]), count >= 0
{
    do {
        try run(variant, count: count)
        print("\(variant.rawValue) \(count) lifecycles")
    } catch {
        print("\(variant.rawValue) failed: \(error)")
        exit(1)
    }
} else {
    let names = Variant.allCases.map(\.rawValue).joined(separator: ", ")
    print("usage: LifecycleCount list | LifecycleCount VARIANT COUNT\nvariants: \(names)")
    exit(2)
}
