import Foundation
import HeapExport
import ObjectGraph
import RuntimeLayouts

extension RemoteHeapSnapshot {
    /// Writes the snapshot for later reading: a `.heapsnapshot` file for Chrome DevTools'
    /// Memory panel (Load profile) or memlab when `path` ends in `.heapsnapshot`, otherwise
    /// RetainGraph's graph file (``/HeapExport/GraphFile``), with the facts about the target
    /// (process id, command, threads, the stop, what could not be read) as its attributes.
    ///
    /// A graph file reads back with ``init(contentsOfFile:)`` (`retain-graph attach --input`),
    /// and with `retain-graph heap retainers` for the largest retainers.
    ///
    /// ```swift
    /// let heap = try RemoteHeapSnapshot.capture(processID: pid)
    /// try heap.write(toFile: "server.json")            // read back later, anywhere
    /// try heap.write(toFile: "server.heapsnapshot")    // open in DevTools
    /// ```
    ///
    /// - Parameters:
    ///   - path: Where to write; created or replaced.
    ///   - numbering: Numbers objects by address and type for a `.heapsnapshot`; pass the same
    ///     one for every snapshot of one process you will compare in DevTools.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``/HeapExport/HeapExportError`` when the file cannot be written.
    /// - Complexity: O(*n* + *r*), streamed to disk.
    @discardableResult
    public func write(toFile path: String, numbering: inout ObjectNumbering)
        throws(HeapExportError) -> Int
    {
        if path.hasSuffix(".heapsnapshot") {
            return try V8HeapSnapshot(graph: graph, numbering: &numbering).write(toFile: path)
        }
        return try GraphFile.write(graph, attributes: attributes, toFile: path)
    }

    /// Writes the snapshot for later reading (see ``write(toFile:numbering:)``), numbering the
    /// objects of a `.heapsnapshot` afresh.
    @discardableResult
    public func write(toFile path: String) throws(HeapExportError) -> Int {
        var numbering = ObjectNumbering()
        return try write(toFile: path, numbering: &numbering)
    }

    /// Reads a snapshot written by ``write(toFile:)`` as a graph file.
    ///
    /// Any graph file of a heap whose objects come before its holders reads (a census
    /// snapshot's, say); the facts about the target are those its attributes give (process id
    /// 0 and command `?` when it has none).
    ///
    /// - Parameter path: The graph file.
    /// - Throws: ``AttachError/unreadableSnapshot(reason:)`` when the file cannot be read, is
    ///   not a graph file, or its objects and holders are interleaved.
    public init(contentsOfFile path: String) throws(AttachError) {
        let contents: (graph: CompactGraph, attributes: [String: String])
        do {
            contents = try GraphFile.contents(ofFile: path)
        } catch {
            throw .unreadableSnapshot(reason: error.description)
        }
        try self.init(graph: contents.graph, attributes: contents.attributes)
    }

    /// A snapshot over `graph`, with the facts `attributes` give.
    init(graph: CompactGraph, attributes: [String: String]) throws(AttachError) {
        var objectCount = 0
        while objectCount < graph.nodeCount,
            graph.kind(of: CompactGraph.NodeID(objectCount)) != .root
        {
            objectCount += 1
        }
        for node in objectCount..<graph.nodeCount
        where graph.kind(of: CompactGraph.NodeID(node)) != .root {
            throw .unreadableSnapshot(reason: "node \(node) is an object after the holders")
        }
        let addresses = (0..<objectCount).map { graph.address(of: CompactGraph.NodeID($0)) ?? 0 }
        let facts = AttachAttributes(attributes)
        self.init(
            graph: graph, objectCount: objectCount, addressIndex: AddressIndex(addresses),
            processID: facts.processID, command: facts.command, capturedAt: facts.capturedAt,
            stopDuration: facts.stopDuration, threads: facts.threads,
            limitations: facts.limitations, statistics: facts.statistics)
    }

    /// The facts about the target, as a graph file's attributes.
    var attributes: [String: String] {
        AttachAttributes(snapshot: self).attributes
    }
}
