import HeapCensus
import RetainGraph
import StackTraces

// The adapter from a heap census snapshot to the V8 model: every place this module reads a
// `HeapSnapshot` is in this file (its graph, sizes, records, outside holders, creation traces).

extension V8HeapSnapshot {
    /// Exports a heap census snapshot: every Swift heap object under its type name, with its
    /// block's real size, the references between them, and each holder outside the heap as a
    /// GC root of a named group.
    ///
    /// Groups: `(globals)` (edges named by the global variable), `(Tasks)`,
    /// `(Foundation timers)`, `(dispatch blocks)` and `(held from outside the Swift heap)`.
    /// Objects with a creation trace (``/HeapCensus/HeapCensus/traceCreation(of:)``) carry it
    /// in `trace_tree`.
    ///
    /// ```swift
    /// var numbering = ObjectNumbering()
    /// let before = V8HeapSnapshot(census: HeapCensus.snapshot(), numbering: &numbering)
    /// // … the work that leaks …
    /// let after = V8HeapSnapshot(census: HeapCensus.snapshot(), numbering: &numbering)
    /// ```
    ///
    /// - Parameters:
    ///   - heap: The census snapshot.
    ///   - number: Each object's number, stable across the snapshots to compare (below 2³¹).
    public init(census heap: HeapSnapshot, number: (HeapObjectID) -> UInt64) {
        let graph = heap.graph
        self.init(expectedNodes: graph.nodeCount + 8, expectedEdges: graph.edgeCount + 8)
        var groups: [String: Int] = [:]
        var held: [(group: String, edge: String, object: HeapObjectID)] = []
        for (node, _) in graph.roots {
            let id = HeapObjectID(rawValue: Int32(node))
            for holder in heap.outsideHolders(of: id) {
                let (group, edge) = Self.group(of: holder)
                if groups[group] == nil { groups[group] = addRootGroup(named: group) }
                held.append((group, edge, id))
            }
        }
        let first = nodeCount
        var traceIDs: [StackTrace: UInt32] = [:]
        for node in 0..<Int32(graph.nodeCount) {
            let id = HeapObjectID(rawValue: node)
            let record = heap[id]
            var trace: UInt32 = 0
            if let stack = heap.creationTrace(of: id) {
                if let known = traceIDs[stack] {
                    trace = known
                } else {
                    trace = addTrace(Self.frames(of: stack))
                    traceIDs[stack] = trace
                }
            }
            addNode(
                type: .object,
                name: Self.objectName(record.typeName, kind: graph.kind(of: UInt32(node))),
                id: Self.objectID(number(id)), selfSize: UInt32(clamping: heap.size(of: id)),
                trace: trace)
        }
        for (group, edge, object) in held {
            guard let holder = groups[group] else { continue }
            addEdge(from: holder, type: .property, name: edge, to: first + Int(object.rawValue))
        }
        for node in 0..<UInt32(graph.nodeCount) {
            for reference in heap.references(from: HeapObjectID(rawValue: Int32(node))) {
                let type: EdgeType = reference.ownership == .strong ? .property : .weak
                let label = reference.label.isEmpty ? "(reference)" : reference.label
                let name =
                    reference.ownership == .strong || reference.ownership == .weak
                    ? label : "\(label) (\(reference.ownership.rawValue))"
                addEdge(
                    from: first + Int(node), type: type, name: name,
                    to: first + Int(reference.to.rawValue))
            }
        }
    }

    /// Exports a heap census snapshot, numbering objects by address with `numbering` (pass the
    /// same numbering for every snapshot of a comparison).
    public init(census heap: HeapSnapshot, numbering: inout ObjectNumbering) {
        var ids = [UInt64](repeating: 0, count: heap.objectCount)
        for node in 0..<heap.objectCount {
            ids[node] = numbering.number(
                forAddress: heap[HeapObjectID(rawValue: Int32(node))].address)
        }
        self.init(census: heap) { ids[Int($0.rawValue)] }
    }

    /// The group a holder outside the heap goes under, and the name of its edge.
    static func group(of holder: HeapHolder) -> (group: String, edge: String) {
        switch holder {
        case .globalVariable(let name): return ("(globals)", name)
        case .scheduledTimer: return ("(Foundation timers)", "scheduled on a run loop")
        case .foundationTimer:
            return ("(Foundation timers)", "invalidated or never scheduled (never freed on Linux)")
        case .task: return ("(Tasks)", "running or sleeping task")
        case .dispatchBlock: return ("(dispatch blocks)", "kept by libdispatch")
        case .outside(let count):
            return (
                "(held from outside the Swift heap)",
                "\(count) reference\(count == 1 ? "" : "s") from outside"
            )
        }
    }

    /// A creation trace's frames, innermost first, without the census's own frames.
    static func frames(of trace: StackTrace) -> [Frame] {
        trace.symbolicated().filter { !$0.isThunk }.map { frame in
            Frame(
                function: frame.function ?? frame.mangledName
                    ?? "0x\(String(frame.address, radix: 16))",
                script: frame.file ?? frame.imageName ?? "", line: frame.line ?? 0,
                column: frame.column ?? 0)
        }
    }
}

extension HeapSnapshot {
    /// Writes this snapshot as a `.heapsnapshot` file for Chrome DevTools' Memory panel
    /// (Load profile) or memlab.
    ///
    /// ```swift
    /// try HeapCensus.snapshot().writeHeapSnapshot(toFile: "/tmp/heap.heapsnapshot")
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to write; created or replaced.
    ///   - numbering: Numbers objects by address; pass the same one for every snapshot you
    ///     will compare, so that DevTools' Comparison matches surviving objects.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``HeapExportError`` when the file cannot be written.
    @discardableResult
    public func writeHeapSnapshot(toFile path: String, numbering: inout ObjectNumbering)
        throws(HeapExportError) -> Int
    {
        try V8HeapSnapshot(census: self, numbering: &numbering).write(toFile: path)
    }

    /// Writes this snapshot as a `.heapsnapshot` file, numbering objects afresh.
    @discardableResult
    public func writeHeapSnapshot(toFile path: String) throws(HeapExportError) -> Int {
        var numbering = ObjectNumbering()
        return try writeHeapSnapshot(toFile: path, numbering: &numbering)
    }
}
