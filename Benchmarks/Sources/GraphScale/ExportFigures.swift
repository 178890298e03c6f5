import HeapExport
import RetainGraph

/// The `.heapsnapshot` export (issue 25) of the dominators mode's random graph.
enum ExportFigures {
    /// `export N [references] [path]`: converting the graph to the V8 model, writing the file
    /// (median of 3 each), and the file's size.
    static func run(count: Int, references: Int, path: String) {
        let graph = measure("generate + build the graph (not a figure)") {
            DominatorFigures.randomGraph(count: count, references: references)
        }
        print("graph: \(graph.nodeCount) nodes, \(graph.edgeCount) edges")
        measureMedian("CompactGraph -> V8HeapSnapshot (adapter)", times: 3) {
            var numbering = ObjectNumbering()
            _ = V8HeapSnapshot(graph: graph, numbering: &numbering).nodeCount
        }
        var numbering = ObjectNumbering()
        let snapshot = V8HeapSnapshot(graph: graph, numbering: &numbering)
        var bytes = 0
        measureMedian("V8HeapSnapshot.write(toFile:)", times: 3) {
            bytes = (try? snapshot.write(toFile: path)) ?? -1
        }
        measureMedian("FIGURE .heapsnapshot export end to end (adapter + write)", times: 3) {
            var numbering = ObjectNumbering()
            _ = try? V8HeapSnapshot(graph: graph, numbering: &numbering).write(toFile: path)
        }
        print(
            "FIGURE .heapsnapshot file: \(bytes) bytes = \(formatted(Double(bytes) / 1_048_576)) MiB"
                + " (\(path))")
    }
}
