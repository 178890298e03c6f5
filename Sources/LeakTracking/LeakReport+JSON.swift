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

/// Several reports in one JSON document: `{"schemaVersion": 2, "reports": [ … ]}`.
///
/// Reading also accepts a single report object, so a file written by ``LeakReport/jsonData()``
/// and a collection read the same way.
public struct LeakReportCollection: Sendable, Hashable, Codable {
    /// The layout version.
    public var schemaVersion: Int
    /// The reports.
    public var reports: [LeakReport]

    /// Creates a collection.
    ///
    /// - Parameter reports: The reports.
    public init(reports: [LeakReport]) {
        self.schemaVersion = LeakReport.currentSchemaVersion
        self.reports = reports
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
                reports += try decode(from: data).reports
            } catch let error as LeakReportError {
                throw error
            } catch {
                throw LeakReportError.unreadable(path: file, reason: "\(error)")
            }
        }
        return LeakReportCollection(reports: reports)
    }
}
