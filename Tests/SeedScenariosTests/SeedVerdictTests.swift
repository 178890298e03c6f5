import Foundation
import LeakTracking
import SeedScenarios
import XCTest

/// Every seed case, run live, gives the verdict of `SCENARIOS.md`.
///
/// XCTest rather than Swift Testing: the scenarios schedule timers on the current run loop and
/// use the main dispatch queue, which only the main thread's run loop drains, and XCTest runs
/// its tests on the main thread.
final class SeedVerdictTests: XCTestCase {
    /// The table of issue 5's "Done when", written out independently of the scenarios' own
    /// `expected` values.
    static let required: KeyValuePairs<String, Verdict> = [
        "S1": .leak, "S2a": .transient, "S2b": .ok, "S3": .leak, "S4": .leak, "S5a": .ok,
        "S5b": .leak, "S6a": .ok, "S6b": .leak, "S7a": .ok, "S7b": .leak, "S8": .ok, "S9": .ok,
        "S10": .ok, "S11a": .ok, "S11b": .zombie, "S12a": .leak, "S12b": .ok, "S14": .leak,
        "S16": .leak, "S18a": .leak, "S18b": .ok, "S20": .ok,
    ]

    func testTheTableListsExactlyTheSeedCaseIdsInOrder() {
        XCTAssertEqual(SeedScenarios.table.map(\.id), Self.required.map(\.key))
    }

    func testEverySeedCaseGivesTheVerdictScenariosMdRequires() {
        for (id, verdict) in Self.required {
            guard let scenario = SeedScenarios.scenario(id) else {
                XCTFail("no scenario \(id)")
                continue
            }
            let result = scenario.run()
            XCTAssertEqual(result.watchVerdict?.verdict, verdict, "\(id): \(result.line)")
        }
    }

    func testThePlainFoundationTimerOwnerLeaks() {
        let result = SeedScenarios.foundationTimer.run()
        XCTAssertEqual(result.watchVerdict?.verdict, .leak, result.line)
        // The census records from launch in a test process, so it names the timer as the
        // holder (a scheduled Foundation.Timer) besides the owner ⇄ timer cycle.
        XCTAssertEqual(result.report?.retention, .rootPathAndCycle)
        XCTAssertEqual(result.report?.hint.code, .foundationTimer)
    }

    func testTheTransientVerdictSaysWhenTheOneShotTimerWillFire() throws {
        let result = try XCTUnwrap(SeedScenarios.scenario("S2a")).run()
        let verdict = try XCTUnwrap(result.watchVerdict)
        XCTAssertEqual(verdict.verdict, .transient)
        let release = try XCTUnwrap(verdict.releaseDate)
        XCTAssertGreaterThan(release, verdict.deadline)
        XCTAssertEqual(result.report?.hint.code, .pendingOneShot)
    }

    func testTheZombieReportCountsFiresIntoTheDeadOwner() throws {
        let result = try XCTUnwrap(SeedScenarios.scenario("S11b")).run()
        let report = try XCTUnwrap(result.report)
        XCTAssertEqual(report.verdict, .zombie)
        XCTAssertEqual(report.hint.code, .zombieTimer)
        XCTAssertTrue(report.subject.isDeallocated)
        let timer = try XCTUnwrap(
            report.objects.first { $0.typeName == "TrackedTimers.RunLoopTimer" })
        XCTAssertGreaterThan(timer.timer?.firesIntoDeadTarget ?? 0, 0)
    }

    func testOwnersThatDiedGetNoReport() throws {
        for id in ["S5a", "S6a", "S8", "S20"] {
            let result = try XCTUnwrap(SeedScenarios.scenario(id)).run()
            XCTAssertEqual(result.watchVerdict?.verdict, .ok, id)
            XCTAssertNil(result.report, id)
            XCTAssertTrue(result.line.hasPrefix(id), result.line)
        }
    }
}
