import Foundation

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
    public var text: String {
        var lines: [String] = []
        let state = subject.isDeallocated ? " (deallocated)" : ""
        lines.append("\(verdict.rawValue): \(subject.displayName)\(state)")
        lines.append(
            "  expected to die \(seconds(graceSeconds + secondsPastDeadline)) ago "
                + "(grace \(seconds(graceSeconds))): \(reason)")
        lines.append("  " + retentionSentence)
        lines += traceLines()
        lines.append("")
        lines += cycleLines()
        if !creationTraces.isEmpty {
            lines.append("")
            lines.append("Created at:")
            for trace in creationTraces {
                lines.append("  \(object(trace.object)?.displayName ?? trace.object):")
                for (index, frame) in trace.frames.enumerated() {
                    lines.append("    #\(index)  \(frame)")
                }
            }
        }
        for note in notes { lines.append("Note: \(note)") }
        lines.append("")
        lines.append("Hint: \(hint.text)")
        let count = occurrences > 1 ? " (seen \(occurrences)×)" : ""
        lines.append("Fingerprint: \(fingerprint)\(count)")
        return lines.joined(separator: "\n")
    }

    /// The report as a person reads it in a terminal (``text``).
    public var description: String { text }

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

    private func traceLines() -> [String] {
        let chain = path.isEmpty ? (cycle ?? []) : path
        guard let first = chain.first else { return [] }
        var lines = ["┬───"]
        if let root = object(first.from)?.root {
            lines += ["│ GC root: \(root)", "│"]
        } else {
            lines += ["│ no root reaches it: the cycle below keeps it", "│"]
        }
        for reference in chain {
            lines.append("├─ \(describe(reference.from))")
            let head = "│    ↓ \(reference.kind.rawValue) · "
            lines.append(
                head + reference.description + reference.discoveryMark)
            if reference.isSuspect {
                lines.append(
                    "│" + String(repeating: " ", count: head.count - 1)
                        + String(repeating: "~", count: reference.description.count))
            }
        }
        let last = chain.last?.to ?? subject.id
        if verdict == .zombie {
            lines.append("╰→ \(describe(last))")
            lines.append("     Zombie: YES (fires into \(subject.typeName), which died)")
        } else if path.isEmpty {
            lines.append("╰→ back to \(describe(last))")
        } else {
            lines.append("╰→ \(describe(last))")
            let leaking =
                verdict == .transient ? "NOT YET (a one-shot timer will release it)" : "YES"
            lines.append("     Leaking: \(leaking) (\(reason))")
        }
        return lines
    }

    private func cycleLines() -> [String] {
        guard let cycle, let first = cycle.first else {
            if retention == .unexplained { return ["No strong path and no cycle recorded."] }
            return ["No cycle: held from a root."]
        }
        var lines = ["Cycle (\(cycle.count) reference\(cycle.count == 1 ? "" : "s")):"]
        for (index, reference) in cycle.enumerated() {
            let mark = index == 0 ? "┌─" : "│ "
            let suspect = reference.isSuspect ? "   ← suspect" : ""
            lines.append(
                "  \(mark) \(object(reference.from)?.typeName ?? reference.from) "
                    + "\(reference.arrow) \(reference.description)\(suspect)")
        }
        lines.append("  └→ \(object(first.from)?.typeName ?? first.from)")
        return lines
    }

    private func describe(_ id: String) -> String {
        guard let object = object(id) else { return id }
        var text = object.displayName
        if let timer = object.timer { text += " (\(timer.description))" }
        if object.isDeallocated { text += " (deallocated)" }
        return text
    }
}
