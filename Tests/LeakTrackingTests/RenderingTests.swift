import Foundation
import LeakTracking
import RetainGraph
import Testing

@Suite("JSON, DOT and directory output")
struct RenderingTests {
    @Test("A report round-trips through JSON unchanged, with sorted keys and a schema version")
    func jsonRoundTrip() throws {
        let (report, _, loop) = try ReportTests.s1Report()
        let data = try report.jsonData()
        let decoded = try LeakReport.decode(from: data)
        #expect(decoded == report)
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text.contains("\"schemaVersion\" : \(LeakReport.currentSchemaVersion)"))
        let keys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }
            .map { $0.split(separator: "\"")[1] }
        #expect(keys == keys.sorted())
        #expect(try report.jsonData() == data)
        withExtendedLifetime(loop) {}
    }

    @Test("A collection round-trips, and a newer schema version is refused")
    func collectionAndVersion() throws {
        let (report, _, loop) = try ReportTests.s1Report()
        let collection = LeakReportCollection(reports: [report, report])
        let decoded = try LeakReportCollection.decode(from: try collection.jsonData())
        #expect(decoded.reports == [report, report])
        var future = report
        future.schemaVersion = LeakReport.currentSchemaVersion + 1
        #expect(
            throws: LeakReportError.unsupportedSchemaVersion(LeakReport.currentSchemaVersion + 1)
        ) {
            _ = try LeakReport.decode(from: try future.jsonData())
        }
        withExtendedLifetime(loop) {}
    }

    @Test(
        "The DOT output renders with dot -Tsvg",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dot"))
    )
    func dotRenders() throws {
        let (report, _, loop) = try ReportTests.s1Report()
        let dot = report.dot
        #expect(dot.contains("doubleoctagon"))
        #expect(dot.contains("color=red"))
        #expect(dot.contains("color=blue"))
        #expect(dot.contains("style=dashed") == report.context.contains { $0.ownership != .strong })
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lt-dot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("leak.dot")
        try dot.write(to: input, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dot")
        process.arguments = [
            "-Tsvg", input.path, "-o", directory.appendingPathComponent("leak.svg").path,
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(
            data: errors.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8)
        #expect(process.terminationStatus == 0, "\(message ?? "")")
        let svg = try String(
            contentsOf: directory.appendingPathComponent("leak.svg"), encoding: .utf8)
        #expect(svg.contains("<svg"))
        withExtendedLifetime(loop) {}
    }

    @Test("The weak back reference of a proxy chain is drawn dashed")
    func weakEdgesAreDashed() throws {
        let harness = Harness()
        let loop = harness.mainRunLoop()
        var owner: Owner? = harness.makeS1(on: loop)
        let observer = Owner()
        harness.graph.addReference(
            from: observer, to: owner!, ownership: .weak, role: .storedProperty(name: "delegate"))
        _ = harness.expectDeath(of: &owner)
        harness.expireGrace()
        let report = try #require(harness.onlyVerdict()?.report)
        #expect(report.context.contains { $0.ownership == .weak && $0.detail == "delegate" })
        #expect(report.dot.contains("style=dashed"))
        withExtendedLifetime((loop, observer)) {}
    }

    @Test("The directory sink writes atomically, leaves no temporary files, and rewrites counts")
    func directorySink() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("lt-sink-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = try DirectorySink(directory: directory, formats: [.json, .text, .dot])
        let (report, _, loop) = try ReportTests.s1Report()
        sink.receive(report)
        var again = report
        again.occurrences = 2
        sink.receive(again)
        #expect(sink.errors.isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(
            names == [
                "\(report.fingerprint).dot", "\(report.fingerprint).json",
                "\(report.fingerprint).txt",
            ])
        let read = try LeakReportCollection.read(contentsOf: directory.path)
        #expect(read.reports.map(\.occurrences) == [2])
        withExtendedLifetime(loop) {}
    }

    @Test("Comparing report sets finds new, fixed and still-leaking fingerprints")
    func comparison() throws {
        let (s1, _, loop) = try ReportTests.s1Report()
        var other = s1
        other.fingerprint = "00000000000000aa"
        var gone = s1
        gone.fingerprint = "00000000000000bb"
        let comparison = LeakReportComparison(old: [s1, gone], new: [s1, other])
        #expect(comparison.new.map(\.fingerprint) == ["00000000000000aa"])
        #expect(comparison.fixed.map(\.fingerprint) == ["00000000000000bb"])
        #expect(comparison.stillLeaking.map(\.fingerprint) == [s1.fingerprint])
        #expect(comparison.hasNewLeaks)
        #expect(comparison.text.contains("new (1):"))
        withExtendedLifetime(loop) {}
    }
}

@Suite("Reports written by version 1")
struct VersionOneReportTests {
    @Test("A version 1 report (no watch location, traces without file) reads, and annotates")
    func versionOneReads() throws {
        let json = #"""
            {"schemaVersion": 1, "verdict": "LEAK", "fingerprint": "0123456789abcdef",
             "occurrences": 1, "reason": "closed", "graceSeconds": 0.1,
             "secondsPastDeadline": 0.2, "retention": "rootPath",
             "subject": {"id": "o1", "typeName": "App.Owner", "kind": "object",
                         "isDeallocated": false},
             "objects": [{"id": "o0", "typeName": "run loop", "kind": "root",
                          "root": "run loop of thread \"main\"", "isDeallocated": false},
                         {"id": "o1", "typeName": "App.Owner", "kind": "object",
                          "isDeallocated": false}],
             "path": [{"from": "o0", "to": "o1", "kind": "strong", "role": "declared",
                       "detail": "holds", "description": "holds", "isSuspect": false,
                       "isDiscovered": false}],
             "context": [],
             "creationTraces": [{"object": "o1",
                                 "frames": ["App.make() + 12 at /repo/Sources/App/Owner.swift:42 (App)"]}],
             "hint": {"code": "generic", "text": "cut it"}, "notes": []}
            """#
        let report = try LeakReport.decode(from: Data(json.utf8))
        #expect(report.schemaVersion == 1)
        #expect(report.watchLocation == nil)
        #expect(report.creationTraces.first?.file == nil)
        #expect(report.userSourceLocation(workspace: "/repo")?.file == "Sources/App/Owner.swift")
        #expect(
            report.githubAnnotation(workspace: "/repo").hasPrefix(
                "::error file=Sources/App/Owner.swift,line=42,"))
        #expect(!report.text.contains("Watched at"))
    }
}
