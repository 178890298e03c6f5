import ObjectGraph
import RetainGraphUtilities

/// What grew on a process's heap between two snapshots: the types with more live objects in
/// the later one, each with what holds its new objects.
///
/// The objects of a type that are "new" are those of the later snapshot whose address no
/// object of that type had in the earlier one. They are grouped by how they are held
/// (``HoldingGroup``): the growth's holders, not those of the one old instance nearest a root.
/// `PooledLease +30: 29 in unreachable cycles (.onDisconnect captures PooledLease), 1 held by
/// global variable App.pool` says where the 29 come from.
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
        /// A new object's retention path in the later snapshot, if one was found (the
        /// largest group's, when a holder reaches it).
        public var samplePath: RetentionPath? {
            for group in newHolders { if case .path(let path) = group.holding { return path } }
            return nil
        }
        /// How the new objects are held, grouped by the shape of what holds them, the largest
        /// group first: where the growth comes from, whichever instance is nearest a root.
        public let newHolders: [HoldingGroup]
        /// Another grown type whose new objects hold this one's (a session's new byte buffers
        /// name the session type), or nil when this type's growth is its own.
        public internal(set) var heldThrough: String?

        /// `after − before`.
        public var growth: Int { after - before }
    }

    /// The grown types: those whose growth is their own first, each part the most grown first
    /// (then by name).
    public let grown: [GrownType]
    /// The later snapshot, which the groups' objects belong to.
    public let later: HeapSnapshot
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
        self.later = later
        processID = later.process.processID
        let seconds = later.process.capturedAt.timeIntervalSince(earlier.process.capturedAt)
        interval = .milliseconds(Int64(max(0, seconds) * 1000))
        let before = Dictionary(
            earlier.countsByType().map { ($0.typeName, $0.count) }, uniquingKeysWith: +)
        var grown: [GrownType] = []
        var newObjects: [String: Set<HeapObjectID>] = [:]
        for type in later.countsByType() {
            let previous = before[type.typeName] ?? 0
            guard type.count - previous >= max(minimumGrowth, 1) else { continue }
            let old = Set(earlier.objects(ofType: type.typeName).map { earlier[$0].address })
            let new = later.objects(ofType: type.typeName).filter {
                !old.contains(later[$0].address)
            }
            newObjects[type.typeName] = Set(new)
            grown.append(
                GrownType(
                    typeName: type.typeName, before: previous, after: type.count,
                    newBytes: new.reduce(0) { $0 + later[$1].size },
                    newHolders: later.holdingGroups(of: new), heldThrough: nil))
        }
        // A type whose new objects hang from another grown type's new objects (the byte
        // buffers of new sessions) is a consequence: it names that type and comes after it.
        for index in grown.indices {
            guard let path = grown[index].samplePath else { continue }
            let name = grown[index].typeName
            grown[index].heldThrough = path.objects.dropLast().lazy.map(\.typeName).first {
                $0 != name
                    && newObjects[$0].map { new in
                        path.objects.contains { new.contains($0.id) }
                    } == true
            }
        }
        self.grown = grown.sorted {
            if ($0.heldThrough == nil) != ($1.heldThrough == nil) { return $0.heldThrough == nil }
            return $0.growth != $1.growth ? $0.growth > $1.growth : $0.typeName < $1.typeName
        }
    }

    /// The report for a person: one block per grown type, its growth and bytes, the path from
    /// its holder to a new object.
    ///
    /// ```text
    /// HEAP GROWTH: 1 type grew in 30 s (process 4242)
    ///
    /// SessionServer.Session: +20 (3 → 23), 1.9 KiB new
    ///   20 held by a Task (the concurrency runtime holds it while it runs or sleeps); e.g. …
    ///     ┬ Task at 0x7f…
    ///     ╰→ captures Session ⇒ SessionServer.Session at 0x7f…
    /// ```
    ///
    /// At most three groups of new objects are shown per type, the rest counted.
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
            if let owner = type.heldThrough {
                lines[lines.count - 1] += " (held through new \(owner) objects)"
            }
            for group in type.newHolders.prefix(3) {
                lines += group.lines(in: later).map { "  " + $0 }
            }
            let rest = type.newHolders.dropFirst(3)
            if !rest.isEmpty {
                let objects = rest.reduce(0) { $0 + $1.count }
                lines.append(
                    "  … and \(objects) more held \(rest.count) other way\(rest.count == 1 ? "" : "s")"
                )
            }
        }
        return lines.joined(separator: "\n")
    }
}
