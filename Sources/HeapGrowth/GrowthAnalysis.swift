import HeapCensus
import ObjectGraph
import RetainGraphReports

/// Deciding, from the rounds of a measurement, which types grew because of the work and which
/// other work changed meanwhile.
enum GrowthAnalysis {
    /// Live counts by type name.
    static func counts(_ census: HeapCounts) -> [String: Int] {
        Dictionary(census.countsByType().map { ($0.typeName, $0.count) }, uniquingKeysWith: +)
    }

    /// The types that may grow with the work: those whose live count grew by at least half the
    /// repetitions in the discovery round, or that gained that many new instances (which
    /// other threads freeing older ones can hide from the count).
    static func candidates(from before: HeapCounts, to after: HeapCounts, repetitions: Int)
        -> [String]
    {
        let minimum = self.minimum(repetitions)
        let old = counts(before)
        let now = counts(after)
        var found = Set(now.filter { $0.value - (old[$0.key] ?? 0) >= minimum }.keys)
        let steady = Set(now.filter { $0.value >= minimum && !found.contains($0.key) }.keys)
        for (type, new) in after.newInstanceCounts(since: before, ofTypesNamed: steady)
        where new >= minimum {
            found.insert(type)
        }
        return found.sorted()
    }

    /// The growth per round a type needs: half the repetitions.
    static func minimum(_ repetitions: Int) -> Int { (repetitions + 1) / 2 }

    /// How much two rounds' growth may differ for a leak: a leak grows by the same number of
    /// instances per repetition in both rounds. A tenth of the repetitions, at least 1.
    static func tolerance(_ repetitions: Int) -> Int { max(1, repetitions / 10) }

    /// Whether two rounds grew by at least the minimum each, and by about as much.
    static func isSteady(_ first: Int, _ second: Int, repetitions: Int) -> Bool {
        let minimum = self.minimum(repetitions)
        return first >= minimum && second >= minimum
            && abs(first - second) <= tolerance(repetitions)
    }

    /// What each candidate's rounds say, before an idle round settles the undecided ones.
    enum Verdict {
        /// The work made the instances: exact counts.
        case byTheWork
        /// The count grew steadily, but from instances made on other threads: an idle round
        /// tells whether the work caused it.
        case undecided
        /// Other work changed the count: it is stated, not counted.
        case unsteady
        /// Nothing worth saying.
        case none
    }

    static func verdict(_ type: String, rounds: [RoundGrowth], repetitions: Int) -> Verdict {
        let net = rounds.map { $0.net[type] ?? 0 }
        let mine = rounds.map { $0.byTheWork[type] ?? 0 }
        if isSteady(mine[0], mine[1], repetitions: repetitions) { return .byTheWork }
        if steadyGrowth(type, rounds: rounds, repetitions: repetitions) != nil {
            return .undecided
        }
        let minimum = self.minimum(repetitions)
        if (net + mine).contains(where: { $0 >= minimum }) { return .unsteady }
        return .none
    }

    /// The growth of a type made elsewhere, when it grew steadily: its live count's growth, or
    /// else the new instances of each round still alive at the end, which other threads
    /// freeing older instances meanwhile do not hide; the latter only when the live count grew
    /// by the minimum over both rounds (a pool that replaces its objects makes new ones but
    /// does not grow).
    static func steadyGrowth(_ type: String, rounds: [RoundGrowth], repetitions: Int) -> [Int]? {
        let net = rounds.map { $0.net[type] ?? 0 }
        if isSteady(net[0], net[1], repetitions: repetitions) { return net }
        let alive = rounds.map { $0.newInstances[type]?.count ?? 0 }
        guard isSteady(alive[0], alive[1], repetitions: repetitions),
            net.reduce(0, +) >= minimum(repetitions)
        else { return nil }
        return alive
    }

    /// The report: every candidate classified, the grown ones described from `end`.
    ///
    /// - Parameters:
    ///   - candidates: The types the discovery round found.
    ///   - rounds: The two measured rounds.
    ///   - idleGrowth: For undecided types, their growth in an idle round.
    ///   - end: The snapshot at the end of the second round.
    ///   - repetitions: Repetitions per round.
    static func report(
        candidates: [String], rounds: [RoundGrowth], idleGrowth: [String: Int],
        end: HeapSnapshot, repetitions: Int
    ) -> GrowthReport {
        var grown: [GrownType] = []
        var interference: [GrowthInterference] = []
        // What each new instance keeps alive, from one dominator tree of `end` (computed only
        // when some type grew).
        var tree: CompactGraph.DominatorTree?
        func dominators() -> CompactGraph.DominatorTree {
            if let tree { return tree }
            let computed = end.graph.dominatorTree()
            tree = computed
            return computed
        }
        for type in candidates {
            let net = rounds.map { $0.net[type] ?? 0 }
            let mine = rounds.map { $0.byTheWork[type] ?? 0 }
            let isTraced = rounds.contains { ($0.traced[type] ?? 0) > 0 }
            switch verdict(type, rounds: rounds, repetitions: repetitions) {
            case .byTheWork:
                grown.append(
                    describe(
                        type, growth: mine, attribution: .body,
                        elsewhere: rounds.map { $0.elsewhere[type] ?? 0 },
                        sample: rounds[1].workInstances[type] ?? [], end: end,
                        tree: dominators(), repetitions: repetitions))
            case .undecided:
                let idle = idleGrowth[type] ?? 0
                if idle >= minimum(repetitions) {
                    interference.append(
                        GrowthInterference(
                            typeName: type, growth: net, madeByTheWork: mine,
                            isTraced: isTraced, idleGrowth: idle, reason: .growsWithoutTheWork))
                } else {
                    let growth =
                        steadyGrowth(type, rounds: rounds, repetitions: repetitions) ?? net
                    grown.append(
                        describe(
                            type, growth: growth,
                            attribution: isTraced ? .otherThreads : .untraced,
                            elsewhere: nil, sample: rounds[1].newInstances[type] ?? [],
                            end: end, tree: dominators(), repetitions: repetitions,
                            idleGrowth: idle))
                }
            case .unsteady:
                interference.append(
                    GrowthInterference(
                        typeName: type, growth: net, madeByTheWork: mine, isTraced: isTraced,
                        reason: .unsteady))
            case .none:
                continue
            }
        }
        grown.sort { $0.growth.reduce(0, +) > $1.growth.reduce(0, +) }
        return GrowthReport(
            repetitions: repetitions, threshold: minimum(repetitions), grown: grown,
            interference: interference, liveObjects: end.objectCount)
    }

    /// A grown type: its new instances in the second round, their bytes, and a sample's path
    /// (one of the work's own instances when they are known).
    private static func describe(
        _ type: String, growth: [Int], attribution: GrowthAttribution, elsewhere: [Int]?,
        sample preferred: [HeapObjectID], end: HeapSnapshot, tree: CompactGraph.DominatorTree,
        repetitions: Int, idleGrowth: Int? = nil
    ) -> GrownType {
        let candidates = preferred.isEmpty ? end.objects(ofType: type) : preferred
        // What one new instance keeps alive on average: the retained sizes of the instances a
        // holder reaches (an unreachable one retains nothing the tree can tell).
        let reachable = candidates.map { CompactGraph.NodeID($0.rawValue) }.filter(
            tree.isReachable)
        let retained =
            reachable.isEmpty
            ? nil
            : Int(reachable.reduce(UInt64(0)) { $0 &+ tree.retainedSize(of: $1) })
                / reachable.count
        // The work's own instances' bytes; for growth counted from the live count, the new
        // instances' median size times the second round's growth (a few large blocks other
        // code made meanwhile do not stand for the rest).
        var bytes = candidates.reduce(0) { $0 + end.size(of: $1) }
        if attribution != .body, !candidates.isEmpty {
            let sizes = candidates.map { end.size(of: $0) }.sorted()
            bytes = sizes[sizes.count / 2] * max(0, growth.last ?? 0)
        }
        // The sample: the most common way the instances are held (the same sequence of holder
        // and types), so that an instance a request still had in hand does not stand for the
        // rest; the shortest path of that kind.
        let tree = end.paths(ignoring: [])
        var byShape: [[String]: [RetentionPath]] = [:]
        for id in candidates.suffix(16) {
            guard let path = end.retentionPath(to: id, in: tree) else { continue }
            let shape = [path.holder.description] + path.objects.map(\.typeName)
            byShape[shape, default: []].append(path)
        }
        let sample = byShape.values.max { lhs, rhs in
            lhs.count != rhs.count
                ? lhs.count < rhs.count
                : (lhs.first?.objects.count ?? 0) > (rhs.first?.objects.count ?? 0)
        }?.min { $0.objects.count < $1.objects.count }
        let trace = candidates.lazy.compactMap { end.creationTrace(of: $0) }.first
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
                .map(\.description) ?? [],
            attribution: attribution, madeElsewhere: elsewhere, idleGrowth: idleGrowth,
            retainedBytesPerInstance: retained)
    }
}
