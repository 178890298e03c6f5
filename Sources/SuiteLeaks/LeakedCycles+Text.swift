import HeapCensus
import LeakTracking
import RetainGraphUtilities

extension LeakedCycles {
    /// The groups as a person reads them: a headline, then per group every type of its cycles,
    /// its counts, its sample cycle with each reference named and the line that made each
    /// holder, and where its objects were made.
    ///
    /// ```text
    /// RetainGraph: 2 leaked reference cycles at exit, 1 shape (4 objects, 160 B retained); …
    ///
    /// 1. Parent ⇄ Child: 2 cycles, 4 objects, 160 B (160 B retained)   fingerprint 3f2a…
    ///      Parent ─(.child)⇒ Child   made at LoginTests.swift:14
    ///      Child ─(.parent)⇒ Parent   made at LoginTests.swift:14
    ///    created at: LoginTests.swift:14 (2 Parent, 2 Child)
    /// ```
    ///
    /// A reference read conservatively (a word equal to an object's address in memory whose
    /// layout is unknown) is drawn `⇢` and says so; a strong one `⇒`.
    public var text: String { text(allowing: []) }

    /// The groups as ``text`` shows them, except those a pattern accepts (a library's leaks):
    /// one line each at the end, under their own heading, so that your own leaks come first.
    ///
    /// - Parameters:
    ///   - patterns: Type patterns of accepted leaks
    ///     (``/LeakTracking/TypePattern/matches(_:)-(LeakReport)``).
    ///   - stacks: Whether to print, under each group, the whole creation stack of each of its
    ///     sites (`RETAINGRAPH_LEAKS_STACKS=1` at exit).
    /// - Returns: The text.
    public func text(allowing patterns: [TypePattern], stacks: Bool = false) -> String {
        let counted = UnreachableCycles.counted
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
                + counted(cycleCount, "allowed one")
        } else {
            headline =
                "RetainGraph: \(counted(shownCycles, "leaked reference cycle")) at exit, "
                + "\(counted(shown.count, "shape")) "
                + "(\(counted(shown.reduce(0) { $0 + $1.objectCount }, "object")), "
                + "\(ByteCount.description(shown.reduce(0) { $0 + $1.retainedBytes })) retained)"
            if !accepted.isEmpty {
                headline +=
                    ", and \(counted(cycleCount - shownCycles, "cycle")) allowed"
            }
        }
        headline += "; \(heapObjectCount) objects read."
        if !shown.isEmpty {
            headline += " Nothing reaches them and nothing outside the heap holds them."
        }
        var lines = [headline]
        for (number, group) in shown.enumerated() {
            lines.append("")
            lines += group.textLines(number: number + 1, stacks: stacks)
        }
        if !accepted.isEmpty {
            let cycles = accepted.reduce(0) { $0 + $1.cycleCount }
            let bytes = accepted.reduce(0) { $0 + $1.retainedBytes }
            lines.append("")
            lines.append(
                "Allowed by type pattern (\(patterns.map(\.pattern).joined(separator: ", "))): "
                    + "\(counted(accepted.count, "shape")), "
                    + "\(counted(cycles, "cycle")), \(ByteCount.description(bytes)) retained"
            )
            for group in accepted.prefix(5) {
                lines.append(
                    "   \(group.shapeText): \(counted(group.cycleCount, "cycle")), "
                        + "\(ByteCount.description(group.retainedBytes)) retained   \(group.fingerprint)"
                )
            }
            if accepted.count > 5 { lines.append("   … and \(accepted.count - 5) more shapes") }
        }
        return lines.joined(separator: "\n")
    }
}

extension CycleGroup {
    /// The group's title: every type of its cycles without their modules. A cycle of two
    /// objects reads `Parent ⇄ Child`, a longer loop through all its types `A ⇒ B ⇒ C`, an
    /// object holding itself `Node`; a cycle through more objects than its sample loop names
    /// every type once: `ChannelHandlerContext ⇄ ChannelPipeline ⇄ EmbeddedChannel`.
    var shapeText: String { UnreachableCycles.title(sample: shape, types: types) }

    /// The group's lines in ``LeakedCycles/text``.
    func textLines(number: Int, stacks: Bool = false) -> [String] {
        let counted = UnreachableCycles.counted
        let names = sample.map { TypeNames.withoutModule($0.typeName) }
        var lines = [
            "\(number). \(shapeText): \(counted(cycleCount, "cycle")), "
                + "\(counted(objectCount, "object")), \(ByteCount.description(bytes)) "
                + "(\(ByteCount.description(retainedBytes)) retained)   fingerprint \(fingerprint)"
        ]
        for (index, step) in sample.enumerated() {
            var line =
                "     "
                + UnreachableCycles.stepText(
                    holder: names[index], role: step.role, ownership: step.ownership,
                    next: names[(index + 1) % names.count])
            if let madeAt = step.madeAt {
                line += "   made at \(SiteLocator.location(of: madeAt))"
            }
            lines.append(line)
        }
        let places = self.places
        if !places.isEmpty {
            let shown = places.prefix(4).map { "\($0.location) (\($0.objects))" }
            let more = places.count > 4 ? ", and \(places.count - 4) more sites" : ""
            lines.append("   created at: " + shown.joined(separator: ", ") + more)
        }
        if stacks {
            for count in report.creationSites ?? CreationSiteCount.counts(of: sites) {
                lines.append(
                    "   \(count.count) \(TypeNames.withoutModule(count.typeName)) made at "
                        + "\(count.location):")
                lines += count.frames.enumerated().map { "     #\($0.offset)  \($0.element)" }
            }
        }
        return lines
    }
}
