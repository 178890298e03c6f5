// Analysis at heap scale: the figures of issue 15, printed with the load average.
//
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench GraphScale \
//       compact 1000000
//
// Modes (each takes the node count; edges are twice that, one in five weak, 16 roots):
//   live N      a LiveGraph of N real objects: memory per node and per edge, snapshot,
//               analysis alone, detection end to end (snapshot + analysis).
//   live-end-to-end N   end to end only, for the process's peak RSS.
//   live-parts N        the parts of a detection (snapshot, components, root paths, both on one
//               thread and on two, the whole), medians of 9 runs taken in turn.
//   analysis N  GraphSnapshot's components + root paths alone (callgrind-friendly).
//   compact-analysis N  the same on a CompactGraph.
//   dominators N [R]    the dominator tree with retained sizes on N objects holding R
//               references in all (default 3.2 N, one in five weak): median of 5, bytes per
//               object, and the largest-retainers query.
//   dominators-ratio N [R]  the previous dominator kernel and the current one on the same
//               graph, in turns (9 rounds): same tree checked, medians and their ratio.
//   export N [R] [PATH] the same graph written as a V8 .heapsnapshot (HeapExport): the adapter,
//               the writing, end to end (medians of 3) and the file's size.
//   compact N   CompactGraph alone: build (counting sort + locality numbering), strongly
//               connected components, shortest root paths, 100 "who holds it" queries, and
//               the graph's bytes per node and per edge.
//
// Wall-clock figures depend on the machine's load: every line starts with the 1-minute load
// average, and a figure taken with a load above the number of cores is not a result.
import RetainGraph

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
let mode = arguments.first ?? "compact"
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000

print("# GraphScale \(mode) \(count) nodes, \(2 * count) edges; \(Machine.loadAverage())")
switch mode {
case "compact":
    CompactFigures.run(count: count)
case "dominators":
    let references = arguments.dropFirst(2).first.flatMap { Int($0) } ?? count * 16 / 5
    DominatorFigures.run(count: count, references: references)
case "dominators-ratio":
    let references = arguments.dropFirst(2).first.flatMap { Int($0) } ?? count * 16 / 5
    DominatorFigures.runRatio(count: count, references: references)
case "export":
    let references = arguments.dropFirst(2).first.flatMap { Int($0) } ?? count * 16 / 5
    let path = arguments.dropFirst(3).first ?? "/tmp/graph-scale.heapsnapshot"
    ExportFigures.run(count: count, references: references, path: path)
case "compact-analysis":
    CompactFigures.runAnalysis(count: count)
case "live":
    LiveFigures.run(count: count)
case "live-parts":
    LiveFigures.runParts(count: count)
case "live-end-to-end":
    LiveFigures.runEndToEnd(count: count)
case "analysis":
    SnapshotFigures.runAnalysis(count: count)
default:
    print(
        "unknown mode \(mode); use: compact, compact-analysis, dominators, dominators-ratio, export, analysis, live, live-end-to-end, live-parts"
    )
    exit(2)
}
print("# peak RSS \(Machine.peakResidentBytes() / 1_048_576) MB; \(Machine.loadAverage())")
