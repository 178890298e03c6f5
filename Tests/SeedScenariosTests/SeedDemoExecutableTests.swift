import Foundation
import Testing

/// Runs the built `seed-demo` executable, as swift-argument-parser's example tests do, and
/// checks what it prints.
@Suite("seed-demo executable")
struct SeedDemoExecutableTests {
    /// The table lines `seed-demo` must print: id, verdict word, and the start of the
    /// explanation (run-dependent parts, such as a transient's fire time, are left out).
    static let expectedLines: [(id: String, verdict: String, explanation: String)] = [
        (
            "S1", "LEAK",
            "strong target: run loop ⇒ RunLoopTimer ⇒ ClockViewController ⇒ RunLoopTimer"
        ),
        (
            "S2a", "TRANSIENT",
            "one-shot timer pending, fires in "
        ),
        ("S2b", "OK", "died: "),
        (
            "S3", "LEAK",
            "strong target: run loop ⇒ RunLoopTimer ⇒ ClockViewController ⇒ RunLoopTimer"
        ),
        (
            "S4", "LEAK",
            "held from a root, no cycle: run loop ⇒ RunLoopTimer ⇒ WeakTimerViewController"
        ),
        ("S5a", "OK", "died: "),
        (
            "S5b", "LEAK",
            "strong target: run loop ⇒ RunLoopTimer ⇒ ClockViewController ⇒ RunLoopTimer"
        ),
        ("S6a", "OK", "died: "),
        (
            "S6b", "LEAK",
            "closure captures self: run loop ⇒ RunLoopTimer ⇒ BlockClockViewController"
        ),
        ("S7a", "OK", "died: "),
        ("S7b", "LEAK", "dispatch handler captures self: queue ⇒ DispatchTimer ⇒ "),
        ("S8", "OK", "died: "),
        ("S9", "OK", "died: "),
        ("S10", "OK", "died: "),
        ("S11a", "OK", "died: "),
        (
            "S11b", "ZOMBIE",
            "timer fires into a dead target: run loop ⇒ RunLoopTimer → WrapperViewController (dead)"
        ),
        (
            "S12a", "LEAK",
            "frame timer strong target: run loop ⇒ FrameTimer ⇒ DisplayLinkViewController ⇒ FrameTimer"
        ),
        ("S12b", "OK", "died: "),
        (
            "S14", "LEAK",
            "unscheduled timer holds target: UnscheduledViewController ⇒ RunLoopTimer ⇒ UnscheduledViewController"
        ),
        (
            "S16", "LEAK",
            "background run loop: run loop ⇒ RunLoopTimer ⇒ PollingViewController ⇒ RunLoopTimer"
        ),
        ("S18a", "LEAK", "registry entry: ZCGCDTimer ⇒ DispatchTimer ⇒ "),
        ("S18b", "OK", "died: "),
        ("S20", "OK", "died: "),
    ]

    /// `seed-demo` in the build products directory, next to the test bundle.
    static func demoURL() -> URL? {
        var directories = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() }
        directories.append(Bundle.main.bundleURL)
        directories.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories.map { $0.appendingPathComponent("seed-demo") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `seed-demo` and returns its exit status and standard output.
    static func runDemo() throws -> (status: Int32, output: String) {
        let url = try #require(demoURL(), "seed-demo not found next to the test bundle")
        let process = Process()
        process.executableURL = url
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("prints the S1 and S4 reports, then one table line per case id, and exits 0")
    func printsReportsThenTable() throws {
        let (status, output) = try Self.runDemo()
        #expect(status == 0, "\(output)")
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)

        let s1 = try #require(
            lines.firstIndex(of: "== S1: repeating timer with a strong target =="))
        let s4 = try #require(lines.firstIndex(of: "== S4: weak timer property =="))
        let table = try #require(lines.firstIndex(of: "== Verdicts =="))
        #expect(s1 < s4 && s4 < table)
        #expect(lines[s1 + 1].hasPrefix("LEAK: SeedScenarios.ClockViewController at 0x"))
        #expect(lines[s4 + 1].hasPrefix("LEAK: SeedScenarios.WeakTimerViewController at 0x"))
        #expect(lines[s4..<table].contains("No cycle: held from a root."))

        let rows = Array(lines[(table + 1)...].prefix { !$0.isEmpty })
        #expect(rows.count == Self.expectedLines.count)
        for (row, expected) in zip(rows, Self.expectedLines) {
            let columns = row.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            #expect(columns.count == 3, "\(row)")
            guard columns.count == 3 else { continue }
            #expect(String(columns[0]) == expected.id, "\(row)")
            #expect(String(columns[1]) == expected.verdict, "\(row)")
            let explanation = columns[2].drop { $0 == " " }
            #expect(explanation.hasPrefix(expected.explanation), "\(row)")
            if expected.id == "S2a" {
                #expect(
                    explanation.hasSuffix(
                        "Z): run loop ⇒ RunLoopTimer ⇒ ClockViewController ⇒ RunLoopTimer"),
                    "\(row)")
            }
        }
        #expect(lines.contains("All 34 verdicts are the expected ones."))
    }

    @Test(
        "part 2: the platform's own primitives leak with a path from their holder, fixed ones die")
    func printsPlatformPrimitives() throws {
        let (status, output) = try Self.runDemo()
        #expect(status == 0)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (id, start) in [
            (
                "P1a",
                "LEAK       Foundation.Timer: a Foundation.Timer scheduled on a run loop ⇒ Timer ⇒ TimerRefresher"
            ),
            ("P1b", "OK         died: plain Foundation.Timer, [weak self]"),
            ("P2a", "LEAK       dispatch block captures self: a block libdispatch holds"),
            ("P2b", "OK         died: DispatchSourceTimer, [weak self]"),
            ("P3a", "LEAK       Task captures self: a Task"),
            ("P3b", "OK         died: Task sleep loop, [weak self]"),
            (
                "P4a",
                "LEAK       observer block captures self: global variable FoundationEssentials._defaultCenter : "
            ),
            ("P4b", "OK         died: NotificationCenter block observer, [weak self]"),
            ("P5a", "LEAK       global variable: global variable SeedScenarios.sessionCache"),
            ("P5b", "OK         died: global cache, removed on close"),
        ] {
            let line = lines.first { $0.hasPrefix(id + " ") }
            #expect(line?.dropFirst(6).hasPrefix(start) == true, "\(id): \(line ?? "missing")")
        }
        // The task's closure captures the refresher, which holds the task: a cycle too.
        #expect(lines.first { $0.hasPrefix("P3a ") }?.hasSuffix("⇒ TaskRefresher ⇒ Task") == true)
        #expect(
            lines.first { $0.hasPrefix("P4a ") }?.hasSuffix(
                ": FoundationEssentials.NotificationCenter ⇒ NotificationCenter ⇒ [Optional<String>: "
                    + "Dictionary<Optional<ObjectIdentifier>, AutoDictionary<@Sendable (MessageBox) -> ()>>] "
                    + "storage ⇒ [Optional<ObjectIdentifier>: AutoDictionary<@Sendable (MessageBox) -> ()>] "
                    + "storage ⇒ [UInt64: @Sendable (MessageBox) -> ()] storage ⇒ closure context ⇒ "
                    + "NotificationListener") == true)
        #expect(
            output.contains(
                "│ GC root: a Task (the concurrency runtime holds it while it runs or sleeps)"))
        #expect(output.contains("│    ↓ strong · captures TaskRefresher (found in the heap)"))
        #expect(output.contains("Hint: the Task's closure captures TaskRefresher strongly"))
    }

    @Test(
        "names the references ReferenceReflection discovered, and reports the raw Foundation timer")
    func printsDiscoveredReferences() throws {
        let (_, output) = try Self.runDemo()
        for line in [
            "S1    ClockViewController ⇒ .timer ⇒ RunLoopTimer",
            "S1    closure context (captures closure, ClockViewController) ⇒ captures "
                + "ClockViewController ⇒ ClockViewController",
            "S3    ClockViewController ⇒ .timer ⇒ RunLoopTimer",
            "S6b   BlockClockViewController ⇒ .timer ⇒ RunLoopTimer",
            // The closure's only capture is the controller: one reference, a capture.
            "S6b   RunLoopTimer ⇒ .state.action.always (a closure capturing "
                + "BlockClockViewController) ⇒ BlockClockViewController",
            "FT    RawTimerViewController ⇒ .timer ⇒ Timer",
            "FT    Timer ⇒ ._fire (a closure capturing RawTimerViewController) ⇒ "
                + "RawTimerViewController",
        ] {
            #expect(output.contains(line + "\n"), "missing: \(line)")
        }
        #expect(output.contains("Hint: a raw Foundation.Timer holds RawTimerViewController"))
    }
}
