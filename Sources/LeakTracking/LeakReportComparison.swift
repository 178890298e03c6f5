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

    /// Compares two sets of reports; each is deduplicated by fingerprint first.
    ///
    /// - Parameters:
    ///   - old: The baseline.
    ///   - new: The current run.
    /// - Complexity: O(*n* + *m*).
    public init(old: [LeakReport], new: [LeakReport]) {
        let oldReports = LeakReport.deduplicated(old)
        let newReports = LeakReport.deduplicated(new)
        let oldPrints = Set(oldReports.map(\.fingerprint))
        let newPrints = Set(newReports.map(\.fingerprint))
        self.new = newReports.filter { !oldPrints.contains($0.fingerprint) }
        self.fixed = oldReports.filter { !newPrints.contains($0.fingerprint) }
        self.stillLeaking = newReports.filter { oldPrints.contains($0.fingerprint) }
    }

    /// Whether the new set has a fingerprint the old one lacks.
    public var hasNewLeaks: Bool { !new.isEmpty }

    /// The comparison as text: three sections, one line per fingerprint with its verdict,
    /// type and summary.
    public var text: String {
        var lines: [String] = []
        for (title, reports) in [("new", new), ("fixed", fixed), ("still leaking", stillLeaking)] {
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
