import ObjectGraph
import RetainGraphUtilities

extension UnreachableCycles {
    /// The groups as a person reads them: a headline, then per group its title (every type of
    /// its cycles), its counts, its sample cycle with each reference named, and the addresses of
    /// the sample's objects (for `--who-holds 0x…`).
    ///
    /// ```text
    /// UNREACHABLE CYCLES: 7 cycles of 2 shapes, 18 objects, 1.1 KiB (1.1 KiB retained); …
    ///
    /// 1. Order ⇒ Shipment ⇒ Invoice: 4 cycles, 12 objects, 768 B (768 B retained)
    ///      Invoice ─(.order)⇒ Order
    ///      Order ─(.shipment)⇒ Shipment
    ///      Shipment ─(.invoice)⇒ Invoice
    ///    e.g. 0x5583f1c2a0b0, 0x5583f1c2a130, 0x5583f1c2a1b0
    /// ```
    ///
    /// A reference read conservatively (a word equal to an object's address in memory whose
    /// layout is unknown) is drawn `⇢` and says so; a strong one `⇒`. With no cycle the text is
    /// one line: `No unreachable cycles (52133 objects read).`
    ///
    /// - Parameter groupLimit: The most groups shown, largest first (the rest are counted on
    ///   the headline); nil for every group.
    /// - Returns: The text, without a final newline.
    public func text(groupLimit: Int? = 5) -> String {
        guard !isEmpty else { return "No unreachable cycles (\(heapObjectCount) objects read)." }
        let shown = groupLimit.map { Array(groups.prefix(max($0, 1))) } ?? groups
        let bytes = groups.reduce(0) { $0 + $1.bytes }
        var headline =
            "UNREACHABLE CYCLES: \(Self.counted(cycleCount, "cycle")) of "
            + "\(Self.counted(groups.count, "shape")), \(Self.counted(objectCount, "object")), "
            + "\(ByteCount.description(bytes)) (\(ByteCount.description(retainedBytes)) retained)"
        if groups.count > shown.count {
            let hidden = groups.dropFirst(shown.count).reduce(0) { $0 + $1.cycleCount }
            headline +=
                " (\(Self.counted(groups.count - shown.count, "more shape")), "
                + "\(Self.counted(hidden, "cycle")): --all)"
        }
        headline +=
            "; \(heapObjectCount) objects read. Nothing reaches them and nothing outside the "
            + "heap holds them."
        var lines = [headline]
        for (number, group) in shown.enumerated() {
            lines.append("")
            lines += group.lines(number: number + 1)
            let addresses = (group.cycles.first?.addresses ?? []).map {
                "0x" + String($0, radix: 16)
            }
            if !addresses.isEmpty { lines.append("   e.g. " + addresses.joined(separator: ", ")) }
        }
        return lines.joined(separator: "\n")
    }

    /// A group's title from its sample's holder type names and every type of its cycles (see
    /// ``Group/title``): `Parent ⇄ Child` for two objects, `A ⇒ B ⇒ C` for a longer loop
    /// through all its types, `Node` for an object holding itself, and every type once joined
    /// by `⇄` for a cycle through more objects than its sample loop.
    package static func title(sample: [String], types: [String]) -> String {
        let names = sample.map(TypeNames.withoutModule)
        let all = types.map(TypeNames.withoutModule)
        guard Set(names).count == Set(all).count else { return all.joined(separator: " ⇄ ") }
        return names.count == 2 ? "\(names[0]) ⇄ \(names[1])" : names.joined(separator: " ⇒ ")
    }

    /// One reference of a sample cycle: `Parent ─(.child)⇒ Child`; a conservative one
    /// `Task ─(runs (conservative))⇢ Owner`.
    package static func stepText(
        holder: String, role: ReferenceRole, ownership: Ownership, next: String
    ) -> String {
        guard ownership == .conservative else {
            return "\(holder) ─(\(role.description))\(ownership.arrow) \(next)"
        }
        return "\(holder) ─(\(role.description) (conservative))⇢ \(next)"
    }

    /// `1 cycle`, `2 cycles`.
    package static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

extension UnreachableCycles.Group {
    /// The group's title line, then one line per reference of its sample cycle.
    ///
    /// - Parameter number: The group's number in its list.
    /// - Returns: The lines: `1. Parent ⇄ Child: 2 cycles, 4 objects, 160 B (160 B retained)`,
    ///   then `     Parent ─(.child)⇒ Child` and `     Child ─(.parent)⇒ Parent`.
    public func lines(number: Int) -> [String] {
        let names = sampleTypeNames.map(TypeNames.withoutModule)
        var lines = [
            "\(number). \(title): \(UnreachableCycles.counted(cycleCount, "cycle")), "
                + "\(UnreachableCycles.counted(objectCount, "object")), "
                + "\(ByteCount.description(bytes)) "
                + "(\(ByteCount.description(retainedBytes)) retained)"
        ]
        for (index, reference) in sample.enumerated() where !names.isEmpty {
            lines.append(
                "     "
                    + UnreachableCycles.stepText(
                        holder: names[index], role: reference.role,
                        ownership: reference.ownership, next: names[(index + 1) % names.count]))
        }
        return lines
    }
}
