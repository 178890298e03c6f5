import RetainGraphReports

extension LeakReport {
    /// The report as a Graphviz graph, for `dot -Tsvg report.dot -o report.svg`.
    ///
    /// Roots are drawn as double octagons, timers as rounded boxes, closures as notes, the
    /// leaked object as a red double circle (grey and dashed when it has died). Strong
    /// references are solid, weak and unowned ones dashed; the path from the root is blue and
    /// bold, the cycle red and bold, and suspect references are labelled `suspect`.
    ///
    /// - Complexity: O(*o* + *r*) for the report's objects and references.
    public var dot: String {
        var lines = ["digraph leak {"]
        lines.append("  rankdir=LR;")
        lines.append("  labelloc=t;")
        lines.append(
            "  label=\(dotQuoted("\(verdict.rawValue) \(subject.typeName) — \(hint.code.shortDescription)"));"
        )
        lines.append("  node [fontname=\"Helvetica\", fontsize=11];")
        lines.append("  edge [fontname=\"Helvetica\", fontsize=9];")
        for object in objects {
            lines.append("  \(object.id) [\(nodeAttributes(object))];")
        }
        let cycleKeys = Set((cycle ?? []).map(key))
        let pathKeys = Set(path.map(key))
        var drawn = Set<String>()
        for reference in path + (cycle ?? []) + context where drawn.insert(key(reference)).inserted
        {
            var attributes = ["label=\(dotQuoted(edgeLabel(reference)))"]
            attributes.append(reference.ownership.retainsTarget ? "style=solid" : "style=dashed")
            if cycleKeys.contains(key(reference)) {
                attributes += ["color=red", "penwidth=2.5"]
            } else if pathKeys.contains(key(reference)) {
                attributes += ["color=blue", "penwidth=2.5"]
            } else {
                attributes.append("color=gray40")
            }
            if reference.isDiscovered { attributes.append("arrowhead=empty") }
            lines.append(
                "  \(reference.from) -> \(reference.to) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func key(_ reference: ReportReference) -> String {
        "\(reference.from)>\(reference.to)>\(reference.role)>\(reference.detail ?? "")"
    }

    private func edgeLabel(_ reference: ReportReference) -> String {
        var label = "\(reference.ownership.rawValue): \(reference.description)"
        if reference.isSuspect { label += "\nsuspect" }
        return label
    }

    private func nodeAttributes(_ object: ReportObject) -> String {
        var label = object.root.map { "\($0)\n[root]" } ?? object.typeName
        if object.root == nil, let name = object.label { label += "\n\"\(name)\"" }
        if let timer = object.timer { label += "\n\(timer.description)" }
        var attributes = ["label=\(dotQuoted(label))"]
        if object.id == subject.id {
            attributes += ["shape=box", "peripheries=2", "style=filled"]
            attributes.append(object.isDeallocated ? "fillcolor=gray85" : "fillcolor=mistyrose")
            if object.isDeallocated { attributes.append("color=gray50") }
        } else if object.id == zombieTimer {
            attributes += ["shape=box", "style=\"rounded,filled\"", "fillcolor=orange"]
        } else {
            switch object.kind {
            case "root":
                attributes += ["shape=doubleoctagon", "style=filled", "fillcolor=lightblue"]
            case "timer":
                attributes += ["shape=box", "style=\"rounded,filled\"", "fillcolor=lightyellow"]
            case "proxy": attributes += ["shape=hexagon"]
            case "closure": attributes += ["shape=note"]
            default: attributes += ["shape=box"]
            }
        }
        return attributes.joined(separator: ", ")
    }
}
