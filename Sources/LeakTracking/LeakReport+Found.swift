import RetainGraph

extension LeakReport {
    /// A report on an object found leaked without a watch: by an analysis of a whole heap
    /// (SuiteLeaks' at-exit check of strong cycles nothing can reach), not by an expectation
    /// of death.
    ///
    /// The report is built exactly as a watcher's is (``ReportBuilder``, the hints, the
    /// fingerprint of ``/RetainGraph/GraphSnapshot/fingerprint(of:path:cycle:)``), so that
    /// `retain-graph compare`, known leaks and GitHub annotations treat both alike. Its grace
    /// period and time past the deadline are 0.
    ///
    /// - Parameters:
    ///   - subject: The leaked object's node in `snapshot`.
    ///   - snapshot: A graph holding what keeps the subject (its cycle, for instance).
    ///   - reason: Why it should have died, as a report says it.
    ///   - reportedAt: When the report is made, in seconds since 1970.
    /// - Returns: A ``Verdict/leak`` report.
    /// - Complexity: O(*n* + *r*) for the snapshot's analysis.
    package static func found(
        _ subject: ObjectID, in snapshot: GraphSnapshot, reason: String, reportedAt: Double?
    ) -> LeakReport {
        let node = snapshot.node(subject)
        return retained(
            subject,
            subject: ReportSubject(
                typeName: node?.typeName ?? "?", label: node?.label, address: node?.address,
                reason: reason, graceSeconds: 0, secondsPastDeadline: 0, reportedAt: reportedAt),
            analysis: RetentionAnalysis(snapshot), verdict: .leak)
    }
}
