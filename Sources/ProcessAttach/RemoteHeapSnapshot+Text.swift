extension RemoteHeapSnapshot {
    /// Two lines about the read: the target, its objects and bytes, how long it was stopped.
    ///
    /// ```text
    /// process 4242 (session-server): 52133 live Swift objects, 4.1 MB, 12 threads
    /// stopped 23 ms (48.2 MB copied), analysed in 0.41 s after it resumed
    /// ```
    public var summary: String {
        let stop = stopDuration.map { "stopped \($0.attachDescription)" } ?? "stop time unknown"
        let analysis = String(
            format: "%.2f", statistics.analysisSeconds)
        return """
            process \(processID) (\(command)): \(objectCount) live Swift objects, \
            \(ByteCount.text(totalBytes)), \(threads.count) thread\(threads.count == 1 ? "" : "s")
            \(stop) (\(ByteCount.text(statistics.copiedBytes)) copied), analysed in \
            \(analysis) s after it resumed
            """
    }

    /// The `limit` most numerous types, with their counts and bytes, as a table.
    public func topText(limit: Int = 20) -> String {
        let counts = countsByType()
        var lines = ["   count       bytes  type"]
        for type in counts.prefix(max(limit, 0)) {
            lines.append(
                Self.padded(String(type.count), 8) + "  "
                    + Self.padded(ByteCount.text(type.bytes), 10)
                    + "  " + type.typeName)
        }
        if counts.count > limit { lines.append("   (\(counts.count - limit) more types)") }
        return lines.joined(separator: "\n")
    }

    /// Who holds the objects of type `typeName` (or the object at the address `typeName`
    /// spells, such as `0x7f3c2c001230`): for up to `limit` of them, the retention path, or
    /// the strong cycle that keeps one nothing holds.
    public func whoHoldsText(_ typeName: String, limit: Int = 3) -> String {
        let targets: [RemoteObjectID]
        if typeName.hasPrefix("0x"), let address = UInt(typeName.dropFirst(2), radix: 16) {
            targets = object(containing: address).map { [$0] } ?? []
        } else {
            targets = objects(ofType: typeName)
        }
        guard !targets.isEmpty else {
            let near = countsByType().map(\.typeName).filter {
                $0.hasSuffix("." + typeName) || $0.contains(typeName)
            }.prefix(5)
            let hint = near.isEmpty ? "" : "; did you mean \(near.joined(separator: ", "))?"
            return "WHO HOLDS \(typeName): no live object\(hint)"
        }
        var lines = [
            "WHO HOLDS \(typeName): \(targets.count) live object\(targets.count == 1 ? "" : "s")"
                + (targets.count > limit ? ", \(limit) shown" : "")
        ]
        for target in targets.prefix(max(limit, 1)) {
            let object = self[target]
            lines.append("")
            lines.append("\(object.typeName) at 0x\(String(object.address, radix: 16))")
            if let path = retentionPath(to: target) {
                lines += path.lines().map { "  " + $0 }
            } else if let cycle = strongCycle(through: target) {
                lines.append("  held by: nothing but a strong cycle (a leak no root explains)")
                for (index, reference) in cycle.enumerated() {
                    let holder = self[reference.from].typeName
                    lines.append("  \(index == 0 ? "┌─" : "│ ") \(holder) ⇒ \(reference.label)")
                }
                lines.append("  └→ \(object.typeName)")
            } else {
                lines.append("  held by: nothing found (only weak references, or dying)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The object whose block contains `address`.
    ///
    /// - Complexity: O(1) when `address` is an object's start, O(*n*) otherwise.
    public func object(containing address: UInt) -> RemoteObjectID? {
        if let exact = object(at: address) { return exact }
        for index in addresses.indices
        where address >= addresses[index] && address < addresses[index] + UInt(sizes[index]) {
            return RemoteObjectID(rawValue: Int32(index))
        }
        return nil
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
