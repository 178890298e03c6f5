import Foundation
import HeapCensus
// The growth report is plain data in RetainGraphReports (so the CLI and a debug endpoint read
// it without linking the census): code that measures with HeapGrowth gets it too.
@_exported import RetainGraphReports

/// What a piece of work leaves behind on the heap: repeat it, and report the types whose live
/// count grows with the repetitions, each with the path from what holds a new instance.
///
/// The measurement runs the work `warmUp` times (caches and pools that fill once fill there),
/// then a discovery round of `repeating` repetitions that finds the types that may grow, then
/// two measured rounds, settling and reading the census after each. A type is reported when it
/// grew by at least half the repetitions in *both* measured rounds, and by about as much in
/// each (within a tenth of the repetitions): work that leaks k instances per repetition grows
/// by k × n in each round, while a cache filled once, a pool that grows and shrinks back, or
/// objects still in flight at one snapshot do not grow twice by the same n/2 or more. Use at
/// least 10 repetitions (the threshold is then 5 instances per round); more make the check
/// sharper.
///
/// **In a parallel test run.** The census counts the whole process, so other tests allocating
/// the same types would change the counts. The measurement therefore counts the instances the
/// work itself made: async work runs on a thread of its own (a task executor preference; child
/// tasks inherit it), synchronous work under a frame of its own, and the creation traces of the
/// candidate types say which instances were made there. Growth made elsewhere (an event loop or
/// a `Task { }` the work started, or another test) is reported when the type grew steadily and
/// did not grow during an idle round as long as a measured one; otherwise it is stated as
/// interference (``/RetainGraphReports/GrowthReport/interference``), never counted as the
/// work's and never silent. Measurements themselves run one at a time.
///
/// ```swift
/// let growth = try await HeapGrowth.measure(repeating: 100) {
///     try await client.openAndCloseSession()
/// }
/// #expect(growth.isEmpty, "\(growth)")
/// ```
///
/// The census is started if it is not running, and left running. Its own cost is three counts
/// (one load per live object), one snapshot with references at the end, the candidate types'
/// creation traces during the measured rounds, and an idle round when some growth was made on
/// other threads.
public enum HeapGrowth {
    /// The smallest number of repetitions a measurement uses.
    public static let minimumRepetitions = 10

    /// Measures what `work` leaves behind per repetition.
    ///
    /// `work` and `settle` run on the measurement's own thread (see the type's discussion); a
    /// body isolated to an actor still runs on that actor.
    ///
    /// - Parameters:
    ///   - repetitions: Repetitions per round (clamped to at least ``minimumRepetitions``).
    ///   - warmUp: Runs before the first count, for caches that fill once.
    ///   - settle: Runs after the warm-up and after each round, before the census is read: let
    ///     timers, queues and tasks finish what the work started. The default yields to other
    ///     tasks and runs the current run loop briefly (``defaultSettle()``).
    ///   - work: One repetition of the work.
    /// - Returns: The growth report; empty when nothing grew with the work.
    /// - Throws: What `work` or `settle` throws.
    public static func measure(
        repeating repetitions: Int = 100, warmUp: Int = 1,
        settle: () async throws -> Void = { await HeapGrowth.defaultSettle() },
        _ work: () async throws -> Void
    ) async throws -> GrowthReport {
        try await measure(
            repeating: repetitions, warmUp: warmUp, keepingSnapshots: false, settle: settle, work
        ).report
    }

    /// Measures what `work` leaves behind, as the public `measure` does, and keeps the census
    /// snapshots that start and end it when asked (the test helpers write them out for a
    /// failing check).
    package static func measure(
        repeating repetitions: Int, warmUp: Int, keepingSnapshots: Bool,
        settle: () async throws -> Void, _ work: () async throws -> Void
    ) async throws -> (report: GrowthReport, snapshots: GrowthSnapshots?) {
        let repetitions = max(repetitions, minimumRepetitions)
        // Started before anything is counted. The whole measurement runs on it, from its wait
        // for the gate to its leaving it: a measurement that holds the gate never waits for a
        // thread of the cooperative pool, which synchronous measurements queued behind it may
        // all be blocking (they would go ahead without the gate after
        // `MeasurementGate.synchronousWait`, and count each other's objects).
        let thread = MeasurementThread.shared
        let markers: [WorkMarker] = [.measurementThread, .synchronous]
        return try await withTaskExecutorPreference(thread) {
            let ticket = await MeasurementGate.shared.enter()
            defer { MeasurementGate.shared.leave(ticket) }
            HeapCensus.start()
            func round(_ count: Int) async throws {
                for _ in 0..<count { try await work() }
                try await settle()
            }
            try await round(max(warmUp, 0))
            // Taken before the first count, so that its own storage is in every count.
            let first = keepingSnapshots ? HeapCensus.snapshot() : nil
            let start = HeapCensus.counts()
            try await round(repetitions)
            var session = MeasurementSession(
                start: start, discovered: HeapCensus.counts(), repetitions: repetitions,
                ticket: ticket, markers: markers)
            defer { session.stopTracing() }
            let clock = ContinuousClock()
            let began = clock.now
            try await round(repetitions)
            session.endFirstRound(HeapCensus.counts())
            try await round(repetitions)
            let last = HeapCensus.snapshot()
            session.endSecondRound(last)
            let measured = (clock.now - began) / 2
            let undecided = session.undecided()
            if !undecided.isEmpty {
                let before = HeapCensus.counts()
                try await Task.sleep(for: measured)
                session.endIdleRound(undecided, before: before, after: HeapCensus.counts())
            }
            return (session.report(), first.map { GrowthSnapshots(start: $0, end: last) })
        }
    }

    /// Measures what `work` leaves behind per repetition, synchronously (see the async form).
    ///
    /// `work` runs on the calling thread, under a frame of the measurement's own.
    public static func measure(
        repeating repetitions: Int = 100, warmUp: Int = 1,
        settle: () throws -> Void = { HeapGrowth.runCurrentRunLoopBriefly() },
        _ work: () throws -> Void
    ) throws -> GrowthReport {
        try measure(
            repeating: repetitions, warmUp: warmUp, keepingSnapshots: false, settle: settle, work
        ).report
    }

    /// Measures synchronously and keeps the snapshots that start and end the measurement when
    /// asked (see the async form).
    package static func measure(
        repeating repetitions: Int, warmUp: Int, keepingSnapshots: Bool,
        settle: () throws -> Void, _ work: () throws -> Void
    ) throws -> (report: GrowthReport, snapshots: GrowthSnapshots?) {
        let repetitions = max(repetitions, minimumRepetitions)
        let ticket = MeasurementGate.shared.enterBlocking()
        defer { MeasurementGate.shared.leave(ticket) }
        HeapCensus.start()
        let markers: [WorkMarker] = [.synchronous]
        func round(_ count: Int) throws {
            for _ in 0..<count { try SynchronousMarker.run(work) }
            try settle()
        }
        try round(max(warmUp, 0))
        let first = keepingSnapshots ? HeapCensus.snapshot() : nil
        let start = HeapCensus.counts()
        try round(repetitions)
        var session = MeasurementSession(
            start: start, discovered: HeapCensus.counts(), repetitions: repetitions,
            ticket: ticket, markers: markers)
        defer { session.stopTracing() }
        let began = Date()
        try round(repetitions)
        session.endFirstRound(HeapCensus.counts())
        try round(repetitions)
        let last = HeapCensus.snapshot()
        session.endSecondRound(last)
        let measured = Date().timeIntervalSince(began) / 2
        let undecided = session.undecided()
        if !undecided.isEmpty {
            let before = HeapCensus.counts()
            let idle = Date().addingTimeInterval(measured)
            while Date() < idle { _ = RunLoop.current.run(mode: .default, before: idle) }
            session.endIdleRound(undecided, before: before, after: HeapCensus.counts())
        }
        return (session.report(), first.map { GrowthSnapshots(start: $0, end: last) })
    }

    /// The default settling: yields to other tasks a few times and runs the current thread's
    /// run loop once without waiting, so work the repetitions queued there can finish.
    public static func defaultSettle() async {
        for _ in 0..<16 { await Task.yield() }
        runCurrentRunLoopBriefly()
        for _ in 0..<16 { await Task.yield() }
    }

    /// Runs the current thread's run loop for what is due now, without waiting.
    public static func runCurrentRunLoopBriefly() {
        _ = RunLoop.current.run(mode: .default, before: Date())
    }
}
