import ArgumentParser
import Foundation
import LeakTracking
import RetainGraphReports

/// `retain-graph`: reads the heap of a running process or a core file, and renders and compares
/// the JSON leak reports that `LeakTracking` writes.
///
/// Exit codes: 0 on success (and for `compare`, when no new leak appeared); 1 when `compare`
/// finds a fingerprint in the new reports that the old ones lack; 2 when an input cannot be
/// read (a missing file, malformed JSON, a process or core that cannot be read); 4 when an
/// answer would be partial (see `attach --accept-partial`).
@main
struct RetainGraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retain-graph",
        abstract:
            "Find who holds leaked Swift objects: in a running process, a core file, or reports.",
        discussion: """
            A running process (attach, dump) or a core file (core) is read from outside: \
            nothing of RetainGraph is linked into it. Attaching needs ptrace: root or \
            CAP_SYS_PTRACE. Start with: retain-graph attach PID --growth 30s

            A report PATH may be a report file, a collection file ({"schemaVersion": 2, \
            "reports": [...]}) or a directory of .json files.

            Exit codes: 0 success (compare: no new leaks); 1 compare found new leaks; \
            2 an input could not be read; 4 a partial answer was refused.
            """,
        subcommands: [Attach.self, Core.self, Dump.self, Heap.self, Render.self, Compare.self])
}

/// Reads reports, turning failures into exit code 2 with a message on standard error.
func readReports(_ path: String) throws -> [LeakReport] {
    do {
        return try LeakReportCollection.read(contentsOf: path).reports
    } catch {
        FileHandle.standardError.write(Data("retain-graph: \(error)\n".utf8))
        throw ExitCode(2)
    }
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print reports as text for a terminal, Graphviz DOT, or normalised JSON.",
        discussion: """
            Example: retain-graph render leaks/ --format dot > leak.dot && \
            dot -Tsvg leak.dot -o leak.svg
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, dot, json
    }

    @Argument(
        help: "A report file, a collection file, a directory of reports, or a heap growth report.")
    var path: String

    @Option(name: .shortAndLong, help: "Output format: text, dot or json.")
    var format: Format = .text

    func run() throws {
        // A growth report (HeapGrowth's JSON, `"kind": "heapGrowth"`) renders as itself.
        if let data = FileManager.default.contents(atPath: path),
            let growth = try? GrowthReport(jsonData: data)
        {
            switch format {
            case .text: print(growth.text)
            case .dot: print(growth.dot)
            case .json: FileHandle.standardOutput.write(try growth.jsonData())
            }
            return
        }
        let reports = try readReports(path)
        switch format {
        case .text:
            let rule = "\n\n" + String(repeating: "─", count: 72) + "\n\n"
            print(reports.map(\.text).joined(separator: rule))
        case .dot:
            for report in reports { print(report.dot, terminator: "") }
        case .json:
            FileHandle.standardOutput.write(try LeakReportCollection(reports: reports).jsonData())
        }
    }
}

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two sets of reports by fingerprint: new, fixed, still leaking.",
        discussion: """
            Exits with code 1 when NEW has a fingerprint that OLD lacks and no --allow \
            pattern accepts, so a CI job fails on a new leak while tolerating the known ones \
            and a library's. Example: \
            retain-graph compare baseline/ leaks/ --github-annotations \
            (an empty OLD directory makes every leak new).
            """)

    @Argument(help: "The baseline reports (file or directory).")
    var old: String

    @Argument(help: "The current reports (file or directory).")
    var new: String

    @Flag(
        help: """
            Also print a GitHub Actions annotation (::error file=…,line=…) for each new leak, \
            at the first line of its creation trace in the repository.
            """)
    var githubAnnotations = false

    @Option(
        help: """
            The repository's root, for annotation file paths (default: $GITHUB_WORKSPACE, \
            else the current directory).
            """)
    var workspace: String?

    @Option(
        name: .customLong("allow"),
        help: """
            Accept leaks through types matching PATTERN (`*` for any characters; repeat it, or \
            separate patterns with commas): a library's leaks, listed as allowed, not new.
            """)
    var allowPatterns: [String] = []

    func run() throws {
        let newReports = try readReports(new)
        let comparison = LeakReportComparison(
            old: try readReports(old), new: newReports,
            allowing: allowPatterns.flatMap(TypePattern.list))
        print(comparison.text)
        if githubAnnotations {
            let environment = ProcessInfo.processInfo.environment
            let root =
                workspace ?? environment["GITHUB_WORKSPACE"]
                ?? FileManager.default.currentDirectoryPath
            // Every report of a new fingerprint, once per distinct annotation: groups of one
            // shape made at two lines of one function share a fingerprint, and each gets its
            // own annotation at its own line.
            let fingerprints = Set(comparison.new.map(\.fingerprint))
            var printed = Set<String>()
            for report in newReports where fingerprints.contains(report.fingerprint) {
                let annotation = report.githubAnnotation(workspace: root)
                if printed.insert(annotation).inserted { print(annotation) }
            }
        }
        if comparison.hasNewLeaks { throw ExitCode(1) }
    }
}
