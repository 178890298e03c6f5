import Foundation

extension LeakReport {
    /// The report as JSON: sorted keys, pretty-printed, stable for diffing in CI.
    ///
    /// The layout is described in <doc:ReportSchema>; ``schemaVersion`` says which version of
    /// it was written. Addresses and times differ between runs; tools compare
    /// ``fingerprint``s.
    ///
    /// - Returns: UTF-8 JSON, ending with a newline.
    /// - Throws: `EncodingError` if a number cannot be written (an infinite time, for example).
    public func jsonData() throws -> Data {
        var data = try Self.encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Reads a report written by ``jsonData()``.
    ///
    /// - Parameter data: The JSON.
    /// - Returns: The report.
    /// - Throws: ``LeakReportError/unsupportedSchemaVersion(_:)`` for a newer layout, or a
    ///   `DecodingError` for malformed input.
    public static func decode(from data: Data) throws -> LeakReport {
        guard let report = try LeakReportCollection.decode(from: data).reports.first else {
            throw LeakReportError.empty
        }
        return report
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Errors reading reports.
public enum LeakReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file was written by a newer version of the library.
    case unsupportedSchemaVersion(Int)
    /// The input holds no report.
    case empty
    /// A path is neither a report file nor a directory of them.
    case unreadable(path: String, reason: String)

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .unsupportedSchemaVersion(let version):
            return "report schema version \(version) is newer than "
                + "\(LeakReport.currentSchemaVersion), which this tool reads"
        case .empty: return "no report in the input"
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        }
    }
}

/// Where objects of a leak were made, and how many: one entry of a report's
/// ``LeakReport/creationSites``.
///
/// The at-exit check (SuiteLeaks) writes one per type and "made at" line of a group of leaked
/// cycles, so a group made at several places keeps every one of them, with its count, even
/// when the text shows the first few. `file` and `line` are the line a person would change
/// (the first frame outside the leaked types' modules, the runtime and the test frameworks);
/// `frames` is the whole creation stack of the place's most frequent stack, innermost first.
///
/// ```json
/// {"typeName": "SessionKit.Session", "count": 12, "file": "/src/Tests/LoginTests.swift",
///  "line": 31, "function": "LoginTests.testLogin()", "frames": ["…", "…"]}
/// ```
public struct CreationSiteCount: Sendable, Hashable, Codable {
    /// The type of the objects made there.
    public var typeName: String
    /// How many of the report's objects were made there.
    public var count: Int
    /// The source file of the line that made them, when the binary has one.
    public var file: String?
    /// Its 1-based line.
    public var line: Int?
    /// The function of that line, demangled.
    public var function: String?
    /// The whole creation stack, symbolicated, innermost first.
    public var frames: [String]

    /// Creates a site count.
    ///
    /// - Parameters:
    ///   - typeName: The objects' type.
    ///   - count: How many objects were made there.
    ///   - file: The source file of the line that made them.
    ///   - line: Its line.
    ///   - function: Its function.
    ///   - frames: The creation stack, innermost first.
    public init(
        typeName: String, count: Int, file: String? = nil, line: Int? = nil,
        function: String? = nil, frames: [String] = []
    ) {
        self.typeName = typeName
        self.count = count
        self.file = file
        self.line = line
        self.function = function
        self.frames = frames
    }
}

/// Several reports in one JSON document: `{"schemaVersion": 2, "reports": [ … ]}`.
///
/// Reading also accepts a single report object, so a file written by ``LeakReport/jsonData()``
/// and a collection read the same way.
public struct LeakReportCollection: Sendable, Hashable, Codable {
    /// The layout version.
    public var schemaVersion: Int
    /// The reports.
    public var reports: [LeakReport]
    /// The process that wrote them, when one test process among several did (the at-exit
    /// check: its executable, and its testing library when it is not XCTest, such as
    /// `MyPackageTests.xctest` and `MyPackageTests.xctest swift-testing`); nil otherwise.
    public var process: String?

    /// Creates a collection.
    ///
    /// - Parameters:
    ///   - reports: The reports.
    ///   - process: The process that wrote them, if they are one process's.
    public init(reports: [LeakReport], process: String? = nil) {
        self.schemaVersion = LeakReport.currentSchemaVersion
        self.reports = reports
        self.process = process
    }

    /// The collection as sorted, pretty-printed JSON.
    ///
    /// - Throws: `EncodingError` if a number cannot be written.
    public func jsonData() throws -> Data {
        var data = try LeakReport.encoder.encode(self)
        data.append(0x0A)
        return data
    }

    private struct Version: Decodable {
        var schemaVersion: Int
        var reports: [LeakReport]?
    }

    /// Reads a collection, or a single report as a collection of one.
    ///
    /// - Parameter data: The JSON.
    /// - Returns: The reports.
    /// - Throws: ``LeakReportError/unsupportedSchemaVersion(_:)`` for a newer layout, or a
    ///   `DecodingError` for malformed input.
    public static func decode(from data: Data) throws -> LeakReportCollection {
        let decoder = JSONDecoder()
        let header = try decoder.decode(Version.self, from: data)
        guard header.schemaVersion <= LeakReport.currentSchemaVersion else {
            throw LeakReportError.unsupportedSchemaVersion(header.schemaVersion)
        }
        if header.reports != nil {
            return try decoder.decode(LeakReportCollection.self, from: data)
        }
        return LeakReportCollection(reports: [try decoder.decode(LeakReport.self, from: data)])
    }

    /// Reads every report in a file, or in every `.json` file of a directory (sorted by name).
    ///
    /// - Parameter path: A report file, a collection file, or a directory of them.
    /// - Returns: The reports, in file order.
    /// - Throws: ``LeakReportError`` or a decoding error naming what failed.
    public static func read(contentsOf path: String) throws -> LeakReportCollection {
        try read(contentsOf: path, process: nil)
    }

    /// Reads the reports of one process in a file, or in every `.json` file of a directory: the
    /// collections written by `process` and those that name no process.
    ///
    /// A baseline directory of a whole `swift test` run holds a file per test process (XCTest's
    /// and Swift Testing's, of each package): each process compares itself with its own, so
    /// one never calls another's leaks fixed.
    ///
    /// - Parameters:
    ///   - path: A report file, a collection file, or a directory of them.
    ///   - process: The process whose reports to read (``process``); nil reads every report.
    /// - Returns: The reports, in file order, with `process` as their process.
    /// - Throws: ``LeakReportError`` or a decoding error naming what failed.
    public static func read(contentsOf path: String, process: String?) throws
        -> LeakReportCollection
    {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw LeakReportError.unreadable(path: path, reason: "no such file or directory")
        }
        var files = [path]
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            files = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
                .map { (path as NSString).appendingPathComponent($0) }
        }
        var reports: [LeakReport] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw LeakReportError.unreadable(path: file, reason: "cannot open")
            }
            do {
                let collection = try decode(from: data)
                guard process == nil || collection.process == nil || collection.process == process
                else { continue }
                reports += collection.reports
            } catch let error as LeakReportError {
                throw error
            } catch {
                throw LeakReportError.unreadable(path: file, reason: "\(error)")
            }
        }
        return LeakReportCollection(reports: reports, process: process)
    }
}
