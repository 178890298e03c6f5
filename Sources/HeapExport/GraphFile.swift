import Foundation
import ObjectGraph

/// RetainGraph's own file of a heap graph: a ``/ObjectGraph/CompactGraph`` written whole (every
/// node with its kind, type, label, address and size; every reference with its ownership, role
/// and origin; every root with its kind), read back exactly, so that a heap taken in one
/// process (a test run, a server, an attached process) can be looked at later in another: its
/// largest retainers (`retain-graph heap retainers FILE`), or converted to a `.heapsnapshot`
/// for Chrome DevTools (`retain-graph heap convert FILE OUT.heapsnapshot`).
///
/// ```swift
/// try GraphFile.write(HeapCensus.snapshot().graph, toFile: "/tmp/heap.rggraph.json")
/// let graph = try GraphFile.read(fromFile: "/tmp/heap.rggraph.json")
/// print(graph.dominatorTree().largestRetainers(in: graph, limit: 5))
/// ```
///
/// The file is JSON in columns (as V8's own format is), about 60 bytes per object with its
/// references: `{"format": "retaingraph.graph", "version": 1, "strings": […], "roles": […],
/// "nodes": {"kind", "type", "label", "address", "size"}, "edges": {"from", "to", "ownership",
/// "role", "origin", "lowPriority"}, "roots": [{"node", "kind", "name", "holder"}],
/// "attributes": {…}}`. The optional attributes are facts about where the graph came from,
/// as names and values of the writer's choosing (an attached process's id and threads, say):
/// ``write(_:attributes:toFile:)`` writes them, ``contents(ofFile:)`` reads them back.
public enum GraphFile {
    /// The `format` field's value.
    public static let format = "retaingraph.graph"
    /// The version this library writes and reads.
    public static let version = 1

    /// Writes `graph` to `path`, with facts about where it came from.
    ///
    /// ```swift
    /// try GraphFile.write(graph, attributes: ["processID": "4242"], toFile: "heap.json")
    /// let (read, facts) = try GraphFile.contents(ofFile: "heap.json")  // facts["processID"]
    /// ```
    ///
    /// - Parameters:
    ///   - graph: The graph.
    ///   - attributes: Names and values written beside the graph (none by default), read back
    ///     by ``contents(ofFile:)``.
    ///   - path: Where to write; the file is created or replaced.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``HeapExportError`` when the file cannot be written.
    /// - Complexity: O(*n* + *e*), streamed to disk.
    @discardableResult
    public static func write(
        _ graph: CompactGraph, attributes: [String: String] = [:], toFile path: String
    ) throws(HeapExportError) -> Int {
        var output = try JSONOutput(file: path)
        serialize(graph, attributes: attributes, into: &output)
        return try output.finish()
    }

    /// Reads a graph written by ``write(_:attributes:toFile:)``: the graph of
    /// ``contents(ofFile:)``, which says what it throws.
    ///
    /// - Parameter path: The file.
    /// - Returns: The graph, its nodes numbered as they were written.
    public static func read(fromFile path: String) throws(GraphFileError) -> CompactGraph {
        try contents(ofFile: path).graph
    }

    /// Reads a graph written by ``write(_:attributes:toFile:)`` and the attributes written
    /// beside it.
    ///
    /// - Parameter path: The file.
    /// - Returns: The graph, its nodes numbered as they were written, and the attributes
    ///   (empty when the file has none).
    /// - Throws: ``GraphFileError`` when the file cannot be read, is not a graph file, or names
    ///   a node, string or role that does not exist.
    public static func contents(ofFile path: String) throws(GraphFileError)
        -> (graph: CompactGraph, attributes: [String: String])
    {
        /// `body`'s value, or a file error whose reason `reason` words from what `body` threw.
        func attempt<T>(_ reason: (any Error) -> String, _ body: () throws -> T)
            throws(GraphFileError) -> T
        {
            do {
                return try body()
            } catch {
                throw GraphFileError(path: path, reason: reason(error))
            }
        }
        let data = try attempt(
            { "cannot read it (\($0.localizedDescription))" },
            { try Data(contentsOf: URL(fileURLWithPath: path)) })
        let file = try attempt(
            { "not a graph file (\($0))" },
            { try JSONDecoder().decode(FileColumns.self, from: data) })
        guard file.format == format else {
            throw GraphFileError(
                path: path, reason: "its format is \"\(file.format)\", not \"\(format)\"")
        }
        guard file.version == version else {
            throw GraphFileError(
                path: path, reason: "version \(file.version); this library reads version \(version)"
            )
        }
        return try attempt({ "\($0)" }, { (try file.graph(), file.attributes ?? [:]) })
    }

    static func serialize(
        _ graph: CompactGraph, attributes: [String: String] = [:], into output: inout JSONOutput
    ) {
        // Strings (type names and labels) and roles, numbered as first met.
        var strings = InternedStrings()
        var roles: [ReferenceRole] = []
        var roleNumbers: [UInt32: UInt64] = [:]
        let nodes = UInt32(graph.nodeCount)
        /// `"name":[…]` per column, one value per node (or, `perEdge`, per edge of each node).
        func write(
            _ columns: [(String, (CompactGraph.NodeID, CompactGraph.EdgeID) -> UInt64)],
            perEdge: Bool
        ) {
            for (index, (name, value)) in columns.enumerated() {
                if index > 0 { output.append(",\n") }
                output.append(string: name)
                output.append(":[")
                var first = true
                for node in 0..<nodes {
                    for edge in perEdge ? graph.outEdges(of: node) : 0..<1 {
                        if !first { output.append(byte: 0x2C) }
                        first = false
                        output.append(value(node, CompactGraph.EdgeID(edge)))
                        output.flushIfFull()
                    }
                }
                output.append(byte: 0x5D)
            }
        }
        output.append("{\"format\":")
        output.append(string: format)
        output.append(",\"version\":")
        output.append(UInt64(version))
        output.append(",\n\"nodes\":{")
        write(
            [
                ("kind", { node, _ in UInt64(graph.kind(of: node).rawValue) }),
                ("type", { node, _ in UInt64(strings.intern(graph.typeName(of: node))) }),
                (
                    "label",
                    { node, _ in graph.label(of: node).map { UInt64(strings.intern($0)) } ?? 0 }
                ),
                ("address", { node, _ in UInt64(graph.address(of: node) ?? 0) }),
                ("size", { node, _ in UInt64(graph.size(of: node)) }),
            ], perEdge: false)
        output.append("},\n\"edges\":{")
        write(
            [
                ("from", { node, _ in UInt64(node) }),
                ("to", { UInt64(graph.target(of: $1)) }),
                ("ownership", { UInt64(graph.ownership(ofEdge: $1).byte) }),
                ("origin", { UInt64(graph.origin(ofEdge: $1).rawValue) }),
                ("lowPriority", { graph.isLowPriority($1) ? 1 : 0 }),
                (
                    "role",
                    { _, edge in
                        let role = graph.roleNumber(ofEdge: edge)
                        if let known = roleNumbers[role] { return known }
                        let number = UInt64(roles.count)
                        roles.append(graph.role(ofEdge: edge))
                        roleNumbers[role] = number
                        return number
                    }
                ),
            ], perEdge: true)
        output.append("},\n\"roots\":[")
        output.append(lines: graph.roots) { output, root in
            let (kind, name, holder) = RootColumns.encode(root.kind)
            output.append("{\"node\":")
            output.append(UInt64(root.node))
            output.append(",\"kind\":")
            output.append(string: kind)
            output.append(",\"name\":")
            output.append(string: name)
            if let holder {
                output.append(",\"holder\":")
                output.append(string: holder)
            }
            output.append(byte: 0x7D)
        }
        output.append("],\n\"roles\":[")
        output.append(lines: roles) { output, role in
            output.append(byte: 0x5B)
            output.append(string: role.name)
            for part in [role.detail, role.path] {
                output.append(byte: 0x2C)
                if let part { output.append(string: part) } else { output.append("null") }
            }
            output.append(byte: 0x5D)
        }
        output.append("],\n\"strings\":[")
        output.append(lines: 0..<UInt32(strings.count)) { $0.append(string: strings[$1]) }
        output.append(byte: 0x5D)
        if !attributes.isEmpty {
            output.append(",\n\"attributes\":{")
            output.append(lines: attributes.keys.sorted()) { output, name in
                output.append(string: name)
                output.append(byte: 0x3A)
                output.append(string: attributes[name] ?? "")
            }
            output.append(byte: 0x7D)
        }
        output.append("}\n")
    }
}

/// Why a graph file could not be read.
public struct GraphFileError: Error, CustomStringConvertible, Sendable {
    /// The file.
    public let path: String
    /// What is wrong with it.
    public let reason: String

    /// A one-line description, such as `cannot read heap.json: not a graph file (…)`.
    public var description: String { "cannot read \(path): \(reason)" }

    /// An error about the file at `path`.
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
