import HeapExport
import ObjectGraph
import StackTraces

extension HeapSnapshot {
    /// Writes this snapshot as a `.heapsnapshot` file for Chrome DevTools' Memory panel
    /// (Load profile) or memlab.
    ///
    /// Every Swift heap object becomes an object under its type name with its block's real
    /// size; holders outside the heap are GC-root groups: `(globals)` (edges named by the
    /// variable), `(Tasks)`, `(Foundation timers)`, `(dispatch blocks)` and `(outside the
    /// Swift heap)`. Objects whose creation was traced (``HeapCensus/traceCreation(of:)``)
    /// carry their trace. See ``/HeapExport/V8HeapSnapshot/init(graph:numbering:groupEdge:creationTrace:)``.
    ///
    /// ```swift
    /// var numbering = ObjectNumbering()
    /// try HeapCensus.snapshot().writeHeapSnapshot(toFile: "before.heapsnapshot", numbering: &numbering)
    /// // … the work that leaks …
    /// try HeapCensus.snapshot().writeHeapSnapshot(toFile: "after.heapsnapshot", numbering: &numbering)
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to write; created or replaced.
    ///   - numbering: Numbers objects by address and type; pass the same one for every
    ///     snapshot you will compare, so that DevTools' Comparison matches surviving objects.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``/HeapExport/HeapExportError`` when the file cannot be written.
    @discardableResult
    public func writeHeapSnapshot(toFile path: String, numbering: inout ObjectNumbering)
        throws(HeapExportError) -> Int
    {
        try heapSnapshot(numbering: &numbering).write(toFile: path)
    }

    /// Writes this snapshot as a `.heapsnapshot` file, numbering objects afresh.
    @discardableResult
    public func writeHeapSnapshot(toFile path: String) throws(HeapExportError) -> Int {
        var numbering = ObjectNumbering()
        return try writeHeapSnapshot(toFile: path, numbering: &numbering)
    }

    /// This snapshot in V8's model, for writing or for adding to.
    ///
    /// - Parameter numbering: Numbers objects by address and type (see ``writeHeapSnapshot(toFile:numbering:)``).
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
}
