import Foundation
import Testing

/// The fixture package `Tests/Fixtures/ExitLeaks` leaves a `Poller` whose sleep loop nobody
/// cancels: when each of its test processes exits, the check names that task, where it waits
/// and where it was created.
@Suite("Tasks still suspended at the exit of a whole test run (fixture package)", .serialized)
struct ExitTasksFixtureTests {
    @Test("Each test process names its never-cancelled sleep loop, grouped, with its lines")
    func namesTheSuspendedTask() throws {
        let (output, directory) = try FixtureRun.test()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(output.status == 0, "the fixture's tests pass: \(output.text)")
        let summaries = output.text.split(separator: "\n").filter {
            $0.hasPrefix("RetainGraph: ") && $0.contains("still suspended at exit")
        }
        // XCTest, then Swift Testing: a process each.
        #expect(summaries.count == 2, "\(output.text)")
        let group = output.text.split(separator: "\n").filter {
            $0.contains("1 task suspended in closure #1 in Poller.start() at Scenarios.swift:")
        }
        #expect(group.count == 2, "\(output.text)")
        for line in group {
            #expect(line.contains("awaiting Task.sleep(for:tolerance:clock:)"), "\(line)")
            #expect(line.contains("; created at Scenarios.swift:"), "\(line)")
        }
        #expect(!output.text.contains("tasks at exit not read"), "\(output.text)")
    }

    @Test("RETAINGRAPH_TASKS_AT_EXIT=0 turns it off")
    func turnedOff() throws {
        let (output, directory) = try FixtureRun.test(environment: [
            "RETAINGRAPH_TASKS_AT_EXIT": "0"
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(!output.text.contains("still suspended at exit"), "\(output.text)")
    }
}
