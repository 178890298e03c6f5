// What one stack-trace capture costs, in time and allocations, against the alternatives.
//
// Every benchmark first recurses so the stack is at least 80 frames deep (outside the measured
// inner loop's cost, amortized over 1,000 captures), then captures 1,000 times; results are per
// capture. Metrics: wall clock and total malloc count. The ARC metrics (retain/release) crash on
// Linux with Swift 6.3 and are not used.
//
// Note on `backtrace()`: once libunwind is linked (StackTraces links it), its weak `backtrace`
// alias of `unw_backtrace` takes precedence over glibc's for the whole process. To measure glibc's
// own implementation, it is looked up in libc.so.6 with dlsym.
import Benchmark
import Runtime
import StackTraces

#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` with at least `levels` extra frames on the stack.
@inline(never)
func withDeepStack(_ levels: Int, _ body: () -> Void) {
    if levels <= 0 {
        body()
        return
    }
    withDeepStack(levels - 1, body)
    blackHole(levels)
}

typealias BacktraceFunction =
    @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32

/// `backtrace` as the dynamic linker resolves it for this process (libunwind's, see above).
let linkedBacktrace: BacktraceFunction? = {
    // A nil handle is RTLD_DEFAULT: the global lookup order every call site sees.
    guard let symbol = dlsym(nil, "backtrace") else { return nil }
    return unsafeBitCast(symbol, to: BacktraceFunction.self)
}()

/// glibc's own `backtrace`, looked up in libc.so.6 itself.
let glibcBacktrace: BacktraceFunction? = {
    guard let libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD),
        let symbol = dlsym(libc, "backtrace")
    else { return nil }
    return unsafeBitCast(symbol, to: BacktraceFunction.self)
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 2_000
    )

    for depth in [8, 32, 64] {
        Benchmark("StackTrace.capture depth \(depth)") { benchmark in
            withDeepStack(80) {
                for _ in benchmark.scaledIterations {
                    blackHole(StackTrace.capture(depth: depth))
                }
            }
        }
    }

    // The frame-pointer walk (no libunwind, no lock): what the census's creation traces use.
    for depth in [8, 32, 64] {
        Benchmark("StackTrace.captureFromFramePointers depth \(depth)") { benchmark in
            withDeepStack(80) {
                for _ in benchmark.scaledIterations {
                    blackHole(StackTrace.captureFromFramePointers(depth: depth))
                }
            }
        }
    }

    Benchmark("StackTrace.capture depth 0") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(StackTrace.capture(depth: 0))
        }
    }

    let images = ImageMap.capture()
    Benchmark("Runtime.Backtrace.capture limit 32, cached ImageMap") { benchmark in
        withDeepStack(80) {
            for _ in benchmark.scaledIterations {
                blackHole(try? Runtime.Backtrace.capture(limit: 32, images: images))
            }
        }
    }

    let backtraces = [
        ("glibc backtrace() via dlsym(libc.so.6)", glibcBacktrace),
        ("backtrace() as linked (libunwind's alias)", linkedBacktrace),
    ]
    for (name, function) in backtraces {
        guard let function else { continue }
        Benchmark("\(name) depth 32") { benchmark in
            withDeepStack(80) {
                withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: 32) {
                    buffer in
                    for _ in benchmark.scaledIterations {
                        blackHole(function(buffer.baseAddress, 32))
                    }
                }
            }
        }
    }

    let trace = StackTrace.capture(depth: 32)
    _ = trace.symbolicated()
    Benchmark("StackTrace.symbolicated() depth 32, all cached") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(trace.symbolicated())
        }
    }
}
