import HeapCensus
import LeakTracking
import RetainGraphUtilities

extension LeakedCycles {
    /// The groups as a person reads them: a headline, then per group its shape and counts, its
    /// sample cycle with each reference named, and where its objects were made.
    ///
    /// ```text
    /// RetainGraph: 2 leaked reference cycles at exit, 1 shape (4 objects, 160 B retained)
    ///
    /// 1. Parent ⇄ Child: 2 cycles, 4 objects, 160 B (160 B retained)   fingerprint 3f2a…
    ///      Parent ─(.child)⇒ Child
    ///      Child ─(.parent)⇒ Parent
    ///    created at: LeakTests.swift:14 (2 Parent), LeakTests.swift:15 (2 Child)
    /// ```
    ///
    /// Creation sites are symbolicated here, once per address for the process (see
    /// `StackTrace.symbolicated()` for the cost: one symbolizer run per image and batch).
    public var text: String { text(allowing: []) }

    /// The groups as ``text`` shows them, except those a pattern accepts (a library's leaks):
    /// one line each at the end, under their own heading, so that your own leaks come first.
    ///
    /// - Parameter patterns: Type patterns of accepted leaks
    ///   (``/LeakTracking/TypePattern/matches(_:)-(LeakReport)``).
    /// - Returns: The text.
    public func text(allowing patterns: [TypePattern]) -> String {
        guard !isEmpty else {
            return "RetainGraph: no leaked reference cycle at exit "
                + "(\(heapObjectCount) objects read)"
        }
        let accepted = groups.filter { group in patterns.contains { $0.matches(group.report) } }
        let shown = groups.filter { group in !patterns.contains { $0.matches(group.report) } }
        let shownCycles = shown.reduce(0) { $0 + $1.cycleCount }
        var headline: String
        if shown.isEmpty {
            headline =
                "RetainGraph: no leaked reference cycle at exit but "
                + Self.counted(cycleCount, "allowed one")
        } else {
            headline =
                "RetainGraph: \(Self.counted(shownCycles, "leaked reference cycle")) at exit, "
                + "\(Self.counted(shown.count, "shape")) "
                + "(\(shown.reduce(0) { $0 + $1.objectCount }) objects, "
                + "\(ByteCount.description(shown.reduce(0) { $0 + $1.retainedBytes })) retained)"
            if !accepted.isEmpty {
                headline += ", and \(Self.counted(cycleCount - shownCycles, "cycle")) allowed"
            }
        }
        headline += "; \(heapObjectCount) objects read."
        if !shown.isEmpty {
            headline += " Nothing reaches them and nothing outside the heap holds them."
        }
        var lines = [headline]
        for (number, group) in shown.enumerated() {
            lines.append("")
            lines += group.textLines(number: number + 1)
        }
        if !accepted.isEmpty {
            let cycles = accepted.reduce(0) { $0 + $1.cycleCount }
            let bytes = accepted.reduce(0) { $0 + $1.retainedBytes }
            lines.append("")
            lines.append(
                "Allowed by type pattern (\(patterns.map(\.pattern).joined(separator: ", "))): "
                    + "\(Self.counted(accepted.count, "shape")), "
                    + "\(Self.counted(cycles, "cycle")), \(ByteCount.description(bytes)) retained")
            for group in accepted.prefix(5) {
                lines.append(
                    "   \(group.shapeText): \(Self.counted(group.cycleCount, "cycle")), "
                        + "\(ByteCount.description(group.retainedBytes)) retained   \(group.fingerprint)"
                )
            }
            if accepted.count > 5 { lines.append("   … and \(accepted.count - 5) more shapes") }
        }
        return lines.joined(separator: "\n")
    }

    /// `1 cycle`, `2 cycles`.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

extension CycleGroup {
    /// The group's lines in ``LeakedCycles/text``.
    /// The shape in a line: `Parent ⇄ Child`, `A ⇒ B ⇒ C`, `Node` for an object holding
    /// itself.
    var shapeText: String {
        let names = sample.map { TypeNames.withoutModule($0.typeName) }
        return names.count == 2 ? "\(names[0]) ⇄ \(names[1])" : names.joined(separator: " ⇒ ")
    }

    func textLines(number: Int) -> [String] {
        let names = sample.map { TypeNames.withoutModule($0.typeName) }
        var lines = [
            "\(number). \(shapeText): \(LeakedCycles.counted(cycleCount, "cycle")), "
                + "\(objectCount) objects, \(ByteCount.description(bytes)) "
                + "(\(ByteCount.description(retainedBytes)) retained)   fingerprint \(fingerprint)"
        ]
        for (index, step) in sample.enumerated() {
            let next = names[(index + 1) % names.count]
            let arrow = step.ownership.retainsTarget ? "⇒" : "→"
            var line = "     \(names[index]) ─(\(step.role.description))\(arrow) \(next)"
            if let site = step.creationSite { line += "   made at \(site.description)" }
            lines.append(line)
        }
        if !sites.isEmpty {
            let shown = sites.prefix(4).map {
                "\($0.site.description) (\($0.count) \(TypeNames.withoutModule($0.typeName)))"
            }
            let more = sites.count > 4 ? ", and \(sites.count - 4) more sites" : ""
            lines.append("   created at: " + shown.joined(separator: ", ") + more)
        }
        return lines
    }
}
