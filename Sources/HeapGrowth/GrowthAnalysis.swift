import HeapCensus
import RetainGraphReports

/// Comparing census snapshots by type.
enum GrowthAnalysis {
    /// Live counts by type name.
    static func counts(_ pairs: [(typeName: String, count: Int)]) -> [String: Int] {
        Dictionary(pairs.map { ($0.typeName, $0.count) }, uniquingKeysWith: +)
    }

    static func counts(_ snapshot: HeapSnapshot) -> [String: Int] {
        counts(snapshot.countsByType())
    }
    static func counts(_ census: HeapCounts) -> [String: Int] { counts(census.countsByType()) }

    /// The types that grew by at least half of `threshold` between two counts.
    static func grown(from before: HeapCounts, to after: HeapCounts, threshold: Int)
        -> [String]
    {
        let old = counts(before)
        let minimum = (threshold + 1) / 2
        return counts(after).filter { $0.value - (old[$0.key] ?? 0) >= minimum }.map(\.key)
            .sorted()
    }

    /// How much two rounds' growth may differ for a leak: a leak grows by the same number of
    /// instances per repetition in both rounds; objects other threads allocate meanwhile do
    /// not. A tenth of the repetitions, at least 1.
    static func tolerance(_ repetitions: Int) -> Int { max(1, repetitions / 10) }

    /// The report: the candidates that grew in the second round too, by as much, with a sample
    /// each.
    static func report(
        snapshots: (start: HeapCounts, middle: HeapCounts, end: HeapSnapshot),
        repetitions: Int, candidates: [String]
    ) -> GrowthReport {
        let start = counts(snapshots.start)
        let middle = counts(snapshots.middle)
        let end = counts(snapshots.end)
        let minimum = (repetitions + 1) / 2
        var grown: [GrownType] = []
        for type in candidates {
            let first = (middle[type] ?? 0) - (start[type] ?? 0)
            let second = (end[type] ?? 0) - (middle[type] ?? 0)
            guard first >= minimum, second >= minimum,
                abs(first - second) <= tolerance(repetitions)
            else { continue }
            grown.append(
                describe(
                    type, growth: [first, second], repetitions: repetitions,
                    before: snapshots.middle, after: snapshots.end))
        }
        grown.sort { $0.growth.reduce(0, +) > $1.growth.reduce(0, +) }
        return GrowthReport(
            repetitions: repetitions, threshold: minimum, grown: grown,
            liveObjects: snapshots.end.objectCount)
    }

    /// A grown type: its instances new in the second round, their bytes, and a sample's path.
    private static func describe(
        _ type: String, growth: [Int], repetitions: Int, before: HeapCounts,
        after: HeapSnapshot
    ) -> GrownType {
        let old = before.addresses(ofType: type)
        let new = after.objects(ofType: type).filter { !old.contains(after[$0].address) }
        let bytes = new.reduce(0) { $0 + after.size(of: $1) }
        // The sample: the most common way the new instances are held (the same sequence of
        // holder and types), so that an instance a request still had in hand, or a stale word
        // in a task's memory, does not stand for the rest; the shortest path of that kind.
        var byShape: [[String]: [RetentionPath]] = [:]
        for id in new.prefix(16) {
            guard let path = after.retentionPath(to: id) else { continue }
            let shape = [path.holder.description] + path.objects.map(\.typeName)
            byShape[shape, default: []].append(path)
        }
        let sample = byShape.values.max { lhs, rhs in
            lhs.count != rhs.count
                ? lhs.count < rhs.count
                : (lhs.first?.objects.count ?? 0) > (rhs.first?.objects.count ?? 0)
        }?.min { $0.objects.count < $1.objects.count }
        let trace = new.lazy.compactMap { after.creationTrace(of: $0) }.first
        return GrownType(
            typeName: type, growth: growth,
            perRepetition: Double(growth.reduce(0, +)) / Double(2 * repetitions),
            newInstanceBytes: bytes,
            holder: sample?.holder.description,
            path: sample.map { path in
                zip(path.objects, [nil] + path.references.map(\.label)).map {
                    GrowthPathStep(typeName: $0.typeName, label: $1, address: $0.address)
                }
            } ?? [],
            creationTrace: trace?.frames(excludingModules: ["HeapCensus", "HeapGrowth"])
                .map(\.description) ?? [])
    }
}
