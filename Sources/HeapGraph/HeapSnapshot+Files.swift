import Foundation
import HeapExport
import ObjectGraph
import StackTraces

extension HeapSnapshot {
    /// Writes this snapshot to a file: a `.heapsnapshot` for Chrome DevTools' Memory panel
    /// (Load profile) or memlab when `path` ends so, else a graph file
    /// (``/HeapExport/GraphFile``) that keeps everything, the process's facts included, for
    /// ``init(contentsOfFile:)`` and `retain-graph heap`.
    ///
    /// In a `.heapsnapshot`, every Swift heap object becomes an object under its type name with
    /// its block's real size; holders outside the heap are GC-root groups: `(globals)` (edges
    /// named by the variable), `(Tasks)`, `(Foundation timers)`, `(dispatch blocks)`,
    /// `(threads)`, `(thread stacks)` and `(outside the Swift heap)`. Objects whose creation
    /// was traced (`HeapCensus.traceCreation(of:)`) carry their trace. See
    /// ``/HeapExport/V8HeapSnapshot/init(graph:numbering:groupEdge:creationTrace:)``.
    ///
    /// ```swift
    /// var numbering = ObjectNumbering()
    /// try HeapCensus.snapshot().write(toFile: "before.heapsnapshot", numbering: &numbering)
    /// // … the work that leaks …
    /// try HeapCensus.snapshot().write(toFile: "after.heapsnapshot", numbering: &numbering)
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to write; created or replaced.
    ///   - numbering: Numbers objects by address and type; pass the same one for every
    ///     snapshot you will compare, so that DevTools' Comparison matches surviving objects.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``/HeapExport/HeapExportError`` when the file cannot be written.
    @discardableResult
    public func write(toFile path: String, numbering: inout ObjectNumbering)
        throws(HeapExportError) -> Int
    {
        if path.hasSuffix(".heapsnapshot") {
            return try heapSnapshot(numbering: &numbering).write(toFile: path)
        }
        return try GraphFile.write(graph, attributes: attributes, toFile: path)
    }

    /// Writes this snapshot to a file (see ``write(toFile:numbering:)``), numbering objects
    /// afresh.
    @discardableResult
    public func write(toFile path: String) throws(HeapExportError) -> Int {
        var numbering = ObjectNumbering()
        return try write(toFile: path, numbering: &numbering)
    }

    /// This snapshot in V8's model, for writing or for adding to.
    ///
    /// - Parameter numbering: Numbers objects by address and type (see
    ///   ``write(toFile:numbering:)``).
    public func heapSnapshot(numbering: inout ObjectNumbering) -> V8HeapSnapshot {
        var frames: [StackTrace: [V8HeapSnapshot.Frame]] = [:]
        return V8HeapSnapshot(graph: graph, numbering: &numbering) { node in
            guard Int(node) < objectCount,
                let trace = creationTrace(of: HeapObjectID(rawValue: Int32(node)))
            else { return nil }
            if let known = frames[trace] { return known }
            let converted = trace.symbolicated().filter { !$0.isThunk }.map { frame in
                V8HeapSnapshot.Frame(
                    function: frame.function ?? frame.mangledName
                        ?? "0x\(String(frame.address, radix: 16))",
                    script: frame.file ?? frame.imageName ?? "", line: frame.line ?? 0,
                    column: frame.column ?? 0)
            }
            frames[trace] = converted
            return converted
        }
    }

    /// Reads a snapshot written by ``write(toFile:numbering:)`` as a graph file.
    ///
    /// - Throws: ``/HeapExport/GraphFileError`` when the file cannot be read or is not a heap's
    ///   graph file.
    public init(contentsOfFile path: String) throws(GraphFileError) {
        let contents = try GraphFile.contents(ofFile: path)
        let graph = contents.graph
        var objectCount = 0
        while objectCount < graph.nodeCount,
            graph.kind(of: CompactGraph.NodeID(objectCount)) != .root
        {
            objectCount += 1
        }
        for node in objectCount..<graph.nodeCount
        where graph.kind(of: CompactGraph.NodeID(node)) != .root {
            throw GraphFileError(
                path: path, reason: "node \(node) is an object after the holders: not a heap")
        }
        let facts = HeapFileAttributes(contents.attributes)
        self.init(
            graph: graph, objectCount: objectCount, process: facts.process,
            limitations: facts.limitations, statistics: facts.statistics)
    }

    /// The facts a graph file carries beside the graph.
    var attributes: [String: String] { HeapFileAttributes(snapshot: self).attributes }
}
