// What symbolicating new addresses costs on each route: the toolchain's `Runtime` module and
// `llvm-symbolizer` (StackTraces' `RETAINGRAPH_SYMBOLICATION=runtime|symbolizer`), on this
// program's own code, for batches of 10, 100 and 1,000 addresses of different functions.
//
//   swift build --package-path Benchmarks --scratch-path .build-bench --product SymbolicationCost
//   .build-bench/debug/SymbolicationCost                 # the table, debug build
//   swift build -c release … && .build-bench/release/SymbolicationCost
//   .build-bench/debug/SymbolicationCost libswiftCore.so # the same on a loaded library
//   .build-bench/debug/SymbolicationCost crossover [IMAGE]   # batch sizes 1 to 64, both
//                                        # routes, cold and after a first batch (warm)
//   .build-bench/debug/SymbolicationCost measure ROUTE COUNT [IMAGE|-] [warm]   # one figure
//
// Each measurement runs in a new process (this program, started again), so every batch is the
// process's first: nothing is cached, as for a report's first trace. The table prints the
// 1-minute load average beside each figure: wall-clock figures taken with a load above the
// number of cores are not results. The program links most of RetainGraph's modules, so that
// its debug build carries a realistic amount of DWARF (its size is printed).
import Foundation
import LeakTracking
import ReferenceReflection
import StackTraces
import TrackedTimers

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "measure":
    let route = arguments.count > 1 ? arguments[1] : "auto"
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 10 : 10
    let image = arguments.count > 3 && arguments[3] != "-" ? arguments[3] : nil
    Measurement.run(route: route, count: count, image: image, warm: arguments.contains("warm"))
case "crossover":
    let image = arguments.count > 1 ? arguments[1] : nil
    Driver.table(
        routes: ["runtime", "symbolizer"], counts: [1, 2, 4, 8, 16, 32, 64], image: image)
    print("# warm: after a first batch of 16 other addresses in the same process and thread")
    Driver.table(
        routes: ["runtime", "symbolizer"], counts: [1, 2, 4, 8, 16, 32, 64], image: image,
        warm: true)
default:
    let image = arguments.first
    Driver.table(
        routes: ["runtime", "symbolizer", "auto"], counts: [10, 100, 1_000], image: image)
}

/// Keeps the modules linked in (their code and debug information are the point).
@inline(never)
func linkEverything() -> Int {
    [
        String(describing: LeakWatcher.self), String(describing: DispatchTimer.self),
        String(describing: ReferenceWalker.self),
    ].count
}
