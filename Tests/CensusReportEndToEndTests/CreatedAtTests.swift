import Foundation
import HeapCensus
import LeakTracking
import ReferenceReflection
import Testing

/// An object a `Task` makes and hands to a registry that keeps it.
final class Download: @unchecked Sendable {}

/// Downloads a task made, kept for ever.
nonisolated(unsafe) var finishedDownloads: [Download] = []

/// An owner whose plain `Foundation.Timer` captures it.
final class Poller: @unchecked Sendable {
    var timer: Timer?
    func start(line: inout Int) {
        line = #line + 1
        timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.poll() }
    }
    func poll() {}
}

/// An entry of a global cache.
final class Thumbnail: @unchecked Sendable {}

nonisolated(unsafe) var thumbnailCache: [Thumbnail] = []

/// Where the objects of a report were made, with the census alone: "Created at" names a line
/// of this file for the leaked object and its holder, in the text, the JSON and the GitHub
/// annotations the built `retain-graph` prints.
@Suite(.serialized) struct CreatedAtTests {
    init() { HeapCensus.start() }

    /// The report on `object`, watched as the test helpers watch (reflection plus the census).
    static func report(on object: AnyObject) throws -> LeakReport {
        let watcher = LeakWatcher(defaultGrace: .zero, discovery: .reflection)
        watcher.expectDeallocation(of: object, reason: "done")
        let verdict = try #require(watcher.check().first)
        #expect(verdict.verdict == .leak)
        return try #require(verdict.report)
    }

    /// The creation trace of the report's object of type `typeName`.
    static func trace(of typeName: String, in report: LeakReport) -> CreationTrace? {
        report.creationTraces.first { report.object($0.object)?.typeName == typeName }
    }

    /// An object made by a `Task`, kept by a global: made where the task's closure says.
    static func objectMadeByATask() async throws -> (LeakReport, line: Int) {
        let line = Locked(0)
        await Task {
            line.value = #line + 1
            let download = Download()
            finishedDownloads.append(download)
        }.value
        return (try report(on: try #require(finishedDownloads.last)), line.value)
    }

    static func timerOwner() throws -> (LeakReport, owner: Int, timer: Int, Poller) {
        var timerLine = 0
        let ownerLine = #line + 1
        let poller = Poller()
        poller.start(line: &timerLine)
        return (try report(on: poller), ownerLine, timerLine, poller)
    }

    static func globalEntry() throws -> (LeakReport, line: Int) {
        let line = #line + 1
        thumbnailCache.append(Thumbnail())
        return (try report(on: try #require(thumbnailCache.last)), line)
    }

    @Test func anObjectMadeByATaskSaysWhereTheTaskMadeIt() async throws {
        defer { finishedDownloads.removeAll() }
        let (report, line) = try await Self.objectMadeByATask()
        let trace = try #require(Self.trace(of: "CensusReportEndToEndTests.Download", in: report))
        #expect(trace.site == "CreatedAtTests.swift:\(line)", "\(report.text)")
        #expect(
            trace.file?.hasSuffix("Tests/CensusReportEndToEndTests/CreatedAtTests.swift") == true)
        #expect(report.text.contains("Created at:\n"))
        #expect(report.text.contains("CensusReportEndToEndTests.Download at 0x"))
        #expect(report.text.contains(": CreatedAtTests.swift:\(line)\n"))
        // No allocating initializer, thunk or system frame stands for the user's line.
        #expect(!trace.frames.contains { $0.contains("__allocating_init") })
    }

    @Test func aTimerOwnerSaysWhereItAndItsTimerWereMade() throws {
        let (report, ownerLine, timerLine, poller) = try Self.timerOwner()
        defer { poller.timer?.invalidate() }
        let owner = try #require(Self.trace(of: "CensusReportEndToEndTests.Poller", in: report))
        #expect(owner.site == "CreatedAtTests.swift:\(ownerLine)", "\(report.text)")
        let timer = try #require(Self.trace(of: "Foundation.Timer", in: report))
        #expect(timer.site == "CreatedAtTests.swift:\(timerLine)", "\(report.text)")
        #expect(report.hint.code == .foundationTimer)
    }

    @Test func anObjectHeldByAGlobalSaysWhereItWasMade() throws {
        defer { thumbnailCache.removeAll() }
        let (report, line) = try Self.globalEntry()
        let trace = try #require(Self.trace(of: "CensusReportEndToEndTests.Thumbnail", in: report))
        #expect(trace.site == "CreatedAtTests.swift:\(line)", "\(report.text)")
        #expect(report.hint.code == .globalVariable)
    }

    @Test func theJSONKeepsTheSitesAndTheWatch() throws {
        defer { thumbnailCache.removeAll() }
        let (report, line) = try Self.globalEntry()
        let decoded = try LeakReport.decode(from: try report.jsonData())
        #expect(decoded == report)
        let trace = try #require(
            Self.trace(of: "CensusReportEndToEndTests.Thumbnail", in: decoded))
        #expect(trace.line == line)
        #expect(decoded.watchLocation?.fileID == "CensusReportEndToEndTests/CreatedAtTests.swift")
    }

    @Test func retainGraphAnnotatesEveryLeakWithAFileAndALine() async throws {
        defer {
            finishedDownloads.removeAll()
            thumbnailCache.removeAll()
        }
        let (task, taskLine) = try await Self.objectMadeByATask()
        let (timer, _, timerLine, poller) = try Self.timerOwner()
        defer { poller.timer?.invalidate() }
        let (global, globalLine) = try Self.globalEntry()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rg-created-at-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = try DirectorySink(directory: directory.appendingPathComponent("leaks"))
        for report in [task, timer, global] { try sink.write(report) }
        let baseline = directory.appendingPathComponent("baseline")
        try FileManager.default.createDirectory(at: baseline, withIntermediateDirectories: true)

        let (status, output) = try RetainGraphTool.run([
            "compare", baseline.path, sink.directory.path, "--github-annotations",
            "--workspace", RetainGraphTool.workspace,
        ])
        #expect(status == 1)
        let annotations = output.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        #expect(annotations.count == 3, "\(output)")
        let file = "file=Tests/CensusReportEndToEndTests/CreatedAtTests.swift"
        // The first creation frame in this repository: the holder's (the Task, the Timer) when
        // it has one here, else the leaked object's.
        for line in [taskLine, timerLine, globalLine] {
            #expect(
                annotations.contains { $0.hasPrefix("::error \(file),line=\(line),") }
                    || annotations.contains { $0.contains("line=\(line),") }, "\(output)")
        }
        #expect(annotations.allSatisfy { $0.hasPrefix("::error \(file),line=") }, "\(output)")
    }
}

/// A value a `Task` sets and its creator reads after awaiting it.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
