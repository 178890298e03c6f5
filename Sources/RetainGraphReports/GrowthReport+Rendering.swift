import Foundation
import RetainGraphUtilities

extension GrowthReport: CustomStringConvertible {
    /// The report for a person: one block per grown type, its growth, bytes, the path from its
    /// holder to a sample, and where the sample was created; then what other work changed
    /// meanwhile.
    ///
    /// ```text
    /// HEAP GROWTH: 1 type grew with 10 repetitions (2 rounds; threshold 5 per round)
    ///
    /// App.Entry: +10, +10 (1.0 per repetition), 240 B new in round 2
    ///   each new instance retains 96 B on average (itself and what only it keeps alive)
    ///   held by: global variable App.log : Swift.Array<App.Entry>
    ///   ┬ array storage at 0x7f42ec0814c0
    ///   ╰→ element of an array ⇒ App.Entry at 0x7f42dd0a1d20
    /// ```
    public var text: String {
        var lines = [headline]
        for type in grown {
            lines.append("")
            lines += Self.lines(of: type)
        }
        if !interference.isEmpty {
            lines.append("")
            lines.append(
                "Other work changed \(interference.count) type"
                    + "\(interference.count == 1 ? "" : "s") meanwhile (not counted as this work's "
                    + "growth; a test running in parallel?):")
            for note in interference { lines.append("  " + Self.line(of: note)) }
        }
        return lines.joined(separator: "\n")
    }

    /// The report as a person reads it (``text``): `"\(growth)"` in a test's message.
    public var description: String { text }

    /// One line: what grew, by how much, and whether other work interfered, such as
    /// `HEAP GROWTH: App.Session +50, +50 (1.0 per repetition)`.
    public var summary: String {
        guard !grown.isEmpty else {
            let others =
                interference.isEmpty
                ? ""
                : "; other work changed "
                    + interference.map(\.typeName).joined(separator: ", ")
            return "HEAP GROWTH: none with \(repetitions) repetitions\(others)"
        }
        return "HEAP GROWTH: "
            + grown.map {
                "\($0.typeName) \($0.growth.map { "+\($0)" }.joined(separator: ", ")) "
                    + "(\(String(format: "%.1f", $0.perRepetition)) per repetition)"
            }.joined(separator: "; ")
    }

    private var headline: String {
        guard !grown.isEmpty else {
            return "HEAP GROWTH: none with \(repetitions) repetitions "
                + "(2 rounds; threshold \(threshold) per round)"
        }
        return "HEAP GROWTH: \(grown.count) type\(grown.count == 1 ? "" : "s") grew with "
            + "\(repetitions) repetitions (2 rounds; threshold \(threshold) per round)"
    }

    private static func lines(of type: GrownType) -> [String] {
        var lines: [String] = []
        let growth = type.growth.map { "+\($0)" }.joined(separator: ", ")
        lines.append(
            "\(type.typeName): \(growth) (\(String(format: "%.1f", type.perRepetition)) per "
                + "repetition), \(bytes(type.newInstanceBytes)) new in round 2")
        switch type.attribution {
        case .body?:
            if let elsewhere = type.madeElsewhere, elsewhere.contains(where: { $0 > 0 }) {
                lines.append(
                    "  counted: the instances this work made; other threads made "
                        + elsewhere.map { "+\($0)" }.joined(separator: ", ")
                        + " more meanwhile (not counted)")
            }
        case .otherThreads?:
            lines.append(
                "  made on other threads (work this code started: an event loop, a queue, a "
                    + "Task), and \(idle(type.idleGrowth)) while it was not running")
        case .untraced?:
            lines.append(
                "  counted from the live count (where this type is made cannot be traced), and "
                    + "\(idle(type.idleGrowth)) while the work was not running")
        case nil: break
        }
        if let retained = type.retainedBytesPerInstance {
            lines.append(
                "  each new instance retains \(bytes(retained)) on average (itself and what only "
                    + "it keeps alive)")
        }
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
        return lines
    }

    /// `no growth`, or the idle round's growth, which the counts may include.
    private static func idle(_ growth: Int?) -> String {
        guard let growth, growth > 0 else { return "no growth" }
        return "+\(growth) (other work's, which these counts may include)"
    }

    private static func line(of note: GrowthInterference) -> String {
        let growth = note.growth.map { "+\($0)" }.joined(separator: ", ")
        let made = note.madeByTheWork.map { "+\($0)" }.joined(separator: ", ")
        switch note.reason {
        case .unsteady:
            guard note.isTraced else {
                return "\(note.typeName): \(growth), not steady (where it is made cannot be "
                    + "traced)"
            }
            return "\(note.typeName): \(growth), not steady (this work made \(made) of them)"
        case .growsWithoutTheWork:
            return "\(note.typeName): \(growth), and +\(note.idleGrowth ?? 0) while this work "
                + "was not running"
        }
    }

    /// The sample paths as a Graphviz digraph: one cluster per grown type.
    public var dot: String {
        var lines = ["digraph heapGrowth {", "  rankdir=LR;", "  node [shape=box, fontsize=10];"]
        for (typeIndex, type) in grown.enumerated() {
            lines.append("  subgraph cluster_\(typeIndex) {")
            lines.append(
                "    label=\(dotQuoted("\(type.typeName) +\(type.growth.reduce(0, +))"));")
            if let holder = type.holder {
                lines.append(
                    "    t\(typeIndex)_holder [label=\(dotQuoted(holder)), shape=ellipse];")
            }
            for (index, step) in type.path.enumerated() {
                lines.append(
                    "    t\(typeIndex)_\(index) [label=\(dotQuoted(step.typeName))];")
                if index == 0, type.holder != nil {
                    lines.append("    t\(typeIndex)_holder -> t\(typeIndex)_0;")
                } else if index > 0 {
                    lines.append(
                        "    t\(typeIndex)_\(index - 1) -> t\(typeIndex)_\(index) "
                            + "[label=\(dotQuoted(step.label ?? ""))];")
                }
            }
            lines.append("  }")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private static func bytes(_ count: Int) -> String { ByteCount.description(count) }
}

/// `text` as a Graphviz quoted string: in double quotes, with quotes, backslashes and line
/// breaks escaped (the growth report's and the leak report's `dot`).
package func dotQuoted(_ text: String) -> String {
    var escaped = ""
    for character in text {
        switch character {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        default: escaped.append(character)
        }
    }
    return "\"\(escaped)\""
}
