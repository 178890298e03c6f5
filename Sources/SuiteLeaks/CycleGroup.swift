import HeapCensus
import LeakTracking
import ObjectGraph
import RetainGraphUtilities

/// Leaked cycles of one shape: the same types around the cycle, held by the same references.
///
/// Its ``fingerprint`` names the shape by type names and reference roles only (never an
/// address), so the same bug has the same fingerprint in every run and test order; it is the
/// fingerprint of its ``report``, which `retain-graph compare` matches against a baseline.
public struct CycleGroup: Hashable, Sendable {
    /// One reference of the sample cycle: its holder, and how and why it holds the next one.
    public struct Step: Hashable, Sendable {
        /// The holder's type name, such as `MyApp.Parent` or `closure context (captures Parent)`.
        public let typeName: String
        /// The holder's address in the run that found it, for display.
        public let address: UInt
        /// The holder's size in bytes.
        public let size: Int
        /// How the holder holds the next object of the cycle (strong, or read conservatively).
        public let ownership: Ownership
        /// Why: a stored property, a capture, an element (``/ObjectGraph/ReferenceRole``).
        public let role: ReferenceRole
        /// Where the holder was made, if the census recorded it.
        public let creationSite: CreationSite?
    }

    /// Where objects of the group were made, and how many.
    public struct Site: Hashable, Sendable {
        /// The type of the objects made there.
        public let typeName: String
        /// The census's creation site (``/HeapCensus/CreationSite/userFrame()`` names the line).
        public let site: CreationSite
        /// How many of the group's objects were made there.
        public let count: Int
    }

    /// One leaked cycle (a strongly connected component) of the group.
    struct Cycle: Hashable, Sendable {
        /// Its objects' addresses, ascending: the same cycle found twice has the same ones.
        var addresses: [UInt]
        var bytes: Int
        var retainedBytes: UInt64
    }

    /// The sixteen hexadecimal digits naming the shape (the ``report``'s fingerprint).
    public let fingerprint: String
    /// One cycle of the group, in its canonical rotation (it starts at the reference whose
    /// holder type and role sort first): each step's holder holds the next step's.
    public let sample: [Step]
    /// Where the group's objects were made, most objects first.
    public let sites: [Site]
    /// The group as a leak report (one report for the whole group: its occurrences are the
    /// cycles, its notes the counts and bytes).
    public let report: LeakReport
    /// Every cycle of the group.
    let cycles: [Cycle]

    /// The type names around the cycle, in the sample's order.
    public var shape: [String] { sample.map(\.typeName) }

    /// How many cycles of this shape leaked.
    public var cycleCount: Int { cycles.count }

    /// How many objects those cycles hold together.
    public var objectCount: Int { cycles.reduce(0) { $0 + $1.addresses.count } }

    /// The bytes of the cycles' own objects.
    public var bytes: Int { cycles.reduce(0) { $0 + $1.bytes } }

    /// The bytes the cycles keep alive: their objects and every object only they hold
    /// (``/ObjectGraph/CompactGraph/dominatorTree()`` over the leaked part of the heap).
    public var retainedBytes: UInt64 { cycles.reduce(0) { $0 + $1.retainedBytes } }

    /// The group with only the cycles `keep` accepts; nil when none is left.
    func keeping(_ keep: ([UInt]) -> Bool) -> CycleGroup? {
        let kept = cycles.filter { keep($0.addresses) }
        guard !kept.isEmpty else { return nil }
        return CycleGroup(
            fingerprint: fingerprint, sample: sample, sites: sites,
            report: Self.counted(report, cycles: kept), cycles: kept)
    }

    /// `report` with its occurrences and notes for `cycles`.
    static func counted(_ report: LeakReport, cycles: [Cycle]) -> LeakReport {
        var report = report
        let objects = cycles.reduce(0) { $0 + $1.addresses.count }
        let bytes = cycles.reduce(0) { $0 + $1.bytes }
        let retained = cycles.reduce(0) { $0 + $1.retainedBytes }
        report.occurrences = cycles.count
        report.notes.removeAll { $0.hasPrefix(Self.notePrefix) }
        report.notes.insert(
            "\(Self.notePrefix)\(cycles.count) cycle\(cycles.count == 1 ? "" : "s") of this "
                + "shape, \(objects) objects, \(ByteCount.description(bytes)) (\(ByteCount.description(retained)) "
                + "retained), that nothing reaches and nothing outside the heap holds",
            at: 0)
        return report
    }

    /// How the note on counts and bytes starts.
    static let notePrefix = "Leaked at exit: "
}
