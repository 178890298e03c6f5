import Foundation
import RetainGraphReports
import RetainGraphUtilities

extension LeakReport: CustomStringConvertible {
    /// The report as text for a terminal, in the spirit of LeakCanary's leak trace.
    ///
    /// The path from the root is drawn one reference per line, each with its kind and role,
    /// suspect references underlined with `~`, the leaked object last; then the cycle (or
    /// "no cycle"), where the timers on the way were created, the hint and the fingerprint:
    ///
    /// ```
    /// LEAK: Demo.Owner "S1" at 0x55d0c8a3e2f0
    ///   expected to die 0.2 s ago (grace 0.1 s): owner closed
    /// ┬───
    /// │ GC root: run loop of thread "main"
    /// │
    /// ├─ run loop of thread "main" [root]
    /// │    ↓ strong · scheduled in mode "kCFRunLoopDefaultMode"
    /// ├─ TrackedTimers.RunLoopTimer at 0x55d0c8a3f010 (repeating every 1 s, scheduled, fired 0×)
    /// │    ↓ strong · target
    /// │               ~~~~~~
    /// ╰→ Demo.Owner "S1" at 0x55d0c8a3e2f0
    ///      Leaking: YES (owner closed)
    /// ```
    ///
    /// A path or cycle longer than ``textReferenceLimit`` references is shortened in the middle
    /// (its first and last references are shown, and a line says how many were left out);
    /// ``jsonData()`` keeps them all. Use ``text(maximumReferences:)`` to choose the limit.
    ///
    /// - Complexity: O(*o* + *r* + *f*) for the report's objects, references and trace frames.
    public var text: String { text(maximumReferences: Self.textReferenceLimit) }

    /// How many references of a path, a cycle or a chain ``text`` and ``summary`` show at most:
    /// longer ones are shortened in the middle.
    public static let textReferenceLimit = 30

    /// The report as text, showing at most `maximumReferences` references of the path and of
    /// the cycle, shortened in the middle as in ``text``; the same limit applies to the
    /// creation traces and the notes.
    ///
    /// ```swift
    /// print(report.text(maximumReferences: .max))   // every reference
    /// ```
    ///
    /// - Parameter maximumReferences: The most references shown per path or cycle; values
    ///   below 2 mean 2 (the first and the last).
    /// - Returns: The text, as ``text`` describes it.
    /// - Complexity: O(*o* + *r* + *f*) for the report's objects, references and trace frames,
    ///   whatever the limit.
    public func text(maximumReferences: Int) -> String {
        let index = ReportObjectIndex(objects)
        var lines: [String] = []
        let state = subject.isDeallocated ? " (deallocated)" : ""
        lines.append("\(verdict.rawValue): \(subject.displayName)\(state)")
        lines.append(
            "  expected to die \(seconds(graceSeconds + secondsPastDeadline)) ago "
                + "(grace \(seconds(graceSeconds))): \(reason)")
        lines.append("  " + retentionSentence)
        if let retainedDescription { lines.append("  " + retainedDescription) }
        lines += traceLines(index, limit: maximumReferences)
        lines.append("")
        lines += cycleLines(index, limit: maximumReferences)
        if !creationTraces.isEmpty {
            lines.append("")
            lines.append("Created at:")
            let elision = Elision(count: creationTraces.count, limit: maximumReferences)
            let gap = "  … \(counted(elision.omitted, "creation trace")) left out …"
            lines += elision.lines(gap: [gap]) { position in
                let trace = creationTraces[position]
                let site = trace.site.map { " \($0)" } ?? ""
                return ["  \(index[trace.object]?.displayName ?? trace.object):\(site)"]
                    + trace.frames.enumerated().map { "    #\($0.offset)  \($0.element)" }
            }
        }
        let elision = Elision(count: notes.count, limit: maximumReferences)
        let gap = "Note: … \(counted(elision.omitted, "note")) left out …"
        lines += elision.lines(gap: [gap]) { ["Note: \(notes[$0])"] }
        lines.append("")
        lines.append("Hint: \(hint.text)")
        let count = occurrences > 1 ? " (seen \(occurrences)×)" : ""
        lines.append("Fingerprint: \(fingerprint)\(count)")
        if let watchLocation { lines.append("Watched at \(watchLocation)") }
        return lines.joined(separator: "\n")
    }

    /// The report as a person reads it in a terminal (``text``).
    public var description: String { text }

    /// What the leaked object keeps alive, as the report's text says it under the verdict:
    /// `retains 2.7 KiB in 22 objects (itself and what only it keeps alive)`.
    ///
    /// Without sizes it gives the count alone, `retains 22 objects (itself and what only it
    /// keeps alive; bytes unknown)`, rather than 0 bytes. `nil` when the report has no
    /// ``retainedCount`` (the check did not read the whole heap).
    public var retainedDescription: String? {
        guard let retainedCount else { return nil }
        let objects = counted(retainedCount, "object")
        guard let retainedBytes else {
            return "retains \(objects) (itself and what only it keeps alive; bytes unknown)"
        }
        return "retains \(ByteCount.description(retainedBytes)) in \(objects) (itself and what "
            + "only it keeps alive)"
    }

    private var retentionSentence: String {
        switch retention {
        case .rootPathAndCycle: return "kept alive by a strong path from a root and a strong cycle"
        case .rootPath: return "kept alive by a strong path from a root"
        case .cycle: return "kept alive by a strong cycle that no root reaches"
        case .unexplained: return "kept alive by something the graph does not know about"
        case .deallocated:
            return "died, but a repeating timer that called it is still scheduled"
        }
    }

    private func traceLines(_ index: ReportObjectIndex, limit: Int) -> [String] {
        let chain = path.isEmpty ? (cycle ?? []) : path
        guard let first = chain.first else { return [] }
        var lines = ["┬───"]
        if let root = index[first.from]?.root {
            lines += ["│ GC root: \(root)", "│"]
        } else {
            lines += ["│ no root reaches it: the cycle below keeps it", "│"]
        }
        let elision = Elision(count: chain.count, limit: limit)
        let gap =
            "┆  … \(counted(elision.omitted, "reference")) left out (of "
            + "\(grouped(chain.count)); the JSON report has them all) …"
        lines += elision.lines(gap: ["┆", gap, "┆"]) { position in
            let reference = chain[position]
            let head = "│    ↓ \(reference.ownership.rawValue) · "
            let underline =
                "│" + String(repeating: " ", count: head.count - 1)
                + String(repeating: "~", count: reference.description.count)
            return [
                "├─ \(describe(reference.from, index))",
                head + reference.description + reference.discoveryMark,
            ] + (reference.isSuspect ? [underline] : [])
        }
        let last = chain.last?.to ?? subject.id
        if verdict == .zombie {
            lines.append("╰→ \(describe(last, index))")
            lines.append("     Zombie: YES (fires into \(subject.typeName), which died)")
        } else if path.isEmpty {
            lines.append("╰→ back to \(describe(last, index))")
        } else {
            lines.append("╰→ \(describe(last, index))")
            var leaking = "YES"
            if verdict == .transient {
                leaking =
                    "NOT YET, a one-shot timer "
                    + (releaseDescription.map { "\($0) and releases it" } ?? "will release it")
            }
            lines.append("     Leaking: \(leaking) (\(reason))")
        }
        return lines
    }

    private func cycleLines(_ index: ReportObjectIndex, limit: Int) -> [String] {
        guard let cycle, let first = cycle.first else {
            if retention == .unexplained { return ["No strong path and no cycle recorded."] }
            return ["No cycle: held from a root."]
        }
        var lines = ["Cycle (\(counted(cycle.count, "reference"))):"]
        let elision = Elision(count: cycle.count, limit: limit)
        let gap = "  ┆  … \(counted(elision.omitted, "reference")) left out …"
        lines += elision.lines(gap: [gap]) { position in
            let reference = cycle[position]
            let mark = position == 0 ? "┌─" : "│ "
            let suspect = reference.isSuspect ? "   ← suspect" : ""
            return [
                "  \(mark) \(index[reference.from]?.typeName ?? reference.from) "
                    + "\(reference.arrow) \(reference.description)\(suspect)"
            ]
        }
        lines.append("  └→ \(index[first.from]?.typeName ?? first.from)")
        return lines
    }

    private func describe(_ id: String, _ index: ReportObjectIndex) -> String {
        guard let object = index[id] else { return id }
        var text = object.displayName
        if let timer = object.timer { text += " (\(timer.description))" }
        if object.isDeallocated { text += " (deallocated)" }
        return text
    }
}
