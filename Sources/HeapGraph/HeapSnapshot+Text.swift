import Foundation
import ObjectGraph
import RetainGraphUtilities

extension HeapSnapshot {
    /// Two lines about the read: the target, its objects and bytes, how long it was stopped.
    ///
    /// ```text
    /// process 4242 (session-server): 52133 live Swift objects, 4.1 MB, 12 threads
    /// stopped 23 ms (48.2 MB copied), analysed in 0.41 s after it resumed
    /// ```
    public var summary: String {
        let stop = process.stopDuration.map { "stopped \($0.shortDescription)" } ?? "not stopped"
        let analysis = String(
            format: "%.2f", statistics.analysisSeconds)
        return """
            process \(process.processID) (\(process.command)): \(objectCount) live Swift objects, \
            \(ByteCount.description(totalBytes)), \(process.threads.count) thread\(process.threads.count == 1 ? "" : "s")
            \(stop) (\(ByteCount.description(statistics.copiedBytes)) copied), analysed in \
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
                    + Self.padded(ByteCount.description(type.bytes), 10)
                    + "  " + type.typeName)
        }
        if counts.count > limit { lines.append("   (\(counts.count - limit) more types)") }
        return lines.joined(separator: "\n")
    }

    /// Who holds the objects of type `typeName` (or the object at the address `typeName`
    /// spells, such as `0x7f3c2c001230`): the `limit` objects with the strongest and shortest
    /// paths (the path tree's priorities and lengths: the first objects by address can sit at
    /// the end of a list a million references long), each with its retention path, or the
    /// strong cycle that keeps one nothing holds; and how many were not shown.
    ///
    /// ```text
    /// WHO HOLDS App.Session: 20 live objects, 3 shown (the shortest paths), 17 not shown
    ///
    /// App.Session at 0x55d0c1f0a2b0
    ///   held by: a Task (the concurrency runtime holds it while it runs or sleeps)
    ///   ┬ Task at 0x7f3c2c001230
    ///   ╰→ captures Session ⇒ App.Session at 0x55d0c1f0a2b0
    /// ```
    ///
    /// - Complexity: O(*n*) for the path lengths (after the graph's one path search), then
    ///   the length of each path shown.
    public func whoHoldsText(_ typeName: String, limit: Int = 3) -> String {
        let targets: [HeapObjectID]
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
        let shown = closestToHolders(targets, limit: max(limit, 1))
        var header =
            "WHO HOLDS \(typeName): \(targets.count) live object\(targets.count == 1 ? "" : "s")"
        if targets.count > shown.count {
            header +=
                ", \(shown.count) shown (the shortest paths), "
                + "\(targets.count - shown.count) not shown"
        }
        var lines = [header]
        let tree = graph.paths()
        for target in shown {
            let object = self[target]
            lines.append("")
            lines.append("\(object.typeName) at 0x\(String(object.address, radix: 16))")
            if let path = retentionPath(to: target, in: tree) {
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

    /// The `limit` objects of `targets` whose paths are the strongest, then the shortest
    /// (objects no holder reaches last), ties in address order.
    ///
    /// - Complexity: O(*n*) for the path lengths, plus O(*k* log *k*) for *k* targets.
    public func closestToHolders(_ targets: [HeapObjectID], limit: Int) -> [HeapObjectID] {
        guard targets.count > 1 else { return Array(targets.prefix(max(limit, 0))) }
        let tree = graph.paths()
        return closestToHolders(targets, limit: limit, tree: tree, lengths: tree.pathLengths())
    }

    /// ``closestToHolders(_:limit:)`` with the path tree and its lengths at hand.
    func closestToHolders(
        _ targets: [HeapObjectID], limit: Int, tree: CompactGraph.PathTree, lengths: [UInt32]
    ) -> [HeapObjectID] {
        func rank(_ id: HeapObjectID) -> (UInt8, UInt32) {
            let node = CompactGraph.NodeID(id.rawValue)
            guard tree.isReachable(node) else { return (.max, .max) }
            return (tree.priority(of: node).rawValue, lengths[Int(node)])
        }
        let ranked = targets.enumerated().map { (rank($1), $0, $1) }
        return ranked.sorted { ($0.0.0, $0.0.1, $0.1) < ($1.0.0, $1.0.1, $1.1) }
            .prefix(max(limit, 0)).map(\.2)
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
