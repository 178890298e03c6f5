import Foundation
import Testing

/// Runs `Scripts/devtools/devtools_check.py`: a real headless Chromium, DevTools' own frontend,
/// the Memory panel loading the files, and what its grids show read back.
enum DevToolsDriver {
    /// One row of the Summary.
    struct SummaryRow: Decodable {
        let name: String
        let count: Int
        let distance: Int
        let shallowSize: Double
        let retainedSize: Double
    }

    /// An object as a grid shows it.
    struct Object: Decodable {
        let id: Int
        let name: String
        let retainedSize: Double
        let shallowSize: Double
        let edge: String?
    }

    /// An object's row and its Retainers (`path`: the first retainer of each level).
    struct Inspection: Decodable {
        let object: Object
        let retainers: [Object]
        let path: [Object]
    }

    /// One row of the Comparison.
    struct ComparisonRow: Decodable {
        let name: String
        let addedCount: Int
        let removedCount: Int
        let countDelta: Int
        let sizeDelta: Double
    }

    /// What the driver printed, decoded lazily by query.
    struct Run {
        let json: [String: Any]

        var chromium: String { json["chromium"] as? String ?? "?" }

        func value<T: Decodable>(_ number: Int, as type: T.Type) throws -> T {
            let results = json["results"] as? [[String: Any]] ?? []
            let value = try #require(results.count > number ? results[number]["value"] : nil)
            let data = try JSONSerialization.data(
                withJSONObject: value, options: [.fragmentsAllowed])
            return try JSONDecoder().decode(T.self, from: data)
        }

        var loadSeconds: [Double] {
            (json["loads"] as? [[String: Any]] ?? []).compactMap { $0["seconds"] as? Double }
        }
    }

    /// The repository's root (this file is Tests/HeapExportTests/DevToolsDriver.swift).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Where files and screenshots go: `devtools/<name>` in the build folder (beside the test
    /// bundle), kept after the run as artefacts.
    static func folder(_ name: String) throws -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let folder = bundle.appendingPathComponent("devtools").appendingPathComponent(name)
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Loads `snapshots` into DevTools and runs `queries`; screenshots go to `folder`.
    ///
    /// Fails the test (never skips) when Chromium or Python cannot be found or DevTools fails.
    static func run(snapshots: [URL], queries: [[String: Any]], folder: URL) throws -> Run {
        let plan: [String: Any] = [
            "snapshots": snapshots.map(\.path), "screenshots": folder.path, "queries": queries,
        ]
        let planURL = folder.appendingPathComponent("plan.json")
        let resultURL = folder.appendingPathComponent("result.json")
        try JSONSerialization.data(withJSONObject: plan).write(to: planURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", repository.appendingPathComponent("Scripts/devtools/devtools_check.py").path,
            planURL.path, "--output", resultURL.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(
            decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        switch process.terminationStatus {
        case 0: break
        case 3:
            Issue.record("Chromium is needed for this test and was not found: \(message)")
            throw DriverError.failed(message)
        default:
            Issue.record("devtools_check.py exited \(process.terminationStatus): \(message)")
            throw DriverError.failed(message)
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: resultURL))
        return Run(json: try #require(json as? [String: Any]))
    }

    enum DriverError: Error { case failed(String) }
}
