import Foundation
import HeapGrowth
import RetainGraphReports
import Synchronization
import Testing

/// What each measurement of `GateThreadTests` keeps: its own type, so that the reports can be
/// told apart.
final class KeptByTheAsyncMeasurement: @unchecked Sendable {}
final class KeptBySynchronousMeasurements: @unchecked Sendable {}

nonisolated(unsafe) var keptByTheAsyncMeasurement: [KeptByTheAsyncMeasurement] = []
let keptBySynchronousMeasurements = Mutex<[KeptBySynchronousMeasurements]>([])

/// How many of the synchronous measurements' tasks started.
final class StartedCount: Sendable {
    let value = Atomic<Int>(0)
}

/// An async measurement runs while more synchronous ones than the cooperative pool has
/// threads wait for it, each blocking its thread: the async one must finish without a thread
/// of the pool, and every measurement must then run alone (a synchronous one that gave up
/// waiting would run beside another and count without attribution).
@Suite struct GateThreadTests {
    @Test func anAsyncMeasurementFinishesWhileSynchronousOnesBlockThePool() async throws {
        defer {
            keptByTheAsyncMeasurement.removeAll()
            keptBySynchronousMeasurements.withLock { $0.removeAll() }
        }
        // The pool has a thread per core: one more measurement than that waits.
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let started = StartedCount()
        let waiting = Mutex<[Task<GrowthReport, any Error>]>([])
        let asyncReport = try await HeapGrowth.measure(repeating: 20) {
            if keptByTheAsyncMeasurement.isEmpty {
                // Inside the gate: the synchronous measurements start now and block on it.
                for _ in 0...threads {
                    let task = Task.detached {
                        started.value.add(1, ordering: .sequentiallyConsistent)
                        return try HeapGrowth.measure(repeating: 20) {
                            keptBySynchronousMeasurements.withLock {
                                $0.append(KeptBySynchronousMeasurements())
                            }
                        }
                    }
                    waiting.withLock { $0.append(task) }
                }
                // Until they block the pool, but not long: other tests' synchronous
                // measurements may hold every pool thread, waiting for this one, and this one
                // must not wait for them in turn (nothing asserted depends on the wait).
                let deadline = ContinuousClock.now + .seconds(2)
                while started.value.load(ordering: .sequentiallyConsistent) < threads,
                    ContinuousClock.now < deadline
                {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            keptByTheAsyncMeasurement.append(KeptByTheAsyncMeasurement())
        }
        let grown = try #require(
            asyncReport.grown.first { $0.typeName.hasSuffix("KeptByTheAsyncMeasurement") })
        #expect(grown.attribution == .body, "\(asyncReport)")
        // Each synchronous one ran alone: its own objects, told apart as its work's.
        for task in waiting.withLock({ $0 }) {
            let report = try await task.value
            let kept = try #require(
                report.grown.first { $0.typeName.hasSuffix("KeptBySynchronousMeasurements") },
                "\(report)")
            #expect(kept.growth == [20, 20], "\(report)")
            #expect(kept.attribution == .body, "\(report)")
        }
    }
}
