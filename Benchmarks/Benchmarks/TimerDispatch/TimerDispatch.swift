// What one timer fire costs on its way to the target, for every dispatch path a RetainGraph
// user can choose: wall clock per fire, and allocations (the goal for our own paths is zero).
//
//   swift package --package-path Benchmarks --scratch-path .build-bench-dispatch \
//       benchmark --target TimerDispatch
//
// Each benchmark iteration performs one million fires (`scalingFactor: .mega`); the fixture is
// built before `startMeasurement()`, so only the fires are measured. Allocation regressions
// fail `benchmark thresholds check` (static p90 thresholds in Benchmarks/Thresholds, malloc
// counts only; run it from inside Benchmarks/, see RESULTS.md).
import Benchmark
import DispatchVariants

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 2,
        scalingFactor: .mega,
        maxDuration: .seconds(2),
        maxIterations: 50,
        // Allocation counts are deterministic: any allocation per fire is a regression.
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])]
    )
    for variant in DispatchVariant.allCases {
        // Names without spaces: `thresholds update` writes file names with `_` for spaces, while
        // `thresholds check` reads them with the raw name.
        Benchmark(variant.rawValue, configuration: configuration) { benchmark in
            let fixture = DispatchFixture(variant)
            benchmark.startMeasurement()
            fixture.run(times: benchmark.scaledIterations.count)
            benchmark.stopMeasurement()
            blackHole(fixture.ticker.count)
        }
    }
}
