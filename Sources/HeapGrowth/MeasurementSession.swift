import HeapCensus
import RetainGraphReports

/// The state of one measurement after its discovery round: the candidate types (traced while
/// the measured rounds run), what each round left, and the idle round's growth.
///
/// Rounds are compared only once both have ended: comparing them symbolicates creation traces,
/// and what the symbolicator allocates between two rounds would count as the second one's
/// growth.
struct MeasurementSession {
    let repetitions: Int
    let candidates: [String]
    /// The tracing of the candidates' creation, beside any other caller's.
    private let tracing: CreationTracing
    private var attribution: WorkAttribution
    private let discovered: TypeCensus
    /// The counts that ended the first measured round, and the snapshot that ended the second.
    private var middle: TypeCensus?
    private var end: HeapSnapshot?
    private var compared: [RoundGrowth]?
    private var idleGrowth: [String: Int] = [:]

    /// Finds the candidates between `start` and `discovered`, and traces their creation from
    /// now on; the work's instances are told apart only when the measurement runs alone
    /// (``MeasurementGate/Ticket/isExclusive``): beside another, both run under the same
    /// markers.
    init(
        start: HeapCounts, discovered: HeapCounts, repetitions: Int,
        ticket: MeasurementGate.Ticket, markers: [WorkMarker]
    ) {
        self.repetitions = repetitions
        candidates = GrowthAnalysis.candidates(
            from: start, to: discovered, repetitions: repetitions)
        attribution = WorkAttribution(markers: ticket.isExclusive ? markers : [])
        self.discovered = TypeCensus(discovered, types: candidates)
        let classes = candidates.compactMap { discovered.instanceClass(named: $0) }
        tracing = CreationTracing(classes)
    }

    /// Stops tracing the candidates' creation.
    func stopTracing() {
        tracing.end()
    }

    /// Records the end of the first measured round: counts, quickly.
    mutating func endFirstRound(_ counts: HeapCounts) {
        middle = TypeCensus(counts, types: candidates)
    }

    /// Records the end of the second measured round: a snapshot, with creation traces.
    mutating func endSecondRound(_ snapshot: HeapSnapshot) {
        end = snapshot
    }

    /// The two rounds compared (once, after both ended).
    private mutating func rounds() -> [RoundGrowth] {
        if let compared { return compared }
        guard let middle, let end else { return [] }
        let final = TypeCensus(end, types: candidates)
        // One symbolizer batch for both rounds and every type.
        attribution.learnNames(
            in: candidates.flatMap { type in
                end.objects(ofType: type).compactMap { end.creationTrace(of: $0) }
            })
        let first = RoundGrowth(
            from: discovered, to: middle, final: end, types: candidates,
            attribution: &attribution)
        let second = RoundGrowth(
            from: middle, to: final, final: end, types: candidates, attribution: &attribution)
        compared = [first, second]
        return [first, second]
    }

    /// The candidates whose growth only an idle round can decide (compares the rounds: call it
    /// before the idle round starts).
    mutating func undecided() -> [String] {
        let rounds = rounds()
        guard rounds.count == 2 else { return [] }
        return candidates.filter {
            GrowthAnalysis.verdict($0, rounds: rounds, repetitions: repetitions) == .undecided
        }
    }

    /// Records how `types` grew while the work was not running.
    mutating func endIdleRound(_ types: [String], before: HeapCounts, after: HeapCounts) {
        let old = GrowthAnalysis.counts(before)
        let new = GrowthAnalysis.counts(after)
        for type in types { idleGrowth[type] = (new[type] ?? 0) - (old[type] ?? 0) }
    }

    /// The report of the two measured rounds.
    mutating func report() -> GrowthReport {
        let rounds = rounds()
        guard rounds.count == 2, let end else {
            return GrowthReport(
                repetitions: repetitions, threshold: GrowthAnalysis.minimum(repetitions),
                grown: [], liveObjects: HeapCensus.liveObjectCount)
        }
        return GrowthAnalysis.report(
            candidates: candidates, rounds: rounds, idleGrowth: idleGrowth, end: end,
            repetitions: repetitions)
    }
}
