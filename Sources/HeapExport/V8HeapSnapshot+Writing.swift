extension V8HeapSnapshot {
    /// Writes the snapshot as a `.heapsnapshot` file, streaming it to disk in 1 MiB blocks.
    ///
    /// Open the file in Chrome DevTools: Memory panel → Load profile. Edges that name a node
    /// that does not exist are left out.
    ///
    /// ```swift
    /// let bytes = try snapshot.write(toFile: "/tmp/server.heapsnapshot")
    /// ```
    ///
    /// - Parameter path: Where to write; the file is created or replaced.
    /// - Returns: The file's size in bytes.
    /// - Throws: ``HeapExportError`` when the file cannot be created or written.
    /// - Complexity: O(*n* + *e* + *s*) for *n* nodes, *e* edges and *s* bytes of strings;
    ///   8 bytes per edge of scratch memory.
    @discardableResult
    public func write(toFile path: String) throws(HeapExportError) -> Int {
        var output = try JSONOutput(file: path)
        serialize(into: &output)
        return try output.finish()
    }

    /// The snapshot's JSON text, as ``write(toFile:)`` writes it.
    ///
    /// - Complexity: O(*n* + *e* + *s*), all in memory.
    public func jsonBytes() -> [UInt8] {
        var output = JSONOutput()
        serialize(into: &output)
        return output.bytes
    }

    /// The edges grouped by holder (the format's order), each group in the order added,
    /// edges naming unknown nodes dropped: the positions into the edge columns, and the
    /// number of edges of each node.
    private func edgesByHolder() -> (order: [UInt32], counts: [UInt32]) {
        let nodeCount = nodeTypes.count
        var start = [UInt32](repeating: 0, count: nodeCount + 1)
        for edge in edgeTargets.indices
        where Int(edgeSources[edge]) < nodeCount && Int(edgeTargets[edge]) < nodeCount {
            start[Int(edgeSources[edge]) + 1] &+= 1
        }
        let counts = (0..<nodeCount).map { start[$0 + 1] }
        for node in 0..<nodeCount { start[node + 1] &+= start[node] }
        var order = [UInt32](repeating: 0, count: Int(start[nodeCount]))
        for edge in edgeTargets.indices
        where Int(edgeSources[edge]) < nodeCount && Int(edgeTargets[edge]) < nodeCount {
            let holder = Int(edgeSources[edge])
            order[Int(start[holder])] = UInt32(edge)
            start[holder] &+= 1
        }
        return (order, counts)
    }

    func serialize(into output: inout JSONOutput) {
        let (order, counts) = edgesByHolder()
        writeHeader(into: &output, edgeCount: order.count)
        output.append("\"nodes\":[")
        for node in nodeTypes.indices {
            if node > 0 { output.append(",\n") }
            output.append(row: [
                UInt64(nodeTypes[node]), UInt64(nodeNames[node]), nodeIDs[node],
                UInt64(nodeSizes[node]), UInt64(counts[node]), UInt64(nodeTraces[node]),
                0,  // detachedness: unknown
            ])
        }
        output.append("],\n\"edges\":[")
        let fieldCount = UInt64(Self.nodeFields.count)
        for (position, edge) in order.enumerated() {
            if position > 0 { output.append(byte: 44) }
            if position & 7 == 7 { output.append("\n") }
            output.append(row: [
                UInt64(edgeTypes[Int(edge)]), UInt64(edgeNames[Int(edge)]),
                UInt64(edgeTargets[Int(edge)]) &* fieldCount,
            ])
        }
        output.append("],\n")
        writeTraces(into: &output)
        output.append("\"samples\":[],\n\"locations\":[],\n\"strings\":[")
        output.append(lines: 0..<UInt32(strings.count)) { $0.append(string: strings[$1]) }
        output.append("]}\n")
    }

    /// The field lists of V8's format, in its order.
    static let nodeFields = [
        "type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness",
    ]

    private func writeHeader(into output: inout JSONOutput, edgeCount: Int) {
        func list(_ names: [String]) -> String {
            "[" + names.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        }
        let nodeTypeNames = list(NodeType.allCases.map(\.formatName))
        let edgeTypeNames = list(EdgeType.allCases.map { "\($0)" })
        let meta =
            "{\"node_fields\":\(list(Self.nodeFields)),"
            + "\"node_types\":[\(nodeTypeNames),\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],"
            + "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],"
            + "\"edge_types\":[\(edgeTypeNames),\"string_or_number\",\"node\"],"
            + "\"trace_function_info_fields\":"
            + "[\"function_id\",\"name\",\"script_name\",\"script_id\",\"line\",\"column\"],"
            + "\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\"size\",\"children\"],"
            + "\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],"
            + "\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]}"
        let header =
            "{\"snapshot\":{\"meta\":\(meta),\"node_count\":\(nodeTypes.count),"
            + "\"edge_count\":\(edgeCount),\"trace_function_count\":\(traces.functions.count)},\n"
        for byte in header.utf8 { output.append(byte: byte) }
    }

    /// `trace_function_infos` and `trace_tree`, with each trace node's count and size taken
    /// from the nodes that name it. Written without recursion.
    private func writeTraces(into output: inout JSONOutput) {
        output.append("\"trace_function_infos\":[")
        output.append(lines: traces.functions.indices) { output, index in
            let function = traces.functions[index]
            output.append(row: [
                UInt64(index), UInt64(function.name), UInt64(function.script), 0,
                UInt64(max(function.line, 0)), UInt64(max(function.column, 0)),
            ])
        }
        output.append("],\n\"trace_tree\":[")
        if !traces.isEmpty {
            var count = [UInt64](repeating: 0, count: traces.parents.count + 1)
            var size = [UInt64](repeating: 0, count: traces.parents.count + 1)
            for node in nodeTraces.indices where nodeTraces[node] != 0 {
                let trace = Int(nodeTraces[node])
                guard trace < count.count else { continue }
                count[trace] += 1
                size[trace] += UInt64(nodeSizes[node])
            }
            let children = traces.childLists()
            var stack: [(id: UInt32, next: Int)] = [(1, 0)]
            writeTraceNode(1, count: count, size: size, into: &output)
            while let top = stack.last {
                let list = children[Int(top.id) - 1]
                if top.next == list.count {
                    output.append("]")
                    stack.removeLast()
                    continue
                }
                if top.next > 0 { output.append(byte: 44) }
                stack[stack.count - 1].next += 1
                let child = list[top.next]
                writeTraceNode(child, count: count, size: size, into: &output)
                stack.append((child, 0))
            }
        }
        output.append("],\n")
    }

    /// `id,function_info_index,count,size,[` — the children (flat, comma-separated) and `]`
    /// follow, as V8 writes the tree and DevTools' `AllocationProfile` reads it.
    private func writeTraceNode(
        _ id: UInt32, count: [UInt64], size: [UInt64], into output: inout JSONOutput
    ) {
        output.append(
            row: [
                UInt64(id), UInt64(traces.nodeFunctions[Int(id) - 1]), count[Int(id)],
                size[Int(id)],
            ])
        output.append(",[")
    }
}
