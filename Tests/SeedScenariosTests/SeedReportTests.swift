import Foundation
import LeakTracking
import SeedScenarios
import XCTest

/// The reports of S1 and S4 say what keeps the owner alive, in order, with edge kinds and
/// roles, the cycle or its absence, the hint and where the timer was created; and the
/// references the example never declared come from ReferenceReflection.
final class SeedReportTests: XCTestCase {
    private func report(of id: String) throws -> LeakReport {
        let result = try XCTUnwrap(SeedScenarios.scenario(id)).run()
        return try XCTUnwrap(result.report, "\(id): \(result.line)")
    }

    private func typeName(_ report: LeakReport, _ id: String) -> String? {
        report.object(id)?.typeName
    }

    func testS1PathRunsFromTheMainRunLoopThroughTheTimerToTheController() throws {
        let report = try report(of: "S1")
        XCTAssertEqual(report.retention, .rootPathAndCycle)
        XCTAssertEqual(report.path.count, 2)
        let (scheduled, target) = (report.path[0], report.path[1])
        XCTAssertEqual(report.object(scheduled.from)?.root, #"run loop of thread "main""#)
        XCTAssertEqual(scheduled.ownership, .strong)
        XCTAssertEqual(scheduled.role, "scheduled")
        XCTAssertEqual(typeName(report, scheduled.to), "TrackedTimers.RunLoopTimer")
        XCTAssertEqual(target.from, scheduled.to)
        XCTAssertEqual(target.ownership, .strong)
        XCTAssertEqual(target.role, "target")
        XCTAssertTrue(target.isSuspect)
        XCTAssertEqual(typeName(report, target.to), "SeedScenarios.ClockViewController")
        XCTAssertEqual(target.to, report.subject.id)
    }

    func testS1CycleIsTheControllersTimerPropertyAndTheTimersTarget() throws {
        let report = try report(of: "S1")
        let cycle = try XCTUnwrap(report.cycle)
        XCTAssertEqual(cycle.count, 2)
        let property = try XCTUnwrap(cycle.first { $0.role == "storedProperty" })
        XCTAssertEqual(property.detail, "timer")
        XCTAssertEqual(property.ownership, .strong)
        XCTAssertTrue(property.isDiscovered, "owner ⇒ timer must come from ReferenceReflection")
        XCTAssertEqual(typeName(report, property.from), "SeedScenarios.ClockViewController")
        XCTAssertTrue(cycle.contains { $0.role == "target" && $0.from == property.to })
        XCTAssertTrue(report.text.contains("Cycle (2 references):"))
    }

    func testS1HintAndCreationFrame() throws {
        let report = try report(of: "S1")
        XCTAssertEqual(report.hint.code, .strongTimerTarget)
        XCTAssertTrue(
            report.hint.text.hasPrefix(
                "the timer holds its target strongly: use a weak target or WeakProxy, or "
                    + "invalidate in stop()"), report.hint.text)
        let trace = try XCTUnwrap(report.creationTraces.first)
        XCTAssertEqual(typeName(report, trace.object), "TrackedTimers.RunLoopTimer")
        let first = try XCTUnwrap(trace.frames.first)
        XCTAssertTrue(first.contains("SeedScenarios.ClockViewController.startTimer()"), first)
        XCTAssertFalse(
            trace.frames.contains {
                $0.contains("TrackedTimers.") && !$0.contains("SeedScenarios.")
            })
        XCTAssertEqual(
            report.summary,
            "strong target: run loop ⇒ RunLoopTimer ⇒ ClockViewController ⇒ RunLoopTimer")
    }

    func testS4IsHeldFromTheRunLoopWithoutAnyCycle() throws {
        let report = try report(of: "S4")
        XCTAssertEqual(report.retention, .rootPath)
        XCTAssertNil(report.cycle)
        XCTAssertEqual(report.path.map(\.role), ["scheduled", "target"])
        XCTAssertEqual(report.path.map(\.ownership), [.strong, .strong])
        XCTAssertNotNil(report.object(report.path[0].from)?.root)
        XCTAssertEqual(typeName(report, report.path[0].to), "TrackedTimers.RunLoopTimer")
        XCTAssertEqual(typeName(report, report.path[1].to), "SeedScenarios.WeakTimerViewController")
        XCTAssertTrue(report.text.contains("No cycle: held from a root."))
        XCTAssertEqual(report.hint.code, .heldFromRoot)
        XCTAssertTrue(
            report.hint.text.contains("a weak timer property does not help"), report.hint.text)
        let frame = try XCTUnwrap(report.creationTraces.first?.frames.first)
        XCTAssertTrue(frame.contains("SeedScenarios.WeakTimerViewController.startTimer()"), frame)
        // Reflection sees the weak property, and knows it holds nothing.
        let property = report.context.first { $0.role == "storedProperty" && $0.detail == "timer" }
        XCTAssertEqual(property?.ownership, .weak)
        XCTAssertEqual(property?.isDiscovered, true)
    }

    /// S1, S3, S6b and the Foundation timer: `owner ⇒ .timer` and the closure capturing the
    /// owner are discovered, never declared by the example.
    func testTimerPropertyAndCapturedSelfAreDiscovered() throws {
        for id in ["S1", "S3", "S6b", "FT"] {
            let report = try report(of: id)
            let references = report.path + (report.cycle ?? []) + report.context
            let property = references.first { $0.role == "storedProperty" && $0.detail == "timer" }
            XCTAssertEqual(property?.from, report.subject.id, id)
            XCTAssertEqual(property?.ownership, .strong, id)
            XCTAssertEqual(property?.isDiscovered, true, id)
            // A closure capturing the owner: from its context (S1, S3: the closure captures
            // another closure too), or from the timer whose closure's only capture is the owner
            // (S6b, FT: the compiler made the owner the closure's context).
            let capture = references.first {
                ($0.referenceRole?.isCapture ?? false) && $0.to == report.subject.id
            }
            XCTAssertEqual(capture?.ownership, .strong, id)
            XCTAssertEqual(capture?.isDiscovered, true, id)
            let holder = report.object(capture?.from ?? "")
            if capture?.role == "closureCapture" {
                XCTAssertEqual(holder?.kind, "timer", id)
            } else {
                XCTAssertEqual(holder?.kind, "closure", id)
            }
            XCTAssertTrue(report.text.contains("was found by inspecting memory, not declared"), id)
            // The library's own bookkeeping (a scheduled timer's lock box holding the timer)
            // is not reported as a discovered reference.
            XCTAssertFalse(references.contains { $0.from == $0.to }, id)
            XCTAssertFalse(report.notes.contains { $0.contains("trampoline") }, id)
        }
    }

    func testS6bCycleGoesThroughTheDiscoveredClosure() throws {
        let report = try report(of: "S6b")
        XCTAssertEqual(report.hint.code, .closureCapture)
        // The hint names the timer that reflection found holding the closure.
        XCTAssertTrue(
            report.hint.text.hasPrefix("the closure of RunLoopTimer captures self"),
            report.hint.text)
        let cycle = try XCTUnwrap(report.cycle)
        XCTAssertTrue(cycle.allSatisfy { $0.ownership == .strong })
        XCTAssertTrue(cycle.contains { $0.role == "closureCapture" && $0.isDiscovered })
        XCTAssertTrue(cycle.contains { $0.role == "storedProperty" && $0.detail == "timer" })
    }
}
