import Foundation
import Testing

/// What Swift Testing writes about a leak the trait records, read from a child run of this
/// very test bundle that runs only ``PlantedLeakChild/plantedLeak()``.
@Suite("What CI sees of a leak under .detectsLeaks", .enabled(if: !isPlantedLeakChild))
struct TestReportingTests {
    /// The output of one child run.
    struct ChildRun {
        let status: Int32
        let xunit: String
        let events: [[String: Any]]
        let attachments: URL
        /// How the child ended and the end of what it printed, for a failure's message.
        let ending: String
    }

    /// The line of the planted `expectDeallocation` call (the line after its marker comment),
    /// read from the fixture's source.
    static func plantedLine() throws -> Int {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("PlantedLeakChild.swift")
        let lines = try String(contentsOf: source, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.contains("// planted-watch") })
        return index + 2
    }

    /// Runs the planted test in a child process of this bundle, with xUnit, event-stream and
    /// attachment output in a fresh directory.
    ///
    /// - Parameters:
    ///   - test: The `--filter` of the planted test.
    ///   - variable: The environment variable that enables it.
    static func runChild(
        _ test: String = "PlantedLeakChild/plantedLeak",
        enabledBy variable: String = "RETAINGRAPH_PLANTED_LEAK_CHILD"
    ) throws -> ChildRun {
        let bundle = CommandLine.arguments[0]
        try #require(bundle.hasSuffix(".xctest"), "run by swift test: \(bundle)")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("retaingraph-child-\(UUID().uuidString)")
        let attachments = directory.appendingPathComponent("attachments")
        try FileManager.default.createDirectory(at: attachments, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let xunit = directory.appendingPathComponent("xunit.xml")
        let events = directory.appendingPathComponent("events.jsonl")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bundle)
        process.arguments = [
            "--testing-library", "swift-testing", "--filter", test,
            "--xunit-output", xunit.path, "--attachments-path", attachments.path,
            "--event-stream-output-path", events.path, "--event-stream-version", "0",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = "1"
        process.environment = environment
        let outputFile = directory.appendingPathComponent("output.txt")
        try #require(FileManager.default.createFile(atPath: outputFile.path, contents: nil))
        let output = try FileHandle(forWritingTo: outputFile)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // A generous deadline: the child runs one test (a 20 ms grace, or a growth check of
        // 10 repetitions), in 0.5 s on a quiet machine, but it starts a 60 MB debug bundle while
        // the whole suite loads both cores: a CI rehearsal's child was still running at 120 s.
        let deadline = Date().addingTimeInterval(240)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        process.waitUntilExit()
        let printed = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let ending =
            "\(timedOut ? "stopped at the deadline, " : "")status \(process.terminationStatus) "
            + "(\(process.terminationReason == .uncaughtSignal ? "signal" : "exit")); "
            + "its output ends: \(printed.suffix(3_000))"
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        let decoded = lines.compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        // Copy the attachments out before the directory goes.
        let kept = FileManager.default.temporaryDirectory
            .appendingPathComponent("retaingraph-attachments-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: attachments, to: kept)
        return ChildRun(
            status: process.terminationStatus,
            xunit: try String(contentsOf: xunit, encoding: .utf8), events: decoded,
            attachments: kept, ending: ending)
    }

    /// The payloads of the events of `kind` (`issueRecorded`, `valueAttached`).
    static func payloads(_ run: ChildRun, kind: String) -> [[String: Any]] {
        run.events.compactMap { event in
            guard event["kind"] as? String == "event",
                let payload = event["payload"] as? [String: Any],
                payload["kind"] as? String == kind
            else { return nil }
            return payload
        }
    }

    @Test(
        "The issue is at the expectDeallocation line; the JSON and DOT reports are attached there")
    func issueLocationAndAttachments() throws {
        let line = try Self.plantedLine()
        let run = try Self.runChild()
        defer { try? FileManager.default.removeItem(at: run.attachments) }
        #expect(run.status != 0)

        let issues = Self.payloads(run, kind: "issueRecorded")
        #expect(issues.count == 1)
        let issue = try #require(issues.first?["issue"] as? [String: Any])
        let location = try #require(issue["sourceLocation"] as? [String: Any])
        #expect(location["fileID"] as? String == "RetainGraphTestingTests/PlantedLeakChild.swift")
        #expect(location["line"] as? Int == line)

        let attached = Self.payloads(run, kind: "valueAttached")
        let names = attached.compactMap {
            ($0["attachment"] as? [String: Any])?["_preferredName"] as? String
        }
        // The JSON and DOT reports, and the heap (the census records in this test bundle).
        #expect(names.count == 3)
        #expect(names.contains { $0.hasPrefix("LEAK-TickingScreen-") && $0.hasSuffix(".json") })
        #expect(names.contains { $0.hasPrefix("LEAK-TickingScreen-") && $0.hasSuffix(".dot") })
        #expect(
            names.contains { $0.hasPrefix("LEAK-TickingScreen-") && $0.hasSuffix(".heapsnapshot") }
        )
        for payload in attached {
            let site = payload["_sourceLocation"] as? [String: Any]
            #expect(site?["line"] as? Int == line)
        }

        let files = try FileManager.default.contentsOfDirectory(atPath: run.attachments.path)
        let jsonName = try #require(files.first { $0.hasSuffix(".json") })
        let dotName = try #require(files.first { $0.hasSuffix(".dot") })
        let json = try Data(contentsOf: run.attachments.appendingPathComponent(jsonName))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect((object["verdict"] as? String) == "LEAK")
        let dot = try String(
            contentsOf: run.attachments.appendingPathComponent(dotName), encoding: .utf8)
        #expect(dot.hasPrefix("digraph"))
        #expect(dot.contains("TickingScreen"))
    }

    @Test("xUnit output carries the whole text report and the line that made the watch")
    func xunitCarriesTheReport() throws {
        let line = try Self.plantedLine()
        let run = try Self.runChild()
        defer { try? FileManager.default.removeItem(at: run.attachments) }
        let xml = run.xunit.replacingOccurrences(of: "&#10;", with: "\n")
            .replacingOccurrences(of: "&quot;", with: "\"")
        #expect(xml.contains(#"failures="1""#))
        #expect(
            xml.contains(
                "<failure message=\"Issue recorded (error): LEAK: RetainGraphTestingTests.TickingScreen"
            ))
        #expect(xml.contains("Leaking: YES (screen closed)"))
        #expect(xml.contains("Hint: "))
        #expect(xml.contains("Fingerprint: "))
        #expect(xml.contains("Watched at RetainGraphTestingTests/PlantedLeakChild.swift:\(line):"))
    }
}
