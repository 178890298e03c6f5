import Foundation
import RetainGraph

extension LeakWatcher {
    /// The current verdict on every watch, in the order the watches were made.
    ///
    /// Nothing is forgotten or reported: call ``check()`` for that. A graph snapshot is taken
    /// only if some watched object is alive past its deadline, or died while timers called it;
    /// the discoverers (``discovery``) add what they find to one builder first, and the
    /// snapshot copies only what can hold those objects and the nodes the discoveries mention
    /// (``/RetainGraph/SnapshotScope/retention(of:)``).
    ///
    /// - Returns: One verdict per watch.
    /// - Complexity: O(*w*) for *w* watches when none needs analysis; otherwise the
    ///   discoverers' work, a snapshot and analysis of the holders of the objects in question
    ///   (and of what the discoveries mention), plus a report per leak, each in the size of its
    ///   own path and cycle.
    public func verdicts() -> [WatchVerdict] {
        let watches = state.withLock { $0.watches.values.sorted { $0.id < $1.id } }
        return evaluate(watches)
    }

    /// The current verdict on one watch.
    ///
    /// - Parameter id: The watch.
    /// - Returns: Its verdict, or `nil` if it was forgotten.
    public func verdict(for id: WatchID) -> WatchVerdict? {
        guard let watch = state.withLock({ $0.watches[id] }) else { return nil }
        return evaluate([watch]).first
    }

    /// Judges every watch, forgets those with a final verdict, and sends new leak and zombie
    /// reports to the sinks.
    ///
    /// Reports are deduplicated by fingerprint for the whole run: the second leak with the same
    /// fingerprint raises the first report's ``LeakReport/occurrences`` instead of making a new
    /// one (sinks see the updated report).
    ///
    /// - Returns: One verdict per watch, the forgotten ones included.
    @discardableResult
    public func check() -> [WatchVerdict] {
        let results = verdicts()
        deliver(results)
        return results
    }

    /// Does with verdicts already taken what ``check()`` does after taking them: forgets the
    /// watches whose verdict is final, and sends the leak and zombie reports among them to the
    /// sinks (deduplicated by fingerprint, as ``check()`` does).
    ///
    /// For code that waited for its verdicts itself (``settled(timeout:)``,
    /// ``settle(mode:timeout:)``), so that sinks receive what it found, as the test helpers do.
    ///
    /// ```swift
    /// let verdicts = await watcher.settled(timeout: .seconds(10))
    /// watcher.deliver(verdicts)   // a DirectorySink added to the watcher writes the reports
    /// ```
    ///
    /// - Parameter results: Verdicts this watcher returned.
    public func deliver(_ results: [WatchVerdict]) {
        var delivered: [LeakReport] = []
        let sinks = state.withLock { state -> [any LeakReportSink] in
            for result in results where result.verdict.isFinal {
                guard state.watches[result.watch] != nil else { continue }
                state.removeWatch(result.watch)
                guard result.verdict.isProblem, let report = result.report else { continue }
                if var seen = state.reported[report.fingerprint] {
                    seen.occurrences += 1
                    state.reported[report.fingerprint] = seen
                    delivered.append(seen)
                } else {
                    state.reported[report.fingerprint] = report
                    state.order.append(report.fingerprint)
                    delivered.append(report)
                }
            }
            return state.sinks
        }
        for report in delivered {
            for sink in sinks { sink.receive(report) }
        }
    }

    func evaluate(_ watches: [Watch]) -> [WatchVerdict] {
        let now = clock.now
        let needsAnalysis = watches.contains { watch in
            watch.reference.isAlive ? now >= watch.deadline : !watch.upstreamTimers.isEmpty
        }
        guard needsAnalysis else {
            return watches.map { $0.verdict($0.reference.isAlive ? .pending : .ok) }
        }
        // What the discoverers find goes into one builder; the snapshot copies only what can
        // hold the objects in question (and the nodes the discoveries mention, whose recorded
        // holders a discovered reference joins), and is built once with the discoveries.
        var additions = GraphSnapshot.Builder()
        let discoverers = discovery.steps()
        if !discoverers.isEmpty {
            discover(into: &additions, with: discoverers, watches: watches)
        }
        let explained = Self.nodesToExplain(watches, now: now) + additions.mentionedIDs
        let snapshot = graph.snapshot(.retention(of: explained), adding: additions)
        let analysis = snapshot.analyze()
        // One dominator tree of the whole heap per check, whatever the number of reports.
        let figures = RetainedFigures(additions.discoveredHeap)
        return watches.map { watch in
            var result = judge(watch, now: now, analysis: analysis, figures: figures)
            if result.report != nil { result.discoveredHeap = figures.heap }
            return result
        }
    }

    /// Runs `steps` with the watched objects still alive, held strongly only for the call (the
    /// watches keep weak references), each adding what it finds to `additions`.
    private func discover(
        into additions: inout GraphSnapshot.Builder, with steps: [DiscoveryStep],
        watches: [Watch]
    ) {
        let alive = watches.compactMap { watch -> WatchedObject? in
            guard let id = watch.objectID, let object = watch.reference.object else { return nil }
            return WatchedObject(id: id, object: object)
        }
        let request = DiscoveryRequest(graph: graph, watched: alive)
        for step in steps {
            step.discoverer.discoverReferences(into: &additions, for: request)
        }
    }

    /// The nodes whose holders a verdict needs: the watched objects alive past their deadline,
    /// and the timers that called watched objects now dead (the zombie candidates).
    static func nodesToExplain(_ watches: [Watch], now: Date) -> [ObjectID] {
        var ids: [ObjectID] = []
        for watch in watches {
            if watch.reference.isAlive {
                if now >= watch.deadline, let id = watch.objectID { ids.append(id) }
            } else {
                ids += watch.upstreamTimers
            }
        }
        return ids
    }

    private func judge(
        _ watch: Watch, now: Date, analysis: RetentionAnalysis, figures: RetainedFigures
    ) -> WatchVerdict {
        let subject = watch.subject(now: now)
        guard watch.reference.isAlive else {
            let zombies = TimerChains.zombies(among: watch.upstreamTimers, in: analysis.snapshot)
            guard let timer = zombies.first else { return watch.verdict(.ok) }
            let report = LeakReport.zombie(timer: timer, subject: subject, analysis: analysis)
            return watch.verdict(.zombie, report: report, allowance: allowance(for: report))
        }
        guard now >= watch.deadline else { return watch.verdict(.pending) }
        guard let id = watch.objectID else {
            let report = LeakReport.retained(
                .disabled, subject: subject, analysis: analysis, verdict: .leak)
            return watch.verdict(.leak, report: report, allowance: allowance(for: report))
        }
        if let timer = TimerChains.releasingOneShot(of: id, in: analysis) {
            let report = LeakReport.retained(
                id, subject: subject, analysis: analysis, verdict: .transient,
                pendingTimer: timer, figures: figures)
            let release = report.releaseDate.map { Date(timeIntervalSince1970: $0) }
            return watch.verdict(.transient, report: report, releaseDate: release)
        }
        let report = LeakReport.retained(
            id, subject: subject, analysis: analysis, verdict: .leak, figures: figures)
        // The object may have died while the report was made.
        guard watch.reference.isAlive else { return watch.verdict(.ok) }
        return watch.verdict(.leak, report: report, allowance: allowance(for: report))
    }
}

extension LeakReport {
    /// Merges reports with the same fingerprint into one, adding up their occurrences; the
    /// first report of each fingerprint is kept, in order of first appearance.
    ///
    /// - Parameter reports: Reports, possibly repeating fingerprints.
    /// - Returns: One report per fingerprint.
    /// - Complexity: O(*n*).
    public static func deduplicated(_ reports: [LeakReport]) -> [LeakReport] {
        var merged: [String: LeakReport] = [:]
        var order: [String] = []
        for report in reports {
            if var seen = merged[report.fingerprint] {
                seen.occurrences += report.occurrences
                merged[report.fingerprint] = seen
            } else {
                merged[report.fingerprint] = report
                order.append(report.fingerprint)
            }
        }
        return order.compactMap { merged[$0] }
    }
}
