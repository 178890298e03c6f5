import Foundation
import ObjectGraph
import RetainGraphUtilities

extension HeapSnapshot {
    /// Two lines about the read: the target, its objects and bytes, how long it was stopped
    /// (or, for memory read while it was not stopped, such as a core file, what was read).
    ///
    /// ```text
    /// process 4242 (session-server): 52133 live Swift objects, 4.1 MiB, 12 threads
    /// stopped 23 ms (48.2 MiB copied), analysed in 0.41 s after it resumed
    /// ```
    public var summary: String {
        let analysis = String(format: "%.2f", statistics.analysisSeconds)
        let copied = ByteCount.description(statistics.copiedBytes)
        let read =
            process.stopDuration.map {
                "stopped \($0.shortDescription) (\(copied) copied), analysed in \(analysis) s "
                    + "after it resumed"
            } ?? "\(copied) of its memory read, analysed in \(analysis) s"
        let threads = "\(process.threads.count) thread\(process.threads.count == 1 ? "" : "s")"
        return """
            process \(process.processID) (\(process.command)): \(objectCount) live Swift objects, \
            \(ByteCount.description(totalBytes)), \(threads)
            \(read)
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
    /// spells, such as `0x7f3c2c001230`), grouped by how they are held (``holdingGroups(of:)``):
    /// each group's count, what holds it, and the path (or the unreachable cycle) of one of its
    /// objects, the largest group first. Healthy objects held one way never hide the few held
    /// another way: those are a group of their own.
    ///
    /// ```text
    /// WHO HOLDS App.Watcher: 100 live objects, held 2 ways
    ///
    /// 97 held by global variable App.registry : [App.Watcher]; e.g. App.Watcher at 0x55d0…
    ///   ┬ [Watcher] storage at 0x55d0…
    ///   ╰→ element of [Watcher] ⇒ App.Watcher at 0x55d0…
    ///
    /// 3 in unreachable cycles (.onChange (a closure capturing Watcher) ⇒ Watcher); e.g. …
    /// ```
    ///
    /// - Parameters:
    ///   - typeName: A type name as the snapshot spells it, or an address in hexadecimal.
    ///   - groupLimit: The most groups shown (the rest are counted); nil for every group.
    /// - Complexity: O(*n* + *r*) for the graph's one path search, then about O(1) per object.
    public func whoHoldsText(_ typeName: String, groupLimit: Int? = 5) -> String {
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
        let groups = holdingGroups(of: targets)
        let shown = groupLimit.map { Array(groups.prefix(max($0, 1))) } ?? groups
        var header =
            "WHO HOLDS \(typeName): \(targets.count) live object\(targets.count == 1 ? "" : "s")"
            + ", held \(groups.count) way\(groups.count == 1 ? "" : "s")"
        if groups.count > shown.count {
            let hidden = groups.dropFirst(shown.count).reduce(0) { $0 + $1.count }
            header += " (\(groups.count - shown.count) more ways, \(hidden) objects: --all)"
        }
        var lines = [header]
        for group in shown {
            lines.append("")
            lines += group.lines(in: self)
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
