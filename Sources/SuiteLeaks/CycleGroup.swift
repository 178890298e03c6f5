import HeapCensus
import LeakTracking
import ObjectGraph
import RetainGraphUtilities
import StackTraces

/// Leaked cycles of one shape made at the same lines: the same types around the cycle, held by
/// the same references, their objects made where the same lines of code asked for them.
///
/// Two lines that forget to close the same kind of object are two groups. Its ``fingerprint``
/// names the shape by type names and reference roles, and the places that made it by file and
/// function (never a line number or an address), so the same bug has the same fingerprint in
/// every run and test order, and moving code within its function keeps it; it is the
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
        /// The line that made the holder: the first frame of its creation stack outside the
        /// modules of the group's types, the runtime and the test frameworks (nil when the
        /// census did not record it, and for groups a type pattern accepts).
        public let madeAt: StackFrame?
    }

    /// Where objects of the group were made, and how many.
    public struct Site: Hashable, Sendable {
        /// The type of the objects made there.
        public let typeName: String
        /// The census's creation site: the whole creation stack.
        public let site: CreationSite
        /// How many of the group's objects were made there.
        public let count: Int
        /// The line that made them (see ``Step/madeAt``).
        public let madeAt: StackFrame?

        /// `File.swift:42` of ``madeAt``, else the site's own description.
        public var location: String { madeAt.map(SiteLocator.location(of:)) ?? "?" }
    }

    /// One object of a cycle: its type and where it was made.
    struct Member: Hashable, Sendable {
        var typeName: String
        var site: CreationSite?
        var madeAt: StackFrame?
    }

    /// One leaked cycle (a strongly connected component) of the group.
    struct Cycle: Hashable, Sendable {
        /// Its objects' addresses, ascending: the same cycle found twice has the same ones.
        var addresses: [UInt]
        var bytes: Int
        var retainedBytes: UInt64
        /// Its objects' types and sites.
        var members: [Member]
    }

    /// The sixteen hexadecimal digits naming the shape and where it was made (the ``report``'s
    /// fingerprint).
    public let fingerprint: String
    /// One cycle of the group, in its canonical rotation (it starts at the reference whose
    /// holder type and role sort first): each step's holder holds the next step's.
    public let sample: [Step]
    /// Every type of the group's cycles, each once: the sample's first, in its order, then the
    /// others (a cycle through more objects than its shortest loop) by name.
    public let types: [String]
    /// The group as a leak report (one report for the whole group: its occurrences are the
    /// cycles, its notes the counts and bytes, its ``/LeakTracking/LeakReport/creationSites``
    /// every site with its count).
    public let report: LeakReport
    /// Where the group's objects were made: one entry per type and creation stack, most objects
    /// first.
    public let sites: [Site]
    /// Every cycle of the group.
    let cycles: [Cycle]

    init(fingerprint: String, sample: [Step], types: [String], report: LeakReport, cycles: [Cycle])
    {
        self.fingerprint = fingerprint
        self.sample = sample
        self.types = types
        self.report = report
        self.cycles = cycles
        sites = Self.sites(of: cycles)
    }

    /// The type names around the sample cycle, in its order.
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
            fingerprint: fingerprint, sample: sample, types: types,
            report: Self.counted(report, cycles: kept), cycles: kept)
    }

    /// The sites of `cycles`' objects, by type and stack, most objects first (then by line,
    /// type and stack, so the order is the same every run).
    static func sites(of cycles: [Cycle]) -> [Site] {
        var counts: [Member: Int] = [:]
        for cycle in cycles {
            for member in cycle.members where member.site != nil { counts[member, default: 0] += 1 }
        }
        let sites = counts.compactMap { member, count in
            member.site.map {
                Site(typeName: member.typeName, site: $0, count: count, madeAt: member.madeAt)
            }
        }
        return sites.sorted { left, right in
            if left.count != right.count { return left.count > right.count }
            if left.location != right.location { return left.location < right.location }
            if left.typeName != right.typeName { return left.typeName < right.typeName }
            return left.site.returnAddresses.lexicographicallyPrecedes(right.site.returnAddresses)
        }
    }

    /// `report` with its occurrences, notes and creation sites for `cycles`.
    static func counted(_ report: LeakReport, cycles: [Cycle]) -> LeakReport {
        var report = report
        let objects = cycles.reduce(0) { $0 + $1.addresses.count }
        let bytes = cycles.reduce(0) { $0 + $1.bytes }
        let retained = cycles.reduce(0) { $0 + $1.retainedBytes }
        report.occurrences = cycles.count
        report.notes.removeAll { $0.hasPrefix(Self.notePrefix) }
        report.notes.insert(
            "\(Self.notePrefix)\(cycles.count) cycle\(cycles.count == 1 ? "" : "s") of this "
                + "shape, \(objects) objects, \(ByteCount.description(bytes)) "
                + "(\(ByteCount.description(retained)) retained), that nothing reaches and nothing "
                + "outside the heap holds",
            at: 0)
        if report.creationSites != nil {
            report.creationSites = CreationSiteCount.counts(of: sites(of: cycles))
        }
        return report
    }

    /// How the note on counts and bytes starts.
    static let notePrefix = "Leaked at exit: "
}
