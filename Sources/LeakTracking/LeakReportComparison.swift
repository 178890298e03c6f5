/// Two sets of reports compared by fingerprint: what is new, what was fixed, what remains.
///
/// The `retain-graph compare` command prints this and exits non-zero when ``hasNewLeaks``, so
/// CI can fail a change that introduces a leak while tolerating the ones already known.
///
/// ```swift
/// let old = try LeakReportCollection.read(contentsOf: "baseline/").reports
/// let new = try LeakReportCollection.read(contentsOf: "leaks/").reports
/// let comparison = LeakReportComparison(old: old, new: new)
/// print(comparison.text)
/// ```
public struct LeakReportComparison: Sendable, Hashable {
    /// Reports whose fingerprint appears only in the new set.
    public let new: [LeakReport]
    /// Reports whose fingerprint appears only in the old set.
    public let fixed: [LeakReport]
    /// Reports of the new set whose fingerprint the old set has too.
    public let stillLeaking: [LeakReport]
    /// Reports of the new set, not in the old one, that a type pattern accepts (leaks of a
    /// library you do not own): neither new nor a reason to fail.
    public let allowed: [LeakReport]

    /// Compares two sets of reports; each is deduplicated by fingerprint first.
    ///
    /// - Parameters:
    ///   - old: The baseline.
    ///   - new: The current run.
    ///   - allowing: Type patterns of leaks to accept (``TypePattern/matches(_:)-(LeakReport)``):
    ///     a report of the new set that one matches is ``allowed``, not ``new``.
    /// - Complexity: O(*n* + *m*), plus the patterns' matching.
    public init(old: [LeakReport], new: [LeakReport], allowing: [TypePattern] = []) {
        let oldReports = LeakReport.deduplicated(old)
        let newReports = LeakReport.deduplicated(new)
        let oldPrints = Set(oldReports.map(\.fingerprint))
        let newPrints = Set(newReports.map(\.fingerprint))
        let unknown = newReports.filter { !oldPrints.contains($0.fingerprint) }
        let isAllowed = { (report: LeakReport) in allowing.contains { $0.matches(report) } }
        self.new = unknown.filter { !isAllowed($0) }
        self.allowed = unknown.filter(isAllowed)
        self.fixed = oldReports.filter { !newPrints.contains($0.fingerprint) }
        self.stillLeaking = newReports.filter { oldPrints.contains($0.fingerprint) }
    }

    /// Whether the new set has a fingerprint the old one lacks.
    public var hasNewLeaks: Bool { !new.isEmpty }

    /// The comparison as text: three sections (a fourth for ``allowed`` reports, when there
    /// are some), one line per fingerprint with its verdict, type and summary.
    public var text: String {
        var lines: [String] = []
        var sections = [("new", new), ("fixed", fixed), ("still leaking", stillLeaking)]
        if !allowed.isEmpty { sections.append(("allowed by type pattern", allowed)) }
        for (title, reports) in sections {
            lines.append("\(title) (\(reports.count)):")
            for report in reports {
                lines.append(
                    "  \(report.fingerprint)  \(report.verdict.rawValue)  "
                        + "\(report.subject.typeName)  \(report.summary)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
