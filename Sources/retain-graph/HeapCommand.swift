import ArgumentParser
import Foundation
import HeapExport
import ObjectGraph
import RetainGraphUtilities

/// `retain-graph heap`: reads a heap graph saved with `GraphFile` (from a census snapshot, a
/// live graph's snapshot or an attached process) and prints what retains the most memory, or
/// converts it for Chrome DevTools' Memory panel.
struct Heap: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Look at a saved heap graph: its largest retainers, or a .heapsnapshot of it.",
        discussion: """
            Save a graph with GraphFile.write(HeapCensus.snapshot().graph, toFile: "heap.json") \
            (or from any CompactGraph), then:
              retain-graph heap retainers heap.json --limit 10
              retain-graph heap convert heap.json heap.heapsnapshot
            and open heap.heapsnapshot in Chrome DevTools: Memory panel, Load profile.
            """,
        subcommands: [Retainers.self, Convert.self])
}

/// Reads a graph file, turning failures into exit code 2 with a message on standard error.
func readGraph(_ path: String) throws -> CompactGraph {
    do {
        return try GraphFile.read(fromFile: path)
    } catch {
        FileHandle.standardError.write(Data("retain-graph: \(error)\n".utf8))
        throw ExitCode(2)
    }
}

extension Heap {
    struct Retainers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the types whose instances retain the most bytes (dominator tree).")

        @Argument(help: "A graph file written by GraphFile.write(_:toFile:).")
        var path: String

        @Option(name: .long, help: "How many types to print (default 10).")
        var limit: Int = 10

        func run() throws {
            let graph = try readGraph(path)
            let tree = graph.dominatorTree()
            print(
                "\(graph.nodeCount) objects, \(tree.reachableCount) reachable from a root, "
                    + "\(ByteCount.description(tree.reachableBytes)) retained in all")
            let groups = tree.largestRetainers(in: graph, limit: max(0, limit))
            guard !groups.isEmpty else {
                print("no object is reachable from a root")
                return
            }
            let width = groups.map { ByteCount.description($0.retainedBytes).count }.max() ?? 0
            for group in groups {
                let size = ByteCount.description(group.retainedBytes)
                let padding = String(repeating: " ", count: width - size.count)
                print(
                    "\(padding)\(size)  \(group.typeName) ×\(group.instanceCount) "
                        + "(\(group.retainedCount) objects retained)")
            }
        }
    }

    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a graph file as a .heapsnapshot for Chrome DevTools or memlab.")

        @Argument(help: "A graph file written by GraphFile.write(_:toFile:).")
        var path: String

        @Argument(help: "The .heapsnapshot file to write.")
        var output: String

        func run() throws {
            let graph = try readGraph(path)
            var numbering = ObjectNumbering()
            do {
                let size = try V8HeapSnapshot(graph: graph, numbering: &numbering)
                    .write(toFile: output)
                print("wrote \(output): \(graph.nodeCount) objects, \(ByteCount.description(size))")
            } catch {
                FileHandle.standardError.write(Data("retain-graph: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
    }
}
