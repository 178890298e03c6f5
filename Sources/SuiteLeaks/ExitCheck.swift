import Foundation
import HeapCensus
import LeakTracking

/// The at-exit check: when a test process (or any process that asks) exits, one look at the
/// whole heap for leaked cycles, a summary on standard error, and a JSON report for CI.
///
/// It runs from an `atexit` handler the census installs at process start (see the module's
/// documentation for who gets it); ``run(settings:)`` is the same check for a process that
/// wants to call it itself.
///
/// Before it reads the heap it lets the process settle: it waits (up to
/// ``Settings/settleSeconds``) until no other thread of the process is running, read from
/// `/proc/self/task/*/stat`, so that work the tests started and did not wait for has finished
/// or gone to sleep. It runs no run loop and no queue (that would run your code during exit):
/// work still queued there is held by its queue, and nothing it holds is reported. A cycle is
/// reported only if two snapshots find it with the same objects (``LeakedCycles/check(confirming:)``).
///
/// Environment variables (read once, when the check runs):
///
/// | variable | effect |
/// | --- | --- |
/// | `RETAINGRAPH_LEAKS_AT_EXIT` | `0` turns the check off; `1` turns it on in a process that links SuiteLeaks (with the preloaded library, test processes get it without this) |
/// | `RETAINGRAPH_LEAKS_JSON` | write the report there: a file, or a directory (ending in `/`, or existing) that gets `leaks-<process>-<pid>.json` |
/// | `RETAINGRAPH_LEAKS_BASELINE` | reports of known leaks (a file or directory, as `retain-graph compare` reads them); each test process compares itself with its own reports only (``Settings/process``) |
/// | `RETAINGRAPH_LEAKS_STACKS` | `1`: print the whole creation stack of every site under each group (the JSON report always has them) |
/// | `RETAINGRAPH_LEAKS_ALLOW` | comma-separated type patterns of accepted leaks, such as `NIOPosix.*` (``platformLeaks`` are accepted too) |
/// | `RETAINGRAPH_LEAKS_FAIL` | `1`: exit with status 1 when a leak is neither in the baseline nor allowed |
/// | `RETAINGRAPH_LEAKS_SETTLE_SECONDS` | how long to wait for other threads to stop running (default 1) |
public enum ExitCheck {
    /// What the check does, from the environment.
    public struct Settings: Sendable {
        /// Where to write the JSON report, if anywhere.
        public var jsonPath: String?
        /// Known leaks: a report file or directory.
        public var baselinePath: String?
        /// Type patterns of accepted leaks: ``platformLeaks`` and `RETAINGRAPH_LEAKS_ALLOW`'s.
        public var allowed: [TypePattern]
        /// Whether a leak neither known nor allowed makes the process fail.
        public var failsOnNewLeaks: Bool
        /// The longest wait for other threads to stop running, in seconds.
        public var settleSeconds: Double
        /// Whether the summary shows every site's whole creation stack.
        public var showsStacks: Bool
        /// The test process the reports belong to: its executable's name, and its testing
        /// library when it is not XCTest (`MyPackageTests.xctest`,
        /// `MyPackageTests.xctest swift-testing`). Written into the JSON report; a baseline's
        /// reports of other processes are not compared with this one's.
        public var process: String

        /// Settings read from `environment` (see ``ExitCheck`` for the variables).
        ///
        /// - Parameters:
        ///   - environment: Variables and values, by default the process's.
        ///   - arguments: The process's arguments (for its testing library), by default its own.
        public init(
            environment: [String: String] = ProcessInfo.processInfo.environment,
            arguments: [String] = ProcessInfo.processInfo.arguments
        ) {
            func value(_ name: String) -> String? {
                environment[name].flatMap { $0.isEmpty ? nil : $0 }
            }
            jsonPath = value("RETAINGRAPH_LEAKS_JSON")
            baselinePath = value("RETAINGRAPH_LEAKS_BASELINE")
            allowed =
                ExitCheck.platformLeaks
                + (value("RETAINGRAPH_LEAKS_ALLOW").map(TypePattern.list) ?? [])
            failsOnNewLeaks = ["1", "on", "yes", "true"].contains(
                value("RETAINGRAPH_LEAKS_FAIL")?.lowercased() ?? "")
            settleSeconds = value("RETAINGRAPH_LEAKS_SETTLE_SECONDS").flatMap(Double.init) ?? 1
            showsStacks = ["1", "on", "yes", "true"].contains(
                value("RETAINGRAPH_LEAKS_STACKS")?.lowercased() ?? "")
            process = ExitCheck.process(
                named: ProcessInfo.processInfo.processName, arguments: arguments)
        }
    }

    /// A test process's name for its reports: the executable's name, then the testing library
    /// it runs when its arguments name one other than XCTest (`swift test` runs one bundle
    /// twice: XCTest's tests, then `--testing-library swift-testing`).
    ///
    /// - Parameters:
    ///   - name: The executable's name.
    ///   - arguments: Its arguments.
    /// - Returns: `MyPackageTests.xctest` or `MyPackageTests.xctest swift-testing`.
    static func process(named name: String, arguments: [String]) -> String {
        guard let index = arguments.firstIndex(of: "--testing-library"),
            index + 1 < arguments.count
        else { return name }
        let library = arguments[index + 1]
        return library.isEmpty || library == "xctest" ? name : "\(name) \(library)"
    }

    /// Leaks of the platform that every test process has, accepted by default (they are still
    /// in the JSON report: give `retain-graph compare` the same patterns with `--allow`).
    ///
    /// corelibs XCTest on Linux keeps every test case and every test suite in a strong cycle
    /// with its run (`XCTest.testRun` ⇄ `XCTestRun.test`): none is ever freed, nor anything a
    /// test case's properties still hold when the run ends.
    public static let platformLeaks = [
        TypePattern("XCTest.XCTestCaseRun"), TypePattern("XCTest.XCTestSuiteRun"),
    ]

    /// What one check found and did.
    public struct Outcome: Sendable {
        /// The leaked cycles.
        public let leaks: LeakedCycles
        /// Their reports compared with the baseline and the allowed patterns.
        public let comparison: LeakReportComparison
        /// Where the JSON report was written, if it was.
        public let jsonFile: String?
        /// The summary written to standard error.
        public let text: String

        /// The exit status the check asks for: 1 when the settings fail on new leaks and there
        /// are some, else 0.
        public let status: Int32
    }

    /// Lets the process settle, finds the leaked cycles, writes the summary to standard error
    /// and the report where the settings say.
    ///
    /// - Parameter settings: What to do (by default, from the environment).
    /// - Returns: What was found and done.
    /// - Complexity: Two census snapshots when leaks are found (one otherwise), plus the wait.
    @discardableResult
    public static func run(settings: Settings = Settings()) -> Outcome {
        ThreadActivity.waitUntilOthersSleep(atMost: settings.settleSeconds)
        let started = Date()
        let (threadStart, childrenStart) = (
            ProcessResources.processorTime(), ProcessResources.childrenProcessorTime()
        )
        var times = LeakedCycles.Times()
        let leaks = LeakedCycles.check(
            confirming: true, accepting: settings.allowed, releasingMemory: true, times: &times)
        let reports = leaks.groups.map(\.report)
        var baseline: [LeakReport] = []
        var notes: [String] = []
        if let path = settings.baselinePath {
            do {
                baseline =
                    try LeakReportCollection.read(contentsOf: path, process: settings.process)
                    .reports
            } catch {
                notes.append("RetainGraph: cannot read the baseline \(path): \(error)")
            }
        }
        let comparison = LeakReportComparison(
            old: baseline, new: reports, allowing: settings.allowed)
        var jsonFile: String?
        if let path = settings.jsonPath {
            do {
                jsonFile = try write(
                    LeakReportCollection(reports: reports, process: settings.process), to: path)
            } catch {
                notes.append("RetainGraph: cannot write \(path): \(error)")
            }
        }
        let status: Int32 = settings.failsOnNewLeaks && comparison.hasNewLeaks ? 1 : 0
        var text = leaks.text(allowing: settings.allowed, stacks: settings.showsStacks)
        func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
        let readings = times.readings.map { "\(rounded($0))" }.joined(separator: " + ")
        let cpu = rounded(ProcessResources.processorTime() - threadStart)
        let symbolizer = rounded(ProcessResources.childrenProcessorTime() - childrenStart)
        text +=
            "\n(checked in \(rounded(Date().timeIntervalSince(started))) s: heap read in "
            + "\(readings) s, analysis and reports \(rounded(times.analysis)) s; processor "
            + "\(cpu) s, symbolizer \(symbolizer) s"
        if let jsonFile { text += "; report: \(jsonFile)" }
        text += ")"
        if !leaks.isEmpty, settings.baselinePath != nil || settings.failsOnNewLeaks {
            text += "\n" + comparison.text
        }
        if status != 0 {
            text += "\nRetainGraph: new leaked cycles: failing (RETAINGRAPH_LEAKS_FAIL)"
        }
        for note in notes { text += "\n" + note }
        FileHandle.standardError.write(Data((text + "\n").utf8))
        return Outcome(
            leaks: leaks, comparison: comparison, jsonFile: jsonFile, text: text, status: status)
    }

    /// Writes `collection` to `path`, or into it when it is a directory; returns the file.
    private static func write(_ collection: LeakReportCollection, to path: String) throws -> String
    {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        var file = path
        if path.hasSuffix("/") || (exists && isDirectory.boolValue) {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true)
            let process =
                collection.process?.replacingOccurrences(of: " ", with: "-")
                ?? ProcessInfo.processInfo.processName
            file = (path as NSString).appendingPathComponent(
                "leaks-\(process)-\(ProcessInfo.processInfo.processIdentifier).json")
        }
        try collection.jsonData().write(to: URL(fileURLWithPath: file))
        return file
    }
}

/// The entry point the census's atexit handler calls (`Sources/CHeapCensus/census_exit.c`):
/// stops recording (what the check allocates is not part of the heap it judges), then runs
/// the check with the environment's settings; returns its exit status.
@_cdecl("rg_suite_leaks_at_exit")
func suiteLeaksAtExit() -> Int32 {
    // The process is ending: what the check itself allocates is nobody's leak.
    HeapCensus.stop()
    let status = ExitCheck.run().status
    TasksAtExit.report()
    return status
}
