import Foundation
import HeapCensus
// The growth report is plain data in RetainGraphReports (so the CLI and a debug endpoint read
// it without linking the census): code that measures with HeapGrowth gets it too.
@_exported import RetainGraphReports

/// What a piece of work leaves behind on the heap: repeat it, and report the types whose live
/// count grows with the repetitions, each with the path from what holds a new instance.
///
/// The measurement runs the work `warmUp` times (caches and pools that fill once fill there),
/// settles, takes a census snapshot, then runs two rounds of `repeating` repetitions, settling
/// and taking a snapshot after each. A type is reported when its live count grew by at least
/// half the repetitions in *both* rounds, and by about as much in each (within a tenth of the
/// repetitions): work that leaks k instances per repetition grows by k × n in each round,
/// while a cache filled once, a pool that grows and shrinks back, objects still in flight at
/// one snapshot, or what other threads allocate meanwhile do not grow twice by the same n/2 or
/// more. Use at least 10 repetitions (the threshold is then 5 instances per round); more make
/// the check sharper.
///
/// ```swift
/// let growth = try await HeapGrowth.measure(repeating: 100) {
///     try await client.openAndCloseSession()
/// }
/// #expect(growth.isEmpty, "\(growth.text)")
/// ```
///
/// The census is started if it is not running, and left running. Its own cost is two counts
/// (one load per live object) and one snapshot with references, at the end.
public enum HeapGrowth {
    /// The smallest number of repetitions a measurement uses.
    public static let minimumRepetitions = 10

    /// Measures what `work` leaves behind per repetition.
    ///
    /// - Parameters:
    ///   - repetitions: Repetitions per round (clamped to at least ``minimumRepetitions``).
    ///   - warmUp: Runs before the first snapshot, for caches that fill once.
    ///   - settle: Runs after the warm-up and after each round, before the snapshot: let
    ///     timers, queues and tasks finish what the work started. The default yields to other
    ///     tasks and runs the current run loop briefly (``defaultSettle()``).
    ///   - work: One repetition of the work.
    /// - Returns: The growth report; empty when nothing grew.
    /// - Throws: What `work` or `settle` throws.
    public static func measure(
        repeating repetitions: Int = 100, warmUp: Int = 1,
        settle: () async throws -> Void = { await HeapGrowth.defaultSettle() },
        _ work: () async throws -> Void
    ) async throws -> GrowthReport {
        let repetitions = max(repetitions, minimumRepetitions)
        HeapCensus.start()
        for _ in 0..<max(warmUp, 0) { try await work() }
        try await settle()
        let start = HeapCensus.counts()
        for _ in 0..<repetitions { try await work() }
        try await settle()
        let middle = HeapCensus.counts()
        // Trace the candidates' creation in the second round, for a sample's trace.
        let candidates = GrowthAnalysis.grown(from: start, to: middle, threshold: repetitions)
        HeapCensus.traceCreation(of: candidates.compactMap { middle.instanceClass(named: $0) })
        defer { HeapCensus.traceCreation(of: []) }
        for _ in 0..<repetitions { try await work() }
        try await settle()
        let end = HeapCensus.snapshot()
        return GrowthAnalysis.report(
            snapshots: (start, middle, end), repetitions: repetitions, candidates: candidates)
    }

    /// Measures what `work` leaves behind per repetition, synchronously (see the async form).
    public static func measure(
        repeating repetitions: Int = 100, warmUp: Int = 1,
        settle: () throws -> Void = { HeapGrowth.runCurrentRunLoopBriefly() },
        _ work: () throws -> Void
    ) throws -> GrowthReport {
        let repetitions = max(repetitions, minimumRepetitions)
        HeapCensus.start()
        for _ in 0..<max(warmUp, 0) { try work() }
        try settle()
        let start = HeapCensus.counts()
        for _ in 0..<repetitions { try work() }
        try settle()
        let middle = HeapCensus.counts()
        let candidates = GrowthAnalysis.grown(from: start, to: middle, threshold: repetitions)
        HeapCensus.traceCreation(of: candidates.compactMap { middle.instanceClass(named: $0) })
        defer { HeapCensus.traceCreation(of: []) }
        for _ in 0..<repetitions { try work() }
        try settle()
        let end = HeapCensus.snapshot()
        return GrowthAnalysis.report(
            snapshots: (start, middle, end), repetitions: repetitions, candidates: candidates)
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
