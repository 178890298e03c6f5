import ObjectGraph
import RetainGraphUtilities

/// What grew on a process's heap between two snapshots: the types with more live objects in
/// the later one, each with a new object's retention path.
///
/// The objects of a type that are "new" are those of the later snapshot whose address no
/// object of that type had in the earlier one; the sample is the new one whose path is the
/// strongest, then the shortest (the path finder's priorities: a named holder first), so the
/// path shows what keeps the growth.
///
/// ```swift
/// let before = try HeapSnapshot.capture(processID: pid)
/// // … the target serves 100 requests …
/// let after = try HeapSnapshot.capture(processID: pid)
/// let growth = HeapComparison(from: before, to: after)
/// print(growth.text)   // SessionServer.Session: +100 (0 → 100) …
/// ```
public struct HeapComparison: Sendable {
    /// One type that grew.
    public struct GrownType: Sendable {
        /// The type's name.
        public let typeName: String
        /// Live objects in the earlier snapshot.
        public let before: Int
        /// Live objects in the later snapshot.
        public let after: Int
        /// Bytes of the later snapshot's objects of the type that are new.
        public let newBytes: Int
        /// A new object's retention path in the later snapshot, if one was found.
        public let samplePath: RetentionPath?

        /// `after − before`.
        public var growth: Int { after - before }
    }

    /// The grown types, the most grown first (then by name).
    public let grown: [GrownType]
    /// The time between the two snapshots.
    public let interval: Duration
    /// The target.
    public let processID: Int32

    /// Compares two snapshots of one process.
    ///
    /// - Parameters:
    ///   - earlier: The first snapshot.
    ///   - later: The second.
    ///   - minimumGrowth: Types that grew by less are left out (at least 1).
    /// - Complexity: O(*n*) for *n* objects (one path search and one pass for the path
    ///   lengths of the later snapshot), plus O(*k* log *k*) for the *k* new objects of each
    ///   grown type.
    public init(
        from earlier: HeapSnapshot, to later: HeapSnapshot, minimumGrowth: Int = 1
    ) {
        processID = later.process.processID
        let seconds = later.process.capturedAt.timeIntervalSince(earlier.process.capturedAt)
        interval = .milliseconds(Int64(max(0, seconds) * 1000))
        let before = Dictionary(
            earlier.countsByType().map { ($0.typeName, $0.count) }, uniquingKeysWith: +)
        var grown: [GrownType] = []
        var paths: (tree: CompactGraph.PathTree, lengths: [UInt32])?
        for type in later.countsByType() {
            let previous = before[type.typeName] ?? 0
            guard type.count - previous >= max(minimumGrowth, 1) else { continue }
            let old = Set(earlier.objects(ofType: type.typeName).map { earlier[$0].address })
            let new = later.objects(ofType: type.typeName).filter {
                !old.contains(later[$0].address)
            }
            if paths == nil {
                let tree = later.graph.paths()
                paths = (tree, tree.pathLengths())
            }
            let sample = paths.flatMap { paths in
                later.closestToHolders(new, limit: 1, tree: paths.tree, lengths: paths.lengths)
                    .first.flatMap { later.retentionPath(to: $0, in: paths.tree) }
            }
            grown.append(
                GrownType(
                    typeName: type.typeName, before: previous, after: type.count,
                    newBytes: new.reduce(0) { $0 + later[$1].size }, samplePath: sample))
        }
        self.grown = grown.sorted {
            $0.growth != $1.growth ? $0.growth > $1.growth : $0.typeName < $1.typeName
        }
    }

    /// The report for a person: one block per grown type, its growth and bytes, the path from
    /// its holder to a new object.
    ///
    /// ```text
    /// HEAP GROWTH: 1 type grew in 30 s (process 4242)
    ///
    /// SessionServer.Session: +20 (3 → 23), 1.9 KB new
    ///   held by: a Task (the concurrency runtime holds it while it runs or sleeps)
    ///   ┬ Task at 0x7f…
    ///   ╰→ captures Session ⇒ SessionServer.Session at 0x7f…
    /// ```
    public var text: String {
        let span = interval.shortDescription
        guard !grown.isEmpty else {
            return "HEAP GROWTH: no type grew in \(span) (process \(processID))"
        }
        var lines = [
            "HEAP GROWTH: \(grown.count) type\(grown.count == 1 ? "" : "s") grew in \(span) "
                + "(process \(processID))"
        ]
        for type in grown {
            lines.append("")
            lines.append(
                "\(type.typeName): +\(type.growth) (\(type.before) → \(type.after)), "
                    + "\(ByteCount.description(type.newBytes)) new")
            if let path = type.samplePath {
                lines += path.lines().map { "  " + $0 }
            } else {
                lines.append("  no path found from a holder")
            }
        }
        return lines.joined(separator: "\n")
    }
}
