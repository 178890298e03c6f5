import Foundation

extension GrowthReport {
    /// The report for a person: one block per grown type, its growth, bytes, the path from its
    /// holder to a sample, and where the sample was created.
    ///
    /// ```text
    /// HEAP GROWTH: 1 type grew with 50 repetitions (2 rounds; threshold 25 per round)
    ///
    /// SessionServer.Session: +50, +50 (1.0 per repetition), 3.1 KB new in round 2
    ///   held by: a block libdispatch holds (…)
    ///   ┬ block
    ///   ├─ captures ⇒ SessionServer.Session
    /// ```
    public var text: String {
        guard !grown.isEmpty else {
            return "HEAP GROWTH: none with \(repetitions) repetitions "
                + "(2 rounds; threshold \(threshold) per round)"
        }
        var lines = [
            "HEAP GROWTH: \(grown.count) type\(grown.count == 1 ? "" : "s") grew with "
                + "\(repetitions) repetitions (2 rounds; threshold \(threshold) per round)"
        ]
        for type in grown {
            lines.append("")
            let growth = type.growth.map { "+\($0)" }.joined(separator: ", ")
            lines.append(
                "\(type.typeName): \(growth) (\(String(format: "%.1f", type.perRepetition)) per "
                    + "repetition), \(Self.bytes(type.newInstanceBytes)) new in round 2")
            if let holder = type.holder { lines.append("  held by: \(holder)") }
            for (index, step) in type.path.enumerated() {
                let address = String(step.address, radix: 16)
                if index == 0 {
                    lines.append("  ┬ \(step.typeName) at 0x\(address)")
                } else {
                    let last = index == type.path.count - 1
                    lines.append(
                        "  \(last ? "╰→" : "├─") \(step.label ?? "?") ⇒ \(step.typeName) at 0x\(address)"
                    )
                }
            }
            if type.path.isEmpty { lines.append("  no path found from a holder") }
            if !type.creationTrace.isEmpty {
                lines.append("  created at:")
                for (index, frame) in type.creationTrace.prefix(6).enumerated() {
                    lines.append("    #\(index)  \(frame)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The sample paths as a Graphviz digraph: one cluster per grown type.
    public var dot: String {
        var lines = ["digraph heapGrowth {", "  rankdir=LR;", "  node [shape=box, fontsize=10];"]
        for (typeIndex, type) in grown.enumerated() {
            lines.append("  subgraph cluster_\(typeIndex) {")
            lines.append(
                "    label=\"\(Self.escaped(type.typeName)) +\(type.growth.reduce(0, +))\";")
            if let holder = type.holder {
                lines.append(
                    "    t\(typeIndex)_holder [label=\"\(Self.escaped(holder))\", shape=ellipse];")
            }
            for (index, step) in type.path.enumerated() {
                lines.append(
                    "    t\(typeIndex)_\(index) [label=\"\(Self.escaped(step.typeName))\"];")
                if index == 0, type.holder != nil {
                    lines.append("    t\(typeIndex)_holder -> t\(typeIndex)_0;")
                } else if index > 0 {
                    lines.append(
                        "    t\(typeIndex)_\(index - 1) -> t\(typeIndex)_\(index) "
                            + "[label=\"\(Self.escaped(step.label ?? ""))\"];")
                }
            }
            lines.append("  }")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "\"", with: "\\\"")
    }

    private static func bytes(_ count: Int) -> String {
        count < 1024 ? "\(count) B" : String(format: "%.1f KB", Double(count) / 1024)
    }
}
